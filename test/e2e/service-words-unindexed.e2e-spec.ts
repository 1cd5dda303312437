import { randomUUID } from 'node:crypto';
import type { QueryRunner } from 'typeorm';
import { SERVICE_WORDS, ServiceWordsUnindexed1767700000000 } from '../../migrations/1767700000000-service-words-unindexed';
import { journalNames, nameHash } from '../../src/db/journal-names';
import { onFreshDatabase } from '../helpers/query-runner';

/**
 * ServiceWordsUnindexed1767700000000 (docs/design/write-path.md step 5c): it lists the service's
 * words, with the journal's position then, before any writer leaves them out; its down gives every
 * row written after that position its whole names back before it removes the words, so no reader
 * trusts the index for a row that lacks one.
 */

const GAME = randomUUID();
const payload = { userId: 'kestrel', status: 'active', via: 'public-join' };
const body = { id: 'e1', type: 'member.joined', gameId: GAME, data: { member: { userId: 'kestrel', status: 'active' } } };

/** Inserts a member.joined journal row with the names given, answering its seq. */
async function insert(q: QueryRunner, names: number[]): Promise<string> {
  const [row] = (await q.query(
    `INSERT INTO journal (id, game_id, action, target_id, payload, type, body, names) VALUES ($1, $2, 'member.joined', 'kestrel', $3, 'member.joined', $4, $5) RETURNING seq::text`,
    [randomUUID(), GAME, payload, body, names],
  )) as { seq: string }[];
  return row.seq;
}

const whole = () => journalNames({ actorUserId: null, targetId: 'kestrel', payload }, body);
const listed = async (q: QueryRunner) =>
  (await q.query(`SELECT name, hash, from_seq::text AS "fromSeq" FROM journal_unindexed_names ORDER BY name COLLATE "C"`)) as { name: string; hash: number; fromSeq: string | null }[];

describe('ServiceWordsUnindexed1767700000000', () => {
  it('lists every word with its hash and the journal\'s position; its down restores the names of later rows and unlists them; its up lists them again', async () => {
    await onFreshDatabase(async (q) => {
      const migration = new ServiceWordsUnindexed1767700000000();
      // The fresh database has it applied, on an empty journal: the position is 0.
      const words = await listed(q);
      expect(words.map((w) => w.name)).toEqual([...SERVICE_WORDS].sort());
      expect(words.every((w) => w.hash === nameHash(w.name) && w.fromSeq === '0')).toBe(true);
      expect(words.length).toBeGreaterThan(300);

      await migration.down(q);
      expect(await q.query(`SELECT count(*)::int AS n FROM journal_unindexed_names`)).toEqual([{ n: 0 }]);

      // A row of a release that keeps every name, then the listing, then a row written without the words.
      const before = await insert(q, whole());
      await migration.up(q);
      const since = (await listed(q))[0].fromSeq;
      expect(since).toBe(before);
      const unindexed = new Set(SERVICE_WORDS.map(nameHash));
      const left = journalNames({ actorUserId: null, targetId: 'kestrel', payload }, body, unindexed);
      expect(left.length).toBeLessThan(whole().length);
      expect(left).toContain(nameHash('kestrel'));
      const after = await insert(q, left);
      // An erasure's rewrite (which names in SQL) may have given a later row its whole names already.
      const rewritten = await insert(q, whole());

      await migration.down(q);
      const rows = (await q.query(`SELECT seq::text, names FROM journal ORDER BY seq`)) as { seq: string; names: number[] }[];
      expect(rows).toEqual([
        { seq: before, names: whole() },
        { seq: after, names: whole() },
        { seq: rewritten, names: whole() },
      ]);
      expect(await q.query(`SELECT count(*)::int AS n FROM journal_unindexed_names`)).toEqual([{ n: 0 }]);

      await migration.up(q);
      await migration.up(q);
      const again = await listed(q);
      expect(again).toHaveLength(words.length);
      expect(new Set(again.map((w) => w.fromSeq))).toEqual(new Set([rewritten]));
    });
  });
});
