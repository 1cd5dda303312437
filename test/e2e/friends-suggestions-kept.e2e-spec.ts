import { SchedulerRegistry } from '@nestjs/schedule';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { SuggestionsRefresher } from '../../src/friends/suggestions-refresher';
import { SuggestionsRepository } from '../../src/friends/suggestions.repository';
import { AUTO, befriend, block, friendsGame, patchGameConfig, svcId, touch, U, uid, unblock, type FriendsGame } from '../helpers/friends';
import { startTestApp, type TestApp } from '../helpers/test-app';

interface Suggestion {
  svcUserId: string;
  mutualCount: number;
  sampleMutualSvcUserIds: string[];
}

/** The friends graph as the test made it, and SPEC §4 Friends rule 4 computed from it. */
class Model {
  readonly friends = new Map<string, Set<string>>();
  readonly blocks = new Set<string>();
  constructor(readonly ids: Map<string, string>) {}
  private set(u: string): Set<string> {
    if (!this.friends.has(u)) this.friends.set(u, new Set());
    return this.friends.get(u)!;
  }
  befriend(a: string, b: string): void {
    this.set(a).add(b);
    this.set(b).add(a);
  }
  unfriend(a: string, b: string): void {
    this.set(a).delete(b);
    this.set(b).delete(a);
  }
  blocked(a: string, b: string): boolean {
    return this.blocks.has(`${a}>${b}`) || this.blocks.has(`${b}>${a}`);
  }
  suggestions(u: string, minMutuals = 2, limit = 20): Suggestion[] {
    const mine = this.set(u);
    const mutuals = new Map<string, string[]>();
    for (const f of mine) {
      for (const c of this.set(f)) {
        if (c === u || mine.has(c) || this.blocked(u, c)) continue;
        mutuals.set(c, [...(mutuals.get(c) ?? []), f]);
      }
    }
    const byId = (a: string, b: string) => (this.ids.get(a)! < this.ids.get(b)! ? -1 : 1);
    return [...mutuals]
      .filter(([, ms]) => ms.length >= minMutuals)
      .sort(([a, am], [b, bm]) => bm.length - am.length || byId(a, b))
      .slice(0, limit)
      .map(([c, ms]) => ({ svcUserId: c, mutualCount: ms.length, sampleMutualSvcUserIds: [...ms].sort(byId).slice(0, 5) }));
  }
}

/**
 * Friend suggestions kept per user and game (migration 1765500000000): a kept list is served only
 * while its version counters hold, so every answer is the one SPEC §4 rule 4 gives for the graph
 * as it is now, whoever computed the list and when.
 */
