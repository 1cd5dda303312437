import { randomUUID } from 'node:crypto';
import { expectError } from '../helpers/errors';
import { postGroup } from '../helpers/groups';
import { journalAudit, journalEvents } from '../helpers/journal';
import { ISO_MS, UUID } from '../helpers/shapes';
import { asAdmin, authedGame, bearer, startTestApp, type TestApp } from '../helpers/test-app';

/** EXTENSIONS X10 Reports: filing, the hourly limit, the operators' list, queue and resolution. */

type Auth = Record<string, string>;
interface Report {
  id: string;
  reporterUserId: string | null;
  subject: { type: string; id: string };
  category: string;
  message: string | null;
  status: string;
  createdAt: string;
  resolvedAt: string | null;
  resolution: string | null;
  resolutionNote: string | null;
}

describe('reports', () => {
  let t: TestApp;
  let gameId: string;
  let auth: Auth;
  let moderator: Auth;
  let viewer: Auth;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
    ({ gameId, auth } = await authedGame(t, 'reports'));
    const made = async (name: string, role: string) => bearer((await t.http.post('/v1/admin/operators').set(asAdmin).send({ name, role })).body.token);
    moderator = await made('Report moderator', 'moderator');
    viewer = await made('Report viewer', 'viewer');
  });
  afterAll(() => t.close());

  const file = (body: object, as: Auth = auth) => t.http.post('/v1/reports').set(as).send(body);
  const A = () => `/v1/admin/games/${gameId}/reports`;

  it('files a report: 201 with the Report, the audit entry and the event report.created', async () => {
    const r = await file({ reporterUserId: 'alice', subject: { type: 'user', id: 'mallory' }, category: 'cheating', message: 'wallhack' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(UUID),
      reporterUserId: 'alice',
      subject: { type: 'user', id: 'mallory' },
      category: 'cheating',
      message: 'wallhack',
      status: 'open',
      createdAt: expect.stringMatching(ISO_MS),
      resolvedAt: null,
      resolution: null,
      resolutionNote: null,
    });
    const audit = await t.db.query<{ action: string; group_id: string | null; target_id: string; payload: Record<string, unknown> }>(
      `SELECT action, group_id, target_id, payload FROM ${journalAudit()} WHERE game_id = $1 AND action = 'report.created'`,
      [gameId],
    );
    expect(audit).toEqual([
      { action: 'report.created', group_id: null, target_id: 'mallory', payload: { reportId: r.body.id, reporterUserId: 'alice', subject: { type: 'user', id: 'mallory' }, category: 'cheating' } },
    ]);
    const events = await t.db.query<{ body: Record<string, unknown> }>(`SELECT body FROM ${journalEvents()} WHERE game_id = $1 AND body->>'type' = 'report.created'`, [gameId]);
    expect(events.map((e) => e.body)).toEqual([expect.objectContaining({ type: 'report.created', gameId, report: r.body })]);
    expect(events[0].body).not.toHaveProperty('groupId');
  });

  it('a second open report of the same reporter on the same subject answers 200 with the first; closed, a new one is filed', async () => {
    const first = await file({ reporterUserId: 'bob', subject: { type: 'user', id: 'mallory' }, category: 'spam' });
    expect(first.status).toBe(201);
    const again = await file({ reporterUserId: 'bob', subject: { type: 'user', id: 'mallory' }, category: 'harassment', message: 'again' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await t.http.post(`${A()}/${first.body.id}/resolve`).set(moderator).send({ resolution: 'dismissed' })).status).toBe(200);
    const later = await file({ reporterUserId: 'bob', subject: { type: 'user', id: 'mallory' }, category: 'harassment' });
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
  });

  it('the same report sent at once by many requests files one report (reports_open_once)', async () => {
    const body = { reporterUserId: 'carol', subject: { type: 'user', id: 'mallory' }, category: 'other' };
    const answers = await Promise.all(Array.from({ length: 8 }, () => file(body)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
  });

  it('refuses bad input with 400 naming the field, and reporting oneself', async () => {
    const cases: [object, string][] = [
      [{ subject: { type: 'user', id: 'x' }, category: 'spam' }, 'reporterUserId'],
      [{ reporterUserId: 'a', category: 'spam' }, 'subject'],
      [{ reporterUserId: 'a', subject: { type: 'guild', id: 'x' }, category: 'spam' }, 'subject.type'],
      [{ reporterUserId: 'a', subject: { type: 'user', id: '' }, category: 'spam' }, 'subject.id'],
      [{ reporterUserId: 'a', subject: { type: 'user', id: 'x', extra: 1 }, category: 'spam' }, 'extra'],
      [{ reporterUserId: 'a', subject: { type: 'user', id: 'x' }, category: 'rude' }, 'category'],
      [{ reporterUserId: 'a', subject: { type: 'user', id: 'x' }, category: 'spam', message: 'm'.repeat(1001) }, 'message'],
      [{ reporterUserId: 'a', subject: { type: 'user', id: 'a' }, category: 'spam' }, 'subject.id'],
    ];
    for (const [body, field] of cases) {
      const r = await file(body);
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toContain(field);
    }
    expect((await file({ reporterUserId: 'a', subject: { type: 'user', id: 'x' }, category: 'spam', message: 'm'.repeat(1000) })).status).toBe(201);
  });

  it('a group subject must be a live group of the game: 404 otherwise', async () => {
    const other = await authedGame(t, 'reports elsewhere');
    const theirs = await postGroup(t, other.auth, { kind: 'guild', name: 'Theirs', visibility: 'public' });
    const gone = await postGroup(t, auth, { kind: 'guild', name: 'Gone', visibility: 'public' });
    expect((await t.http.delete(`/v1/groups/${gone.id}`).set(auth)).status).toBe(200);
    for (const id of [theirs.id, gone.id, randomUUID(), 'not-a-uuid']) {
      expectError(await file({ reporterUserId: 'dan', subject: { type: 'group', id } , category: 'offensive_name' }), 404, 'not_found');
    }
    const ours = await postGroup(t, auth, { kind: 'guild', name: 'Ours', visibility: 'secret' });
    const r = await file({ reporterUserId: 'dan', subject: { type: 'group', id: ours.id }, category: 'offensive_name' });
    expect(r.status).toBe(201);
    expect(r.body.subject).toEqual({ type: 'group', id: ours.id });
  });

  it('at most 20 reports a reporter per hour: then 429 rate_limited with Retry-After until the oldest leaves the hour', async () => {
    for (let i = 0; i < 20; i++) expect((await file({ reporterUserId: 'eager', subject: { type: 'user', id: `target-${i}` }, category: 'spam' })).status).toBe(201);
    const r = await file({ reporterUserId: 'eager', subject: { type: 'user', id: 'target-20' }, category: 'spam' });
    expectError(r, 429, 'rate_limited');
    const wait = Number(r.headers['retry-after']);
    expect(Number.isInteger(wait) && wait > 3500 && wait <= 3600).toBe(true);
    // The open one on the same subject is still answered; nothing was written for the refused one.
    expect((await file({ reporterUserId: 'eager', subject: { type: 'user', id: 'target-0' }, category: 'spam' })).status).toBe(200);
    expect(await t.db.query(`SELECT 1 FROM reports WHERE game_id = $1 AND subject_id = 'target-20'`, [gameId])).toEqual([]);
    // Aged past the hour, the oldest frees a slot; the wait is counted from the oldest left.
    await t.db.query(`UPDATE reports SET created_at = now() - interval '61 minutes' WHERE game_id = $1 AND subject_id = 'target-0'`, [gameId]);
    await t.db.query(`UPDATE reports SET created_at = now() - interval '50 minutes' WHERE game_id = $1 AND subject_id = 'target-1'`, [gameId]);
    expect((await file({ reporterUserId: 'eager', subject: { type: 'user', id: 'target-20' }, category: 'spam' })).status).toBe(201);
    const next = await file({ reporterUserId: 'eager', subject: { type: 'user', id: 'target-21' }, category: 'spam' });
    expectError(next, 429, 'rate_limited');
    expect(Number(next.headers['retry-after'])).toBeGreaterThan(540);
    expect(Number(next.headers['retry-after'])).toBeLessThanOrEqual(600);
  });

  it('40 reports at once by one reporter on distinct subjects: exactly 20 filed, the rest 429 (settled in the database)', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => file({ reporterUserId: 'burst', subject: { type: 'user', id: `burst-target-${i}` }, category: 'cheating' })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM reports WHERE game_id = $1 AND reporter_id = 'burst'`, [gameId]);
    expect(n).toBe(20);
  });

  describe('operators', () => {
    let g: { gameId: string; auth: Auth };
    const R = () => `/v1/admin/games/${g.gameId}/reports`;
    const filed: Report[] = [];
    let guild: string;

    beforeAll(async () => {
      g = await authedGame(t, 'report queue');
      guild = (await postGroup(t, g.auth, { kind: 'guild', name: 'Loud', visibility: 'public' })).id;
      const reports: [string, string, string, string][] = [
        ['p1', 'user', 'villain', 'cheating'],
        ['p2', 'user', 'villain', 'harassment'],
        ['p3', 'user', 'villain', 'cheating'],
        ['p1', 'group', guild, 'offensive_name'],
        ['p2', 'group', guild, 'spam'],
        ['p1', 'user', 'pest', 'spam'],
      ];
      for (const [reporterUserId, type, id, category] of reports) {
        const r = await t.http.post('/v1/reports').set(g.auth).send({ reporterUserId, subject: { type, id }, category });
        expect(r.status).toBe(201);
        filed.push(r.body as Report);
      }
    });

    it('lists the reports newest first, filtered, page by page', async () => {
      const all = await t.http.get(R()).set(moderator);
      expect(all.status).toBe(200);
      expect(all.body.items.map((r: Report) => r.id)).toEqual([...filed].reverse().map((r) => r.id));
      const users = await t.http.get(R()).query({ subjectType: 'user', category: 'cheating' }).set(moderator);
      expect(users.body.items.map((r: Report) => r.id)).toEqual([filed[2].id, filed[0].id]);
      // One subject's reports, page by page: what the console shows for a subject of the queue.
      const villain: string[] = [];
      let next: string | undefined;
      do {
        const page = await t.http.get(R()).query({ subjectType: 'user', subjectId: 'villain', limit: '2', ...(next ? { cursor: next } : {}) }).set(moderator);
        villain.push(...page.body.items.map((r: Report) => r.id));
        next = page.body.nextCursor ?? undefined;
      } while (next);
      expect(villain).toEqual([filed[2].id, filed[1].id, filed[0].id]);
      const ofGuild = await t.http.get(R()).query({ subjectType: 'group', subjectId: guild }).set(moderator);
      expect(ofGuild.body.items.map((r: Report) => r.id)).toEqual([filed[4].id, filed[3].id]);
      const untyped = await t.http.get(R()).query({ subjectId: 'villain' }).set(moderator);
      expectError(untyped, 400, 'bad_request');
      expect(untyped.body.message).toContain('subjectId needs subjectType');
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await t.http.get(R()).query({ limit: '4', status: 'open', ...(cursor ? { cursor } : {}) }).set(moderator);
        expect(page.status).toBe(200);
        seen.push(...page.body.items.map((r: Report) => r.id));
        cursor = page.body.nextCursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual([...filed].reverse().map((r) => r.id));
      for (const query of [{ status: 'closed' }, { subjectType: 'clan' }, { category: 'rude' }, { limit: '0' }]) {
        const r = await t.http.get(R()).query(query).set(moderator);
        expectError(r, 400, 'bad_request');
        expect(r.body.message).toContain(Object.keys(query)[0]);
      }
    });

    it('the queue: subjects with open reports, most reporters first, with their tally; pages keep their order', async () => {
      const r = await t.http.get(`${R()}/subjects`).query({ status: 'open' }).set(moderator);
      expect(r.status).toBe(200);
      expect(r.body.items[0]).toEqual({
        subject: { type: 'user', id: 'villain' },
        openReports: 3,
        reporters: 3,
        categories: ['cheating', 'harassment'],
        firstAt: filed[0].createdAt,
        lastAt: filed[2].createdAt,
      });
      expect(r.body.items[1]).toMatchObject({ subject: { type: 'group', id: guild }, reporters: 2, categories: ['offensive_name', 'spam'] });
      expect(r.body.items[2]).toMatchObject({ subject: { type: 'user', id: 'pest' }, reporters: 1 });
      expect(r.body.nextCursor).toBeNull();
      const first = await t.http.get(`${R()}/subjects`).query({ limit: '2' }).set(moderator);
      const second = await t.http.get(`${R()}/subjects`).query({ limit: '2', cursor: first.body.nextCursor }).set(moderator);
      expect([...first.body.items, ...second.body.items]).toEqual(r.body.items);
      expect(second.body.nextCursor).toBeNull();
      expectError(await t.http.get(`${R()}/subjects`).query({ status: 'resolved' }).set(moderator), 400, 'bad_request');
    });

    it('resolves a report: 200, the tally follows, both audits and the event; a closed one is 409 report_closed', async () => {
      const target = filed[1];
      const r = await t.http.post(`${R()}/${target.id}/resolve`).set(moderator).send({ resolution: 'actioned', note: 'muted for a week' });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ ...target, status: 'resolved', resolvedAt: expect.stringMatching(ISO_MS), resolution: 'actioned', resolutionNote: 'muted for a week' });
      expectError(await t.http.post(`${R()}/${target.id}/resolve`).set(moderator).send({ resolution: 'dismissed' }), 409, 'report_closed');
      expectError(await t.http.post(`${R()}/${randomUUID()}/resolve`).set(moderator).send({ resolution: 'dismissed' }), 404, 'not_found');
      expectError(await t.http.post(`/v1/admin/games/${gameId}/reports/${target.id}/resolve`).set(moderator).send({ resolution: 'dismissed' }), 404, 'not_found');
      const bad = await t.http.post(`${R()}/${filed[0].id}/resolve`).set(moderator).send({ resolution: 'ignored' });
      expectError(bad, 400, 'bad_request');
      expect(bad.body.message).toContain('resolution');

      // Two subjects now tie at two reporters: their order among themselves is the tally rows' ids.
      const queue = await t.http.get(`${R()}/subjects`).set(moderator);
      expect(queue.body.items.slice(0, 2).map((i: { reporters: number }) => i.reporters)).toEqual([2, 2]);
      expect(queue.body.items.find((i: { subject: { id: string } }) => i.subject.id === 'villain')).toEqual({
        subject: { type: 'user', id: 'villain' },
        openReports: 2,
        reporters: 2,
        categories: ['cheating'],
        firstAt: filed[0].createdAt,
        lastAt: filed[2].createdAt,
      });
      const audit = await t.db.query<{ target_id: string; payload: object }>(`SELECT target_id, payload FROM ${journalAudit()} WHERE game_id = $1 AND action = 'report.resolved'`, [g.gameId]);
      expect(audit).toEqual([{ target_id: 'villain', payload: { reportId: target.id, resolution: 'actioned', note: 'muted for a week' } }]);
      const events = await t.db.query<{ body: Record<string, unknown> }>(`SELECT body FROM ${journalEvents()} WHERE game_id = $1 AND body->>'type' = 'report.resolved'`, [g.gameId]);
      expect(events.map((e) => e.body)).toEqual([expect.objectContaining({ gameId: g.gameId, report: r.body })]);
      const ops = await t.db.query<{ operator_name: string; target_id: string; details: Record<string, unknown> }>(
        `SELECT operator_name, target_id, details FROM operator_audit WHERE game_id = $1 AND action = 'report.resolved'`,
        [g.gameId],
      );
      expect(ops).toEqual([{ operator_name: 'Report moderator', target_id: target.id, details: { subject: { type: 'user', id: 'villain' }, resolution: 'actioned', note: 'muted for a week' } }]);
    });

    it('two operators resolving one report at once: one 200, one 409', async () => {
      const answers = await Promise.all([1, 2].map(() => t.http.post(`${R()}/${filed[5].id}/resolve`).set(moderator).send({ resolution: 'dismissed' })));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      const queue = await t.http.get(`${R()}/subjects`).set(moderator);
      expect(queue.body.items.map((i: { subject: { id: string } }) => i.subject.id)).not.toContain('pest');
    });

    it('a viewer may not read or resolve reports; an unknown game is 404', async () => {
      for (const r of [await t.http.get(R()).set(viewer), await t.http.get(`${R()}/subjects`).set(viewer), await t.http.post(`${R()}/${filed[0].id}/resolve`).set(viewer).send({ resolution: 'dismissed' })]) {
        expectError(r, 403, 'permission_denied');
      }
      expectError(await t.http.get(`/v1/admin/games/${randomUUID()}/reports`).set(moderator), 404, 'not_found');
    });
  });

  it('concurrent reports on one subject by many reporters leave an exact tally', async () => {
    const g = await authedGame(t, 'report tally race');
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => t.http.post('/v1/reports').set(g.auth).send({ reporterUserId: `crowd-${i}`, subject: { type: 'user', id: 'target' }, category: i % 2 ? 'spam' : 'cheating' })),
    );
    expect(answers.every((a) => a.status === 201)).toBe(true);
    const queue = await t.http.get(`/v1/admin/games/${g.gameId}/reports/subjects`).set(moderator);
    expect(queue.body.items).toEqual([expect.objectContaining({ subject: { type: 'user', id: 'target' }, openReports: 24, reporters: 24, categories: ['cheating', 'spam'] })]);
  });
});
