import type { EntityManager } from 'typeorm';
import { mayBeUnindexed } from '../../src/users/unindexed-names';
import { friendsClient, type FriendsGame } from '../helpers/friends';
import { identityOf } from '../helpers/identities';
import { newGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Ids the journal's names may lack (migration UnindexedNames, docs/design/write-path.md step 5c):
 * a word listed in journal_unindexed_names may be left out of a row's names by a writer, so an
 * erasure or an export of a player with that id finds their changes without the index of names,
 * and finds all of them. The rows are written as such a writer would leave them (the word's hash
 * taken out of their names), or by the service's writers, which leave the service's own words out
 * (migration ServiceWordsUnindexed) for a player whose id is one of them.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
});
afterAll(() => t.close());

const enc = encodeURIComponent;
const manager = { query: (sql: string, params?: unknown[]) => t.db.query(sql, params) } as unknown as EntityManager;

/** A game where `player` created a group, and joined, left and joined again another. */
async function history(player: string): Promise<FriendsGame> {
  const { gameId, key } = await newGame(t, 'unindexed names');
  const g = friendsClient(t, gameId, key);
  const own = await g.post('/v1/groups', { kind: 'guild', name: 'own', visibility: 'public', creatorUserId: player });
  const other = await g.post('/v1/groups', { kind: 'guild', name: 'other', visibility: 'public', creatorUserId: 'bob' });
  expect([own.status, other.status]).toEqual([201, 201]);
  for (const step of ['join', 'leave', 'join']) expect((await g.post(`/v1/groups/${other.body.id}/${step}`, { userId: player })).status).toBeLessThan(300);
  return g;
}

/** Takes the hashes of `words` out of the game's journal rows, as a writer leaving them out writes them, and lists the words. */
async function leaveOut(gameId: string, words: string[]): Promise<void> {
  await t.db.query(`INSERT INTO journal_unindexed_names (name, hash) SELECT w, svc_name_hash(w) FROM unnest($1::text[]) AS w ON CONFLICT DO NOTHING`, [words]);
  await t.db.query(
    `UPDATE journal SET names = ARRAY(SELECT n FROM unnest(names) AS n WHERE n <> ALL (SELECT svc_name_hash(w) FROM unnest($2::text[]) AS w) ORDER BY n)
     WHERE game_id = $1`,
    [gameId, words],
  );
}

/** The game's journal rows whose audit part or event names `id` (as the erasure decides it), and those whose names hold its hash. */
async function naming(gameId: string, id: string): Promise<{ named: number; hashed: number }> {
  const [row] = await t.db.query<{ named: number; hashed: number }>(
    `SELECT count(*) FILTER (WHERE (j.action IS NOT NULL AND svc_audit_names(j.actor_user_id, j.target_id, j.payload) @> jsonb_build_array($2::text))
                               OR (j.body IS NOT NULL AND svc_names(j.body) @> jsonb_build_array($2::text)))::int AS named,
            count(*) FILTER (WHERE j.names && ARRAY[svc_name_hash($2)])::int AS hashed
     FROM journal j WHERE j.game_id = $1`,
    [gameId, id],
  );
  return row;
}

/** The ids of the audit entries and events the player's export holds; each export records itself, which is left aside. */
async function exported(g: FriendsGame, player: string): Promise<{ audit: string[]; events: string[] }> {
  const r = await g.get(`/v1/users/${enc(player)}/export`);
  expect(r.status).toBe(200);
  const body = r.body as { audit: { id: string; action: string }[]; events: { id: string; type: string }[] };
  return { audit: body.audit.filter((a) => a.action !== 'user.exported').map((a) => a.id), events: body.events.filter((e) => e.type !== 'user.exported').map((e) => e.id) };
}

// The words a test lists (the service's own, which the migration lists, have a from_seq).
afterEach(() => t.db.query('DELETE FROM journal_unindexed_names WHERE from_seq IS NULL'));

