import type { QueryRunner } from 'typeorm';
import { lockedTransaction } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * Step 6, release A (docs/design/write-path.md): a delivery's id is derived from its endpoint and
 * its event instead of drawn at random, so that a worker that later follows the journal by position
 * gives an event's delivery the same `x-svc-delivery-id` on every instance and every attempt without
 * a stored row, and finds the row an older writer made for it under the same key.
 *
 * The id stays a UUID v7 (DECISIONS §19): its 48 bits of time are the event id's (SPEC §6 event ids
 * start with their millisecond timestamp), so deliveries keep their index locality and order; the
 * rest is the SHA-256 of the endpoint id and the event id, with the version and variant bits set.
 * Two deliveries of one millisecond collide only if 74 bits of their hashes do.
 *
 * Expand: only the flush of 1.7.0 calls it; 1.6.0 keeps drawing ids at random beside it, which the
 * delivery log and the sender read alike. The down drops the function once no 1.7.0 instance runs.
 */
export class DerivedDeliveryIds1768000000000 implements ReleasedMigration {
  name = 'DerivedDeliveryIds1768000000000';
  readonly release = expandIn('1.7.0');

  async up(q: QueryRunner): Promise<void> {
    await q.query(DELIVERY_ID_FUNCTION);
  }

  async down(q: QueryRunner): Promise<void> {
    await lockedTransaction(q, () => q.query('DROP FUNCTION IF EXISTS svc_delivery_id(uuid, text)'));
  }
}

/** The hex of the SHA-256 of the endpoint id's 16 bytes and the event id's 12. */
const HASH = `encode(sha256(uuid_send(endpoint) || decode(event, 'hex')), 'hex')`;

/**
 * One expression of immutable functions, so that PostgreSQL inlines it into the flush's insert (a
 * FROM clause, or a stable function such as convert_to, would make it a call a row); the hash is
 * written three times for it. Hex digits 13 and 17 of the UUID carry the version (7) and the variant
 * (8, 9, a or b: the hash's digit modulo 4).
 */
const DELIVERY_ID_FUNCTION = `
  CREATE OR REPLACE FUNCTION svc_delivery_id(endpoint uuid, event text) RETURNS uuid
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (left(event, 12) || '7' || substr(${HASH}, 1, 3)
            || translate(substr(${HASH}, 4, 1), '0123456789abcdef', '89ab89ab89ab89ab') || substr(${HASH}, 5, 15))::uuid
  $$`;
