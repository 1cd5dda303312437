/**
 * A journal row's `names` (what an erasure and an export find a change by), computed by the writer
 * as `svc_journal_names` computes them from the stored documents: the strings the change names,
 * each hashed as `svc_name_hash` does, distinct, ascending, less the service's own words that
 * journal_unindexed_names lists (field names, types, statuses: in nearly every row, needed by no
 * search, and most of the index's cost). Done here, PostgreSQL parses an array of integers instead
 * of walking the documents and hashing and folding their strings (about 0.04 ms of its CPU a
 * change). test/e2e/journal-names.e2e-spec.ts holds the two to each other.
 */

/**
 * The strings a document names, as `svc_names` finds them in its jsonb: every string value and
 * every object key, at any depth. Walked over what JSON.stringify writes (each value after its
 * toJSON, a property it drops left out), which is the document the flush sends.
 */
export function documentNames(doc: unknown): string[] {
  const names: string[] = [];
  let root = true;
  JSON.stringify(doc, function (this: unknown, key: string, value: unknown) {
    // The first call is the document itself, under the key '' of a wrapper that is not written.
    if (root) root = false;
    else if (!Array.isArray(this) && value !== undefined && typeof value !== 'function' && typeof value !== 'symbol') names.push(key);
    if (typeof value === 'string') names.push(value);
    return value;
  });
  return names;
}

/** The audit part of a change, as the journal row holds it. */
export interface AuditPart {
  actorUserId: string | null;
  targetId: string | null;
  payload: unknown;
}

const NOTHING: ReadonlySet<number> = new Set();

/**
 * `svc_journal_names(actor, target, payload, body)` for a change with an audit part, an event body,
 * or both, without the hashes in `leaveOut` (the words journal_unindexed_names lists).
 */
export function journalNames(audit: AuditPart | null, body: unknown, leaveOut: ReadonlySet<number> = NOTHING): number[] {
  const strings = body === null || body === undefined ? [] : documentNames(body);
  if (audit) {
    strings.push(...documentNames(audit.payload));
    // uuid::text is lowercase.
    if (audit.actorUserId !== null) strings.push(audit.actorUserId.toLowerCase());
    if (audit.targetId !== null) strings.push(audit.targetId);
  }
  return [...new Set(strings.map(nameHash))].filter((h) => !leaveOut.has(h)).sort((x, y) => x - y);
}

/**
 * The hashes of the words a writer leaves out of every row's names: what journal_unindexed_names
 * lists when the process starts (migration ServiceWordsUnindexed). Read once: a word listed later
 * is left out from the next start on, and until then kept, which no reader minds. A reader asks the
 * same table whether an id may be missing from the index (src/users/unindexed-names.ts).
 */
export const UNINDEXED_WORDS = Symbol('UNINDEXED_WORDS');

export async function loadUnindexedWords(query: (sql: string) => Promise<{ hash: number }[]>): Promise<ReadonlySet<number>> {
  return new Set((await query('SELECT hash FROM journal_unindexed_names')).map((r) => r.hash));
}

const encoder = new TextEncoder();

/** `svc_name_hash(s)`: the high 32 bits of `hashtextextended(s, 0)`, as a signed integer. */
export function nameHash(s: string): number {
  return hashBytesExtendedHigh(encoder.encode(s));
}

const rot = (x: number, k: number) => (x << k) | (x >>> (32 - k));

/**
 * PostgreSQL's hash_bytes_extended (src/common/hashfn.c, Bob Jenkins' lookup3) with seed 0, on a
 * little-endian server, answering the high word of its result (`b`). The arithmetic is on 32-bit
 * integers (`| 0`), as C's uint32.
 */
function hashBytesExtendedHigh(k: Uint8Array): number {
  let len = k.length;
  let a = (0x9e3779b9 + len + 3923095) | 0;
  let b = a;
  let c = a;
  let i = 0;
  const word = (at: number) => k[at] | (k[at + 1] << 8) | (k[at + 2] << 16) | (k[at + 3] << 24);
  while (len >= 12) {
    a = (a + word(i)) | 0;
    b = (b + word(i + 4)) | 0;
    c = (c + word(i + 8)) | 0;
    a = (a - c) | 0; a ^= rot(c, 4); c = (c + b) | 0;
    b = (b - a) | 0; b ^= rot(a, 6); a = (a + c) | 0;
    c = (c - b) | 0; c ^= rot(b, 8); b = (b + a) | 0;
    a = (a - c) | 0; a ^= rot(c, 16); c = (c + b) | 0;
    b = (b - a) | 0; b ^= rot(a, 19); a = (a + c) | 0;
    c = (c - b) | 0; c ^= rot(b, 4); b = (b + a) | 0;
    i += 12;
    len -= 12;
  }
  // The last 11 bytes; the lowest byte of c is left for the length, which the start added.
  if (len >= 11) c = (c + (k[i + 10] << 24)) | 0;
  if (len >= 10) c = (c + (k[i + 9] << 16)) | 0;
  if (len >= 9) c = (c + (k[i + 8] << 8)) | 0;
  if (len >= 8) b = (b + (k[i + 7] << 24)) | 0;
  if (len >= 7) b = (b + (k[i + 6] << 16)) | 0;
  if (len >= 6) b = (b + (k[i + 5] << 8)) | 0;
  if (len >= 5) b = (b + k[i + 4]) | 0;
  if (len >= 4) a = (a + (k[i + 3] << 24)) | 0;
  if (len >= 3) a = (a + (k[i + 2] << 16)) | 0;
  if (len >= 2) a = (a + (k[i + 1] << 8)) | 0;
  if (len >= 1) a = (a + k[i]) | 0;
  c ^= b; c = (c - rot(b, 14)) | 0;
  a ^= c; a = (a - rot(c, 11)) | 0;
  b ^= a; b = (b - rot(a, 25)) | 0;
  c ^= b; c = (c - rot(b, 16)) | 0;
  a ^= c; a = (a - rot(c, 4)) | 0;
  b ^= a; b = (b - rot(a, 14)) | 0;
  return b | 0;
}

/** Strings that take every path of the hash: the empty one, a whole block and a tail, multi-byte characters. */
const HASH_PROBES = ['', 'guildhall', 'member.joined', 'été 公会 🐉 0123456789'];

/**
 * Refuses to run on a PostgreSQL that hashes names otherwise than nameHash (one on a big-endian
 * machine would): the journal rows this process writes would then hold names the erasure and the
 * export, which hash in SQL, never find.
 */
export async function requireSameNameHash(query: (sql: string, params: unknown[]) => Promise<{ s: string; h: number }[]>): Promise<void> {
  const rows = await query('SELECT s, svc_name_hash(s) AS h FROM unnest($1::text[]) AS s', [HASH_PROBES]);
  const differing = rows.filter((r) => r.h !== nameHash(r.s));
  if (differing.length) {
    throw new Error(
      `PostgreSQL hashes names otherwise than this build (svc_name_hash(${JSON.stringify(differing[0].s)}) is ${differing[0].h}, this build's ${nameHash(differing[0].s)}): ` +
        'a server on a big-endian machine is not supported',
    );
  }
}
