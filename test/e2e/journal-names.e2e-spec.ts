import { journalNames, loadUnindexedWords, nameHash } from '../../src/db/journal-names';
import { SERVICE_WORDS } from '../../migrations/1767700000000-service-words-unindexed';
import { startTestApp, type TestApp } from '../helpers/test-app';

/** A small deterministic generator (mulberry32): a failure names its seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// What ids, names and payloads hold: plain words, uuids, digits (keys JSON.parse would put first),
// quotes, backslashes, escapes, accents, CJK, emoji (surrogate pairs), the empty string. Not U+0000: jsonb refuses it.
// And words of the service's, which writers leave out of the names.
const PIECES = ['player', 'status', 'userId', 'Ωmega', 'été', '公会', '🐉', '"', '\\', '\n', '\t', ' ', '123', '0', '-1', 'null', 'true', '018f3c5e-6d2b-7c11-8a3b-5f2c9e1d4a7b', '', 'x'.repeat(40)];

function text(r: () => number): string {
  let s = '';
  for (let i = Math.floor(r() * 3); i >= 0; i--) s += PIECES[Math.floor(r() * PIECES.length)];
  return s;
}

function value(r: () => number, depth: number): unknown {
  const k = r();
  if (depth > 0 && k < 0.2) return object(r, depth - 1);
  if (depth > 0 && k < 0.3) return Array.from({ length: Math.floor(r() * 4) }, () => (r() < 0.1 ? undefined : value(r, depth - 1)));
  if (k < 0.6) return text(r);
  if (k < 0.7) return Math.floor(r() * 1e6) - 5e5;
  if (k < 0.75) return r() * 1e3;
  if (k < 0.8) return r() < 0.5;
  if (k < 0.85) return null;
  if (k < 0.9) return new Date(Math.floor(r() * 2e12));
  if (k < 0.95) return undefined;
  return () => 1;
}

function object(r: () => number, depth: number): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(r() * 5); i > 0; i--) o[text(r)] = value(r, depth);
  return o;
}

/**
 * The flush writes the names the writer computed (journalNames); the erasure, the history's copy
 * and the triggers compute them from the stored documents (svc_journal_names). Both must give the
 * same array for every change, or the erasure and the export would miss or add rows.
 */
describe('journal names: collected by the writer, as PostgreSQL finds them', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('are the same array as svc_journal_names for 600 random changes with an audit part, an event or both', async () => {
    const cases = Array.from({ length: 600 }, (_, seed) => {
      const r = random(seed + 1);
      const shape = seed % 3; // 0: both parts, 1: the event only, 2: the audit part only
      const payload = shape === 1 ? null : object(r, 3);
      const body = shape === 2 ? null : { id: text(r), type: 'member.joined', ...object(r, 3) };
      const actor = r() < 0.7 ? (r() < 0.5 ? '018f3c5e-6d2b-7c11-8a3b-5f2c9e1d4a7b' : '018F3C5E-6D2B-7C11-8A3B-5F2C9E1D4A7B') : null;
      const target = r() < 0.8 ? text(r) : null;
      return { seed, payload, body, actor, target };
    });
    const unindexed = await loadUnindexedWords((sql) => t.db.query(sql));
    const rows = await t.db.query<{ seed: number; whole: number[]; expected: number[]; gotWhole: number[]; got: number[] }>(
      `SELECT c.seed, n.whole, c.got_whole AS "gotWhole", c.got,
              ARRAY(SELECT h FROM unnest(n.whole) AS h WHERE h NOT IN (SELECT hash FROM journal_unindexed_names) ORDER BY h) AS expected
       FROM jsonb_to_recordset($1::jsonb) AS c(seed int, actor uuid, target text, payload jsonb, body jsonb, got_whole int[], got int[]),
            LATERAL (SELECT svc_journal_names(c.actor, c.target, c.payload, c.body) AS whole) n`,
      [
        JSON.stringify(
          cases.map((c) => {
            const audit = c.payload === null ? null : { actorUserId: c.actor, targetId: c.target, payload: c.payload };
            return { ...c, got_whole: journalNames(audit, c.body), got: journalNames(audit, c.body, unindexed) };
          }),
        ),
      ],
    );
    expect(rows).toHaveLength(cases.length);
    const sorted = (a: number[]) => JSON.stringify([...a].sort((x, y) => x - y));
    expect(rows.filter((row) => sorted(row.whole) !== JSON.stringify(row.gotWhole)).map((row) => row.seed)).toEqual([]);
    expect(rows.filter((row) => JSON.stringify(row.expected) !== JSON.stringify(row.got)).map((row) => row.seed)).toEqual([]);
    // The generator reaches what matters: many names a change, nested keys, and words left out.
    expect(rows.reduce((n, row) => n + row.expected.length, 0) / rows.length).toBeGreaterThan(5);
    expect(rows.filter((row) => row.got.length < row.gotWhole.length).length).toBeGreaterThan(cases.length / 2);
  });

  it('leave out exactly the words the database lists, which are the service\'s, and not a player\'s id', async () => {
    const unindexed = await loadUnindexedWords((sql) => t.db.query(sql));
    expect(unindexed).toEqual(new Set(SERVICE_WORDS.map(nameHash)));
    for (const word of ['status', 'userId', 'member.joined', 'occurredAt', 'invite-only', 'public-join']) expect(unindexed.has(nameHash(word))).toBe(true);
    const names = journalNames({ actorUserId: null, targetId: 'player-1', payload: { status: 'active' } }, { type: 'member.joined', data: { userId: 'player-1' } }, unindexed);
    expect(names).toEqual([nameHash('player-1')]);
  });

  it('hash each string as svc_name_hash does, whatever its length and bytes', async () => {
    const r = random(7);
    const strings = ['', 'a', 'ab', 'abc', 'abcd', '🐉', '公会', ...Array.from({ length: 500 }, () => text(r))];
    // Every length around the hash's 12-byte blocks, in one-, two-, three- and four-byte characters.
    for (const ch of ['x', 'é', '会', '🐉']) for (let n = 1; n <= 30; n++) strings.push(ch.repeat(n));
    const rows = await t.db.query<{ s: string; h: number }>(`SELECT s, svc_name_hash(s) AS h FROM unnest($1::text[]) AS s`, [strings]);
    const differing = rows.filter((row) => nameHash(row.s) !== row.h).map((row) => row.s);
    expect(differing).toEqual([]);
    expect(rows).toHaveLength(strings.length);
  });
});
