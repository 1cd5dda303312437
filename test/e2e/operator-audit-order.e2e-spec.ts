import { asAdmin, newGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * GET /v1/admin/operator-audit is newest first by entry id, numerically: past the ninth entry too
 * (ids are bigints answered as text), and its `before` pages carry on in that order.
 */
describe('GET /v1/admin/operator-audit order', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists 25 entries newest first, and pages by before without a gap or a repeat', async () => {
    const { gameId } = await newGame(t, 'order');
    for (let i = 0; i < 23; i++) expect((await t.http.post(`/v1/admin/games/${gameId}/api-keys`).set(asAdmin)).status).toBe(201);
    const all = await t.http.get('/v1/admin/operator-audit').query({ limit: 100 }).set(asAdmin);
    expect(all.status).toBe(200);
    const ids: string[] = all.body.items.map((e: { id: string }) => e.id);
    expect(ids.length).toBe(25);
    expect(ids.map(Number)).toEqual([...ids.map(Number)].sort((a, b) => b - a));
    expect(all.body.items.at(-1).action).toBe('game.created');

    const paged: string[] = [];
    let before: string | undefined;
    do {
      const page = await t.http.get('/v1/admin/operator-audit').query({ limit: 7, ...(before ? { before } : {}) }).set(asAdmin);
      expect(page.status).toBe(200);
      paged.push(...page.body.items.map((e: { id: string }) => e.id));
      before = page.body.nextCursor ?? undefined;
    } while (before);
    expect(paged).toEqual(ids);
  });
});
