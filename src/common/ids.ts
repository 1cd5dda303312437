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

/**
 * An event id (SPEC §6): 24 hex chars, a millisecond timestamp then random bytes. They are the first
 * 12 bytes of a UUID v7 (its version and variant bits set), so that the event's journal row, keyed
 * by them and four zero bytes, can carry the change's audit entry under that key as a valid UUID v7
 * (journalKey).
 */
export function eventId(now = Date.now()): string {
  const b = randomBytes(12);
  b.writeUIntBE(now, 0, 6);
  b[6] = 0x70 | (b[6] & 0x0f);
  b[8] = 0x80 | (b[8] & 0x3f);
  return b.toString('hex');
}

/** The journal key of an event (migration Journal): its id's 12 bytes and four zero bytes, as a UUID. */
export function journalKey(eventIdHex: string): string {
  return `${eventIdHex.slice(0, 8)}-${eventIdHex.slice(8, 12)}-${eventIdHex.slice(12, 16)}-${eventIdHex.slice(16, 20)}-${eventIdHex.slice(20)}00000000`;
}
