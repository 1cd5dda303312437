import { randomUUID } from 'node:crypto';
import { insertAuditSql, journalAudit } from '../helpers/journal';
import { asAdmin, newGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * GET /v1/admin/audit and the stats' 24-hour count read each game's own range of the audit log and
 * merge them (SPEC §4 Admin surface): entries of three games with interleaved times come back
 * globally newest first, ties by id, the limit applied to the merge; the count covers every game.
 * This file owns its database, so both are checked against every entry there is.
 */
describe('admin audit across games: the merge of per-game ranges', () => {
  let t: TestApp;
  const entries: { id: string; createdAt: string }[] = [];
  let inLast24h = 0;

  beforeAll(async () => {
    t = await startTestApp();
    const [a, b, c] = [await newGame(t, 'merge a'), await newGame(t, 'merge b'), await newGame(t, 'merge c')];
    const gone = randomUUID();
    await t.db.query(
      `INSERT INTO groups (id, game_id, kind, name, visibility, soft_deleted_at) VALUES ($1, $2, 'guild', 'Gone', 'public', now())`,
      [gone, b.gameId],
    );
    const base = Date.now() - 3_600_000;
    const at = (ms: number) => new Date(base + ms).toISOString();
    const rows: [string, string | null, string][] = [
      // game a alone holds the six newest entries of the window, the first three at one instant: a merge
      // taking fewer per game, or cutting a game's range by another order, loses some.
      ...[0, 0, 0, 1, 2, 3].map((s): [string, null, string] => [a.gameId, null, at(-s * 1000)]),
      // then the three games one after the other, a second apart, one in a soft-deleted group
      ...Array.from({ length: 12 }, (_, i): [string, string | null, string] => {
        const game = [b, c, a][i % 3].gameId;
        return [game, game === b.gameId && i === 3 ? gone : null, at(-(6 + i) * 1000)];
      }),
      // the same instant in every game: ordered by id across games
      ...[a, b, c, a, b, c].map((g): [string, null, string] => [g.gameId, null, at(-20_000)]),
    ];
    inLast24h = rows.length;
    // Outside the window on both sides, still listed by the audit: a future one first, an old one last.
    const hours = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString();
    rows.push([b.gameId, null, hours(1)], [c.gameId, null, hours(-25)]);
    for (const [gameId, groupId, createdAt] of rows) {
      const id = randomUUID();
      await t.db.query(insertAuditSql(['id', 'game_id', 'group_id', 'action', 'created_at'], `VALUES ($1, $2, $3, 'member.updated', $4)`), [
        id,
        gameId,
        groupId,
        createdAt,
      ]);
      entries.push({ id, createdAt });
    }
    entries.sort((x, y) => (x.createdAt === y.createdAt ? (x.id < y.id ? 1 : -1) : x.createdAt < y.createdAt ? 1 : -1));
  });
  afterAll(() => t.close());

  it('lists every game newest first, ties by id, and cuts the merge at the limit', async () => {
    for (const limit of [1, 2, 3, 5, 7, 10, 20, 100]) {
      const r = await t.http.get(`/v1/admin/audit?limit=${limit}`).set(asAdmin);
      expect(r.status).toBe(200);
      const items: { id: string; createdAt: string }[] = r.body.items;
      expect(items.map((i) => ({ id: i.id, createdAt: i.createdAt }))).toEqual(entries.slice(0, limit));
    }
  });

  it('counts the last 24 hours of every game', async () => {
    const r = await t.http.get('/v1/admin/stats').set(asAdmin);
    expect(r.status).toBe(200);
    expect(r.body.totalAuditEntriesLast24h).toBe(inLast24h);
  });

  it('both read the journal, its audit entries only', async () => {
    const [{ game_id }] = await t.db.query<{ game_id: string }>(`SELECT game_id FROM ${journalAudit()} WHERE id = $1`, [entries[1].id]);
    // the newest entry in the window, gone from the journal: no reader answers it
    await t.db.query('DELETE FROM journal WHERE id = $1', [entries[1].id]);
    // the newest row in the window, an event only: never an audit entry
    await t.db.query(
      `INSERT INTO journal (id, game_id, created_at, type, body, names)
       VALUES (gen_random_uuid(), $1, now() - interval '1 minute', 'member.joined', '{}', '{}')`,
      [game_id],
    );
    const r = await t.http.get('/v1/admin/audit?limit=5').set(asAdmin);
    expect(r.body.items.map((i: { id: string }) => i.id)).toEqual([entries[0], ...entries.slice(2, 6)].map((e) => e.id));
    expect((await t.http.get('/v1/admin/stats').set(asAdmin)).body.totalAuditEntriesLast24h).toBe(inLast24h - 1);
  });
});
