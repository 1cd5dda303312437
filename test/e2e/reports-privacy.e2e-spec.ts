import { expectError } from '../helpers/errors';
import { postGroup } from '../helpers/groups';
import { journalAudit } from '../helpers/journal';
import { asAdmin, authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * EXTENSIONS X10 reports beyond their routes: game config moderation.hideGroupAtReporters and the
 * group search it hides groups from (X5), and a player's export and erasure (X7).
 */

type Auth = Record<string, string>;

describe('reports: search, export and erasure', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
  });
  afterAll(() => t.close());

  const report = (auth: Auth, reporterUserId: string, type: string, id: string, category = 'offensive_name') =>
    t.http.post('/v1/reports').set(auth).send({ reporterUserId, subject: { type, id }, category });
  const config = (gameId: string, moderation: object) => t.http.patch(`/v1/admin/games/${gameId}/config`).set(asAdmin).send({ config: { moderation } });
  const searchIds = async (auth: Auth, query: Record<string, string> = {}) => {
    const r = await t.http.get('/v1/groups/search').set(auth).query(query);
    expect(r.status).toBe(200);
    return (r.body.items as { id: string }[]).map((g) => g.id);
  };

  it('moderation.hideGroupAtReporters: null by default, 1-1000, null resets it; a bad value is 400 naming the key', async () => {
    const { gameId } = await authedGame(t, 'hide config');
    const get = async () => (await t.http.get(`/v1/admin/games/${gameId}/config`).set(asAdmin)).body.config.moderation.hideGroupAtReporters;
    expect(await get()).toBeNull();
    expect((await config(gameId, { hideGroupAtReporters: 3 })).status).toBe(200);
    expect(await get()).toBe(3);
    for (const bad of [0, 1001, 2.5, '3']) {
      const r = await config(gameId, { hideGroupAtReporters: bad });
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toContain('config.moderation.hideGroupAtReporters');
    }
    expect((await config(gameId, { hideGroupAtReporters: null })).status).toBe(200);
    expect(await get()).toBeNull();
  });

  it('search leaves out a group while that many distinct reporters hold open reports on it, in every sort', async () => {
    const g = await authedGame(t, 'hide search');
    const loud = await postGroup(t, g.auth, { kind: 'guild', name: 'Rude Knights', visibility: 'public' });
    const calm = await postGroup(t, g.auth, { kind: 'guild', name: 'Calm Knights', visibility: 'public' });
    for (const reporter of ['r1', 'r2']) expect((await report(g.auth, reporter, 'group', loud.id)).status).toBe(201);
    const sorts: Record<string, string>[] = [{}, { sort: 'newest' }, { sort: 'name' }, { sort: 'members' }, { q: 'knights' }];
    for (const q of sorts) expect((await searchIds(g.auth, q)).sort()).toEqual([loud.id, calm.id].sort());

    expect((await config(g.gameId, { hideGroupAtReporters: 2 })).status).toBe(200);
    for (const q of sorts) expect(await searchIds(g.auth, q)).toEqual([calm.id]);
    expect((await t.http.get(`/v1/admin/games/${g.gameId}/groups/search`).set(asAdmin)).body.items.map((x: { id: string }) => x.id)).toEqual([calm.id]);
    // Still a group: read by id, joined, listed outside search.
    expect((await t.http.get(`/v1/groups/${loud.id}`).set(g.auth)).status).toBe(200);

    // One report closed: one reporter left, under the threshold, found again.
    const open = await t.http.get(`/v1/admin/games/${g.gameId}/reports`).query({ status: 'open', subjectType: 'group' }).set(asAdmin);
    expect((await t.http.post(`/v1/admin/games/${g.gameId}/reports/${open.body.items[0].id}/resolve`).set(asAdmin).send({ resolution: 'dismissed' })).status).toBe(200);
    expect((await searchIds(g.auth)).sort()).toEqual([loud.id, calm.id].sort());
    // The same reporter again on its open report changes nothing; a second distinct one hides it again.
    expect((await report(g.auth, open.body.items[1].reporterUserId, 'group', loud.id)).status).toBe(200);
    expect((await searchIds(g.auth)).sort()).toEqual([loud.id, calm.id].sort());
    expect((await report(g.auth, 'r3', 'group', loud.id)).status).toBe(201);
    expect(await searchIds(g.auth)).toEqual([calm.id]);
    // Unset: every group is found.
    expect((await config(g.gameId, { hideGroupAtReporters: null })).status).toBe(200);
    expect((await searchIds(g.auth)).sort()).toEqual([loud.id, calm.id].sort());
  });

  it("a player's export holds the reports they filed and those about them, without who filed the latter", async () => {
    const g = await authedGame(t, 'report export');
    const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Reported', visibility: 'public' });
    const filed = (await report(g.auth, 'ann', 'user', 'ben', 'cheating')).body;
    const onGroup = (await report(g.auth, 'ann', 'group', group.id)).body;
    const about = (await report(g.auth, 'cat', 'user', 'ann', 'harassment')).body;
    const doc = (await t.http.get('/v1/users/ann/export').set(g.auth).buffer(true).parse((res, cb) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => cb(null, JSON.parse(text)));
    })).body as { reports: { filed: unknown[]; about: unknown[] } };
    expect(doc.reports).toEqual({ filed: [filed, onGroup], about: [{ ...about, reporterUserId: null }] });
  });

  it('an erasure keeps the reports: the erased id, as reporter or subject, becomes the pseudonym; the tally follows', async () => {
    const g = await authedGame(t, 'report erasure');
    const mine = (await report(g.auth, 'eve', 'user', 'fay', 'spam')).body;
    const aboutEve = (await report(g.auth, 'gus', 'user', 'eve', 'cheating')).body;
    expect((await report(g.auth, 'hal', 'user', 'eve', 'harassment')).status).toBe(201);
    const erased = await t.http.delete('/v1/users/eve').set(g.auth);
    expect(erased.status).toBe(200);
    const pseudonym = erased.body.pseudonym as string;

    const list = (await t.http.get(`/v1/admin/games/${g.gameId}/reports`).set(asAdmin)).body.items as { id: string; reporterUserId: string; subject: { id: string } }[];
    expect(list.find((r) => r.id === mine.id)).toMatchObject({ reporterUserId: pseudonym, subject: { type: 'user', id: 'fay' }, status: 'open' });
    expect(list.find((r) => r.id === aboutEve.id)).toMatchObject({ reporterUserId: 'gus', subject: { type: 'user', id: pseudonym } });
    expect(JSON.stringify(list)).not.toContain('"eve"');
    const queue = (await t.http.get(`/v1/admin/games/${g.gameId}/reports/subjects`).set(asAdmin)).body.items;
    expect(queue).toEqual([
      expect.objectContaining({ subject: { type: 'user', id: pseudonym }, reporters: 2, openReports: 2 }),
      expect.objectContaining({ subject: { type: 'user', id: 'fay' }, reporters: 1 }),
    ]);
    const audit = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${journalAudit()} WHERE game_id = $1 AND action = 'report.created' AND (payload::text LIKE '%"eve"%' OR target_id = 'eve')`,
      [g.gameId],
    );
    expect(audit).toEqual([{ n: 0 }]);
    // The same id later is a new player with no past: no open report holds it, so it reports afresh.
    const again = await report(g.auth, 'eve', 'user', 'fay', 'spam');
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(mine.id);
  });

  it('reports racing an erasure of their reporter or subject land wholly before it (pseudonymised) or after it (a new player)', async () => {
    const g = await authedGame(t, 'report erasure race');
    for (let round = 0; round < 4; round++) {
      const writes = [
        ...Array.from({ length: 6 }, (_, i) => report(g.auth, 'eve', 'user', `target-${round}-${i}`, 'spam')),
        ...Array.from({ length: 6 }, (_, i) => report(g.auth, `witness-${round}-${i}`, 'user', 'eve', 'cheating')),
      ];
      const [erased, ...answers] = await Promise.all([t.http.delete('/v1/users/eve').set(g.auth), ...writes]);
      expect(erased.status).toBe(200);
      expect(answers.every((a) => a.status === 201)).toBe(true);
      // A report still naming eve was filed after the erasure, on a new player the game knows again.
      const [row] = await t.db.query<{ named: number; known: number }>(
        `SELECT (SELECT count(*)::int FROM reports WHERE game_id = $1 AND (reporter_id = 'eve' OR subject_id = 'eve')) AS named,
                (SELECT count(*)::int FROM user_identities WHERE game_id = $1 AND external_id = 'eve') AS known`,
        [g.gameId],
      );
      expect(row.named === 0 || row.known === 1).toBe(true);
      const [{ n }] = await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM reports WHERE game_id = $1 AND (reporter_id = $2 OR subject_id = $2)`,
        [g.gameId, erased.body.pseudonym],
      );
      expect(n + row.named).toBeGreaterThan(0);
    }
  });
});
