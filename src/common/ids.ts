import { randomBytes } from 'node:crypto';

/**
 * A lowercase, time-ordered UUID v7 (DECISIONS §19): ids created later sort later, which keeps
 * b-tree inserts local and makes "id descending" follow creation order.
 */
export function uuidv7(now = Date.now()): string {
  const b = randomBytes(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = 0x70 | (b[6] & 0x0f);
  b[8] = 0x80 | (b[8] & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** True for a lowercase UUID: anything else can never name a row, so lookups answer 404 early. */
export const isUuid = (v: string): boolean => UUID.test(v);

/** An event id (SPEC §6): 24 hex chars, a millisecond timestamp then random bytes. */
export function eventId(now = Date.now()): string {
  const b = randomBytes(12);
  b.writeUIntBE(now, 0, 6);
  return b.toString('hex');
}