describe('friend suggestions kept per user', () => {
  let t: TestApp;
  let repo: SuggestionsRepository;
  beforeAll(async () => {
    t = await startTestApp();
    repo = t.app.get(SuggestionsRepository);
    // The refresher runs when a test says so, not on its timer.
    t.app.get(SchedulerRegistry).deleteInterval('friend-suggestions');
  });
  afterAll(() => t.close());

  const suggest = async (g: FriendsGame, userId: string): Promise<Suggestion[]> => {
    const r = await g.get(`${U(userId)}/friends/suggestions`);
    if (r.status !== 200) throw new Error(`suggestions: ${r.status} ${r.text}`);
    return r.body.items;
  };
  const keptRow = async (g: FriendsGame, userId: string) =>
    (
      await t.db.query<{ items: { id: string; n: number; s: string[] }[]; own_version: string }>(
        'SELECT items, own_version FROM friend_suggestions WHERE game_id = $1 AND user_id = $2',
        [g.gameId, await svcId(t, g.gameId, userId)],
      )
    )[0];
  /** u with friends m0..m3; c0 friends with all four, c1 with the first two. */
  async function neighbourhood(g: FriendsGame) {
    const [u, c0, c1] = [uid('u'), uid('c0'), uid('c1')];
    const ms = [0, 1, 2, 3].map((i) => uid(`m${i}`));
    for (const m of ms) await befriend(g, u, m);
    for (const m of ms) await befriend(g, c0, m);
    for (const m of ms.slice(0, 2)) await befriend(g, c1, m);
    return { u, c0, c1, ms };
  }

  it('a read keeps the list, and the next read is served from it while nothing near the user changed', async () => {
    const g = await friendsGame(t, AUTO);
    const { u, c0, c1, ms } = await neighbourhood(g);
    const first = await suggest(g, u);
    expect(first.map((s) => [s.svcUserId, s.mutualCount])).toEqual([
      [c0, 4],
      [c1, 2],
    ]);
    // Marking the kept list shows which reads it serves.
    await t.db.query(`UPDATE friend_suggestions SET named = jsonb_set(named::jsonb, '{0,mutualCount}', '99')::json WHERE game_id = $1`, [g.gameId]);
    expect((await suggest(g, u))[0].mutualCount).toBe(99);
    // Friendships two hops away or more leave it standing.
    const [x, y] = [uid('x'), uid('y')];
    await befriend(g, x, y);
    await befriend(g, c0, x);
    expect((await suggest(g, u))[0].mutualCount).toBe(99);
    // A friend's new friendship is one hop away: the list is computed again.
    await befriend(g, ms[3], c1);
    expect((await suggest(g, u)).map((s) => [s.svcUserId, s.mutualCount])).toEqual([
      [c0, 4],
      [c1, 3],
    ]);
  });

  it('answers as the graph is, through any sequence of friendships, removals, blocks and unblocks', async () => {
    const g = await friendsGame(t, AUTO);
    const users = Array.from({ length: 9 }, (_, i) => uid(`r${i}`));
    for (const u of users) await touch(g, u);
    const model = new Model(new Map(await Promise.all(users.map(async (u) => [u, await svcId(t, g.gameId, u)] as [string, string]))));
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let step = 0; step < 60; step++) {
      const a = users[rnd(users.length)];
      const b = users[rnd(users.length)];
      if (a === b) continue;
      const op = rnd(10);
      if (model.blocks.has(`${a}>${b}`) && op < 3) {
        expect((await unblock(g, a, b)).status).toBe(204);
        model.blocks.delete(`${a}>${b}`);
      } else if (op < 1 && !model.blocks.has(`${a}>${b}`)) {
        expect((await block(g, a, b)).status).toBe(201);
        model.blocks.add(`${a}>${b}`);
        model.unfriend(a, b);
      } else if (model.friends.get(a)?.has(b) && op < 4) {
        expect((await g.del(`${U(a)}/friends/${encodeURIComponent(b)}`)).status).toBe(204);
        model.unfriend(a, b);
      } else if (!model.friends.get(a)?.has(b) && !model.blocked(a, b)) {
        await befriend(g, a, b);
        model.befriend(a, b);
      }
      for (const u of [a, b, users[rnd(users.length)]]) expect(await suggest(g, u)).toEqual(model.suggestions(u));
    }
  });

  it('a list computed in a snapshot older than a friendship change is never served after it', async () => {
    const g = await friendsGame(t, AUTO);
    const { u, c1, ms } = await neighbourhood(g);
    const stale = new Client({ connectionString: t.db.url });
    await stale.connect();
    try {
      await stale.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await stale.query('SELECT 1');
      await befriend(g, ms[2], c1);
      // The old snapshot computes and keeps c1 with 2 mutual friends, after the change committed.
      const ds = { driver: { master: stale } } as unknown as DataSource;
      const old = await repo.compute(ds, { callingGameId: g.gameId, readGameIds: [g.gameId], userId: await svcId(t, g.gameId, u), minMutuals: 2, limit: 20 });
      expect(old.find((s) => s.svcUserId === c1)?.mutualCount).toBe(2);
      await stale.query('COMMIT');
    } finally {
      await stale.end();
    }
    expect((await suggest(g, u)).find((s) => s.svcUserId === c1)?.mutualCount).toBe(3);
    expect((await keptRow(g, u)).items.find((i) => i.n === 3)).toBeDefined();
  });

  it('a change of minMutuals is answered at once, not from the kept list', async () => {
    const g = await friendsGame(t, AUTO);
    const { u, c0, c1 } = await neighbourhood(g);
    const lone = uid('lone');
    const [m] = (await t.db.query<{ other_external_id: string }>(
      `SELECT other_external_id FROM user_relationships WHERE game_id = $1 AND user_external_id = $2 AND type = 'friend' ORDER BY other_external_id LIMIT 1`,
      [g.gameId, u],
    ));
    await befriend(g, m.other_external_id, lone);
    expect((await suggest(g, u)).map((s) => s.svcUserId)).toEqual([c0, c1]);
    await patchGameConfig(t, g.gameId, { config: { friends: { discovery: { minMutuals: 1 } } } });
    expect((await suggest(g, u)).map((s) => s.svcUserId)).toEqual([c0, c1, lone]);
    await patchGameConfig(t, g.gameId, { config: { friends: { discovery: { minMutuals: 3 } } } });
    expect((await suggest(g, u)).map((s) => s.svcUserId)).toEqual([c0]);
  });

  it('a friendship change raises two counters, whatever the size of the neighbourhood', async () => {
    const g = await friendsGame(t, AUTO);
    const { u, c0 } = await neighbourhood(g);
    const before = await t.db.query<{ user_id: string; version: string }>('SELECT user_id, version FROM friend_versions');
    const other = uid('o');
    await befriend(g, u, other);
    const after = await t.db.query<{ user_id: string; version: string }>('SELECT user_id, version FROM friend_versions');
    const was = new Map(before.map((r) => [r.user_id, r.version]));
    const moved = after.filter((r) => was.get(r.user_id) !== r.version).map((r) => r.user_id);
    expect(moved.sort()).toEqual([await svcId(t, g.gameId, u), await svcId(t, g.gameId, other)].sort());
    expect(moved).not.toContain(await svcId(t, g.gameId, c0));
  });

  it('the refresher recomputes the stale lists around a change before they are read again', async () => {
    const g = await friendsGame(t, AUTO);
    const { u, c1, ms } = await neighbourhood(g);
    await suggest(g, u);
    const refresher = t.app.get(SuggestionsRefresher);
    while ((await refresher.refresh()).claimed > 0);
    await befriend(g, ms[3], c1);
    const q = { callingGameId: g.gameId, readGameIds: [g.gameId], userExternalId: u, minMutuals: 2, limit: 20 };
    expect((await repo.kept(dsOf(t), q)).items).toBeNull();
    let refreshed = 0;
    for (let r = await refresher.refresh(); r.claimed > 0; r = await refresher.refresh()) refreshed += r.refreshed;
    expect(refreshed).toBeGreaterThanOrEqual(1);
    const kept = await repo.kept(dsOf(t), q);
    expect(kept.items?.find((s) => s.svcUserId === c1)?.mutualCount).toBe(3);
  });

  it('instances claim the refresh queue without waiting on each other or taking a user twice', async () => {
    const ids = (await t.db.query<{ id: string }>('SELECT gen_random_uuid() AS id FROM generate_series(1, 100)')).map((r) => r.id);
    await t.db.query('INSERT INTO friend_suggestions_stale (user_id) SELECT unnest($1::uuid[])', [ids]);
    const holder = new Client({ connectionString: t.db.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      const held = await holder.query<{ user_id: string }>(
        `DELETE FROM friend_suggestions_stale WHERE user_id IN (SELECT user_id FROM friend_suggestions_stale LIMIT 60 FOR UPDATE SKIP LOCKED) RETURNING user_id`,
      );
      const other = await repo.claimChanged(dsOf(t), 100);
      expect(held.rows.length + other.length).toBe(100);
      expect(other.filter((id) => held.rows.some((r) => r.user_id === id))).toEqual([]);
      await holder.query('COMMIT');
    } finally {
      await holder.end();
    }
  });

  it("a player's erasure removes every kept list that names them, their counter and their queue place", async () => {
    const g = await friendsGame(t, AUTO);
    const { u, c0, ms } = await neighbourhood(g);
    const eve = ms[0];
    const eveId = await svcId(t, g.gameId, eve);
    await suggest(g, u);
    await suggest(g, c0);
    await suggest(g, eve);
    const naming = async () =>
      (
        await t.db.query<{ row: string }>(
          `SELECT 'friend_suggestions' AS row FROM friend_suggestions x WHERE strpos(x::text, $1) > 0
           UNION ALL SELECT 'friend_versions' FROM friend_versions x WHERE strpos(x::text, $1) > 0
           UNION ALL SELECT 'friend_suggestions_stale' FROM friend_suggestions_stale x WHERE strpos(x::text, $1) > 0`,
          [eveId],
        )
      ).map((r) => r.row);
    expect(await naming()).toContain('friend_suggestions');
    expect((await g.del(U(eve))).status).toBe(200);
    expect(await naming()).toEqual([]);
    expect((await suggest(g, u)).map((s) => [s.svcUserId, s.mutualCount])).toEqual([[c0, 3]]);
  });

  it("a list computed while a player is being erased is removed by the erasure too, never left naming them", async () => {
    const g = await friendsGame(t, AUTO);
    const { u, ms } = await neighbourhood(g);
    const eve = ms[0];
    const eveId = await svcId(t, g.gameId, eve);
    const computing = new Client({ connectionString: t.db.url });
    await computing.connect();
    let erased: Promise<{ status: number }> | undefined;
    try {
      await computing.query('BEGIN');
      const ds = { driver: { master: computing } } as unknown as DataSource;
      const items = await repo.compute(ds, { callingGameId: g.gameId, readGameIds: [g.gameId], userId: await svcId(t, g.gameId, u), minMutuals: 2, limit: 20 });
      expect(items[0].sampleMutualSvcUserIds).toContain(eve);
      erased = g.del(U(eve)).then((r) => r);
      // The erasure waits for the computation's transaction, whose list it could not see yet.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const waiting = await t.db.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'LOCK TABLE friend_suggestions%'`);
      expect(waiting.length).toBe(1);
      await computing.query('COMMIT');
    } finally {
      await computing.end();
    }
    expect((await erased!).status).toBe(200);
    expect(await t.db.query('SELECT 1 FROM friend_suggestions x WHERE strpos(x::text, $1) > 0 OR strpos(x::text, $2) > 0', [eveId, eve])).toEqual([]);
  });

  it("a player's erasure raises each former friend's counter once, in one statement", async () => {
    const g = await friendsGame(t, AUTO);
    const eve = uid('eve');
    const friends = Array.from({ length: 40 }, (_, i) => uid(`f${i}`));
    for (const f of friends) await befriend(g, eve, f);
    const versions = async () =>
      new Map(
        (
          await t.db.query<{ user_id: string; version: string }>(
            'SELECT v.user_id, v.version FROM friend_versions v JOIN user_identities ui ON ui.user_id = v.user_id AND ui.game_id = $1',
            [g.gameId],
          )
        ).map((r) => [r.user_id, Number(r.version)]),
      );
    const before = await versions();
    expect((await g.del(U(eve))).status).toBe(200);
    const after = await versions();
    for (const f of friends) {
      const id = await svcId(t, g.gameId, f);
      expect(after.get(id)).toBe(before.get(id)! + 1);
    }
  });
});

const dsOf = (t: TestApp): DataSource => t.app.get(DataSource);