describe('an id the names may lack', () => {
  it('is one listed in journal_unindexed_names, by either of the ids asked about', async () => {
    expect(await mayBeUnindexed(manager, ['kestrel', '0190a0e2-0000-7000-8000-000000000001'])).toBe(false);
    await t.db.query(`INSERT INTO journal_unindexed_names (name, hash) VALUES ('kestrel', svc_name_hash('kestrel'))`);
    expect(await mayBeUnindexed(manager, ['kestrel'])).toBe(true);
    expect(await mayBeUnindexed(manager, ['0190a0e2-0000-7000-8000-000000000001', 'kestrel'])).toBe(true);
    expect(await mayBeUnindexed(manager, ['Kestrel'])).toBe(false);
  });

  it('is erased from every change that names it, though no row holds its hash', async () => {
    const g = await history('kestrel');
    const svcUserId = (await identityOf(t, g.gameId, 'kestrel'))!;
    const before = await naming(g.gameId, 'kestrel');
    expect(before.named).toBeGreaterThanOrEqual(5);
    await leaveOut(g.gameId, ['kestrel']);
    expect(await naming(g.gameId, 'kestrel')).toEqual({ named: before.named, hashed: 0 });

    expect((await g.del(`/v1/users/${enc('kestrel')}`)).status).toBe(200);
    // Only the erasure's own event names the player (as the feed says it does); nothing else of the journal.
    const left = await t.db.query<{ row: string }>(
      `SELECT j::text AS row FROM journal j WHERE j.game_id = $1 AND (strpos(j::text, 'kestrel') > 0 OR strpos(j::text, $2) > 0) AND j.type IS DISTINCT FROM 'user.erased'`,
      [g.gameId, svcUserId],
    );
    expect(left).toEqual([]);
  });

  it('is exported with every change that names it, as when its hash is in the names', async () => {
    const g = await history('wren');
    const doc = () => exported(g, 'wren');
    const indexed = await doc();
    expect(indexed.audit.length).toBeGreaterThanOrEqual(4);
    expect(indexed.events.length).toBeGreaterThanOrEqual(4);
    await leaveOut(g.gameId, ['wren']);
    expect((await naming(g.gameId, 'wren')).hashed).toBe(0);
    expect(await doc()).toEqual(indexed);
  });

  it('a service word, which the writers leave out: every change naming a player so called is found, erased and exported', async () => {
    const word = 'status';
    expect((await t.db.query(`SELECT count(*)::int AS n FROM journal_unindexed_names WHERE name = $1 AND from_seq IS NOT NULL`, [word]))[0]).toEqual({ n: 1 });

    // A string value equal to the player's id, where the player is named (a key `status` is not).
    const valued = async (gameId: string) =>
      (await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM journal
         WHERE game_id = $1 AND type IS DISTINCT FROM 'user.erased' AND action IS DISTINCT FROM 'user.erased'
           AND (target_id = $2 OR (coalesce(payload::text, '') || coalesce(body::text, '')) ~ ('(: |\\[|, )"' || $2 || '"(?!:)'))`,
        [gameId, word],
      ))[0].n;

    const erased = await history(word);
    const svcUserId = (await identityOf(t, erased.gameId, word))!;
    const before = await naming(erased.gameId, word);
    expect(before.hashed).toBe(0);
    expect(await valued(erased.gameId)).toBeGreaterThanOrEqual(5);
    expect((await erased.del(`/v1/users/${enc(word)}`)).status).toBe(200);
    expect(await valued(erased.gameId)).toBe(0);
    const left = await t.db.query(
      `SELECT id FROM journal WHERE game_id = $1 AND type IS DISTINCT FROM 'user.erased'
         AND strpos(coalesce(payload::text, '') || coalesce(body::text, '') || coalesce(actor_user_id::text, '') || coalesce(target_id, ''), $2) > 0`,
      [erased.gameId, svcUserId],
    );
    expect(left).toEqual([]);

    const g = await history(word);
    const doc = () => exported(g, word);
    const unindexed = await doc();
    expect(unindexed.audit.length).toBeGreaterThanOrEqual(4);
    expect(unindexed.events.length).toBeGreaterThanOrEqual(4);
    // The same history with its whole names, the word no longer listed: the index finds the same.
    const [listed] = await t.db.query<{ hash: number; from_seq: string }>(`DELETE FROM journal_unindexed_names WHERE name = $1 RETURNING hash, from_seq`, [word]);
    try {
      await t.db.query(`UPDATE journal SET names = svc_journal_names(actor_user_id, target_id, payload, body) WHERE game_id = $1`, [g.gameId]);
      expect((await naming(g.gameId, word)).hashed).toBeGreaterThanOrEqual(5);
      expect(await doc()).toEqual(unindexed);
    } finally {
      await t.db.query(`INSERT INTO journal_unindexed_names (name, hash, from_seq) VALUES ($1, $2, $3)`, [word, listed.hash, listed.from_seq]);
    }
  });
});
