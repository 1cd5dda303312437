import { SCAN_BATCH } from '../../src/moderation/names-scan.service';
import { journalEvents } from '../helpers/journal';
import { asAdmin, authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * EXTENSIONS X10 `names/scan`: the groups made before a word was blocked are found afterwards, each
 * once, with a report the service files (no reporter); reserved words and deleted groups are left
 * alone; two scans at once file one report per group; a closed report lets the next scan file again.
 */
describe('X10: names/scan', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function game(label: string) {
    const { gameId, auth } = await authedGame(t, label);
    const group = async (name: string, tags: string[] = []) => {
      const r = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name, tags, visibility: 'public' });
      if (r.status !== 201) throw new Error(`${r.status} ${r.text}`);
      return r.body.id as string;
    };
    const policy = (names: { blocked?: string[]; reserved?: string[] }) =>
      t.http.patch(`/v1/admin/games/${gameId}/config`).set(asAdmin).send({ config: { moderation: { names } } }).expect(200);
    const scan = () => t.http.post(`/v1/admin/games/${gameId}/names/scan`).set(asAdmin);
    const serviceReports = () =>
      t.db.query<{ subject_id: string; message: string; status: string }>(
        `SELECT subject_id, message, status FROM reports WHERE game_id = $1 AND reporter_id IS NULL ORDER BY created_at, id`,
        [gameId],
      );
    return { gameId, auth, group, policy, scan, serviceReports };
  }

  it('files an offensive_name report on each group a blocked word now matches, by name or tag, and on no other', async () => {
    const g = await game('scan');
    const clean = await g.group('Clean Crew', ['friendly']);
    const byName = await g.group('The Sc4m Lords');
    const byTag = await g.group('Quiet Ones', ['chill', 's_c_a_m']);
    const reserved = await g.group('Admin Fans');
    const deleted = await g.group('Scam Central');
    await t.http.delete(`/v1/groups/${deleted}`).set(g.auth).expect(200);
    await g.policy({ blocked: ['scam'], reserved: ['admin'] });

    const r = await g.scan();
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ scanned: 4, flagged: 2 });
    const filed = await g.serviceReports();
    expect(filed.map((x) => x.subject_id).sort()).toEqual([byName, byTag].sort());
    expect(filed.find((x) => x.subject_id === byName)?.message).toContain('name "The Sc4m Lords" holds scam');
    expect(filed.find((x) => x.subject_id === byTag)?.message).toContain('tag "s_c_a_m" holds scam');
    expect([clean, reserved, deleted].some((id) => filed.some((x) => x.subject_id === id))).toBe(false);

    // As the operators see them: reports without a reporter, in the queue, each with its event.
    const list = await t.http.get(`/v1/admin/games/${g.gameId}/reports`).set(asAdmin).query({ category: 'offensive_name' });
    expect(list.body.items).toHaveLength(2);
    expect(list.body.items.every((x: { reporterUserId: string | null; status: string }) => x.reporterUserId === null && x.status === 'open')).toBe(true);
    const queue = await t.http.get(`/v1/admin/games/${g.gameId}/reports/subjects`).set(asAdmin).query({ status: 'open' });
    expect(queue.body.items.map((s: { subject: { id: string } }) => s.subject.id).sort()).toEqual([byName, byTag].sort());
    const events = await t.db.query(`SELECT 1 FROM ${journalEvents()} WHERE game_id = $1 AND type = 'report.created'`, [g.gameId]);
    expect(events).toHaveLength(2);
    const [op] = await t.db.query<{ details: Record<string, number> }>(`SELECT details FROM operator_audit WHERE game_id = $1 AND action = 'names.scanned'`, [g.gameId]);
    expect(op.details).toEqual({ scanned: 4, flagged: 2, filed: 2 });
  });

  it('scanning again files nothing new while the report is open; once it is closed the next scan files again', async () => {
    const g = await game('rescan');
    const bad = await g.group('Scam Squad');
    await g.policy({ blocked: ['scam'] });
    expect((await g.scan()).body).toEqual({ scanned: 1, flagged: 1 });
    expect((await g.scan()).body).toEqual({ scanned: 1, flagged: 1 });
    expect(await g.serviceReports()).toHaveLength(1);
    const [report] = (await t.http.get(`/v1/admin/games/${g.gameId}/reports`).set(asAdmin)).body.items;
    await t.http.post(`/v1/admin/games/${g.gameId}/reports/${report.id}/resolve`).set(asAdmin).send({ resolution: 'dismissed' }).expect(200);
    await g.scan().expect(200);
    expect((await g.serviceReports()).map((x) => [x.subject_id, x.status])).toEqual([
      [bad, 'resolved'],
      [bad, 'open'],
    ]);
  });

  it('two scans at once file one report per group', async () => {
    const g = await game('parallel scans');
    for (let i = 0; i < 5; i++) await g.group(`Scam ${i}`);
    await g.policy({ blocked: ['scam'] });
    const answers = await Promise.all([g.scan(), g.scan(), g.scan()]);
    expect(answers.map((a) => a.body)).toEqual(Array(3).fill({ scanned: 5, flagged: 5 }));
    expect(await g.serviceReports()).toHaveLength(5);
  });

  it(`walks every group of a game larger than a batch (${SCAN_BATCH})`, async () => {
    const g = await game('large scan');
    const seed = await g.group('Seed');
    // Copies of one row, as many as a batch and a few: the walk must cross the batch's edge.
    await t.db.query(
      `INSERT INTO groups SELECT (jsonb_populate_record(NULL::groups, to_jsonb(g) || jsonb_build_object('id', gen_random_uuid(), 'name', CASE WHEN i % 500 = 0 THEN 'Scam ' ELSE 'Copy ' END || i))).*
       FROM groups g, generate_series(1, $2::int) i WHERE g.id = $1`,
      [seed, SCAN_BATCH + 4],
    );
    await g.policy({ blocked: ['scam'] });
    const r = await g.scan();
    expect(r.body).toEqual({ scanned: SCAN_BATCH + 5, flagged: Math.floor((SCAN_BATCH + 4) / 500) });
  });

  it('needs a moderator: a viewer is refused', async () => {
    const g = await game('scan roles');
    const viewer = await t.http.post('/v1/admin/operators').set(asAdmin).send({ name: 'Scan viewer', role: 'viewer' });
    const r = await t.http.post(`/v1/admin/games/${g.gameId}/names/scan`).set({ authorization: `Bearer ${viewer.body.token}` });
    expect(r.status).toBe(403);
  });
});
