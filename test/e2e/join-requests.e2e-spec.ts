import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { expectError } from '../helpers/errors';
import { joinOk, postGroup } from '../helpers/groups';
import { identityOf } from '../helpers/identities';
import { seqUid as uid } from '../helpers/ids';
import { journalAudit, journalEvents } from '../helpers/journal';
import { EVENT_ID, ISO_MS, UUID, type AuditDbRow } from '../helpers/shapes';
import { openSse, type SseStream } from '../helpers/sse';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * EXTENSIONS X3: join requests for invite-only groups: every answer and error code, the member an
 * approval makes, audit and events, the races the database settles, and the requests other changes
 * close (a join by another way in, a ban, the group's deletion).
 */

interface JoinRequest {
  id: string;
  groupId: string;
  userId: string;
  message: string | null;
  status: string;
  createdAt: string;
  decidedAt: string | null;
  decidedByUserId: string | null;
}

let t: TestApp;
let base: string;
let gameId: string;
let auth: Record<string, string>;
let otherAuth: Record<string, string>;
const streams: SseStream[] = [];

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
  await t.app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  ({ gameId, auth } = await authedGame(t, 'join requests'));
  ({ auth: otherAuth } = await authedGame(t, 'join requests other'));
});
afterEach(() => {
  for (const s of streams.splice(0)) s.close();
});
afterAll(() => t.close());

type Auth = Record<string, string>;
const closed = async (visibility = 'invite-only', as: Auth = auth) => (await postGroup(t, as, { kind: 'guild', name: 'G', visibility })).id;
const request = (groupId: string, body: unknown, as: Auth = auth) =>
  t.http.post(`/v1/groups/${groupId}/join-requests`).set(as).send(body as object);
async function requested(groupId: string, userId: string, message?: string, as: Auth = auth): Promise<JoinRequest> {
  const r = await request(groupId, message === undefined ? { userId } : { userId, message }, as);
  if (r.status !== 201) throw new Error(`join request: ${r.status} ${r.text}`);
  return r.body;
}
const decide = (id: string, verb: 'approve' | 'decline' | 'cancel', body?: unknown, as: Auth = auth) => {
  const req = t.http.post(`/v1/join-requests/${id}/${verb}`).set(as);
  return body === undefined ? req : req.send(body as object);
};
const listGroup = (groupId: string, query = '', as: Auth = auth) => t.http.get(`/v1/groups/${groupId}/join-requests${query}`).set(as);
const listUser = (userId: string, query = '', as: Auth = auth) => t.http.get(`/v1/users/${encodeURIComponent(userId)}/join-requests${query}`).set(as);
const audits = (groupId: string, action: string) =>
  t.db.query<AuditDbRow>(`SELECT * FROM ${journalAudit()} WHERE group_id = $1 AND action = $2 ORDER BY created_at, id`, [groupId, action]);
const events = (groupId: string, type: string) =>
  t.db.query<{ body: Record<string, unknown> }>(`SELECT body FROM ${journalEvents()} WHERE group_id = $1 AND type = $2 ORDER BY era, xid, seq`, [groupId, type]);
const row = async (id: string) => (await t.db.query<{ status: string }>('SELECT status FROM join_requests WHERE id = $1', [id]))[0];
const memberOf = async (groupId: string, userId: string) =>
  (await t.db.query<{ id: string; status: string }>('SELECT id, status FROM members WHERE group_id = $1 AND external_user_id = $2', [groupId, userId]))[0];
const svc = async (userId: string) => (await identityOf(t, gameId, userId))!;

describe('POST /v1/groups/:id/join-requests', () => {
  it('201 pending JoinRequest; identity anchored; audit join_request.created; event join_request.created', async () => {
    const g = await closed();
    const u = uid('asker');
    const r = await request(g, { userId: u, message: 'let me in, I heal' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(UUID),
      groupId: g,
      userId: u,
      message: 'let me in, I heal',
      status: 'pending',
      createdAt: expect.stringMatching(ISO_MS),
      decidedAt: null,
      decidedByUserId: null,
    });
    const [a] = await audits(g, 'join_request.created');
    expect(a).toMatchObject({ actor_user_id: await svc(u), target_id: u, payload: { joinRequestId: r.body.id, message: 'let me in, I heal' } });
    const [e] = await events(g, 'join_request.created');
    expect(e.body).toEqual({
      id: expect.stringMatching(EVENT_ID),
      type: 'join_request.created',
      gameId,
      groupId: g,
      occurredAt: expect.stringMatching(ISO_MS),
      joinRequest: r.body,
    });
  });

  it('message: omitted or null is null; 500 characters are fine; 501 or a non-string is 400 naming message', async () => {
    const g = await closed();
    expect((await requested(g, uid())).message).toBeNull();
    expect((await request(g, { userId: uid(), message: null })).body.message).toBeNull();
    expect((await request(g, { userId: uid(), message: 'm'.repeat(500) })).status).toBe(201);
    for (const message of ['m'.repeat(501), 42, { text: 'hi' }]) {
      const r = await request(g, { userId: uid(), message });
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toMatch(/message/);
    }
  });

  it('a missing, empty or non-string userId is 400 naming userId', async () => {
    const g = await closed();
    for (const body of [{}, { userId: '' }, { userId: 7 }]) {
      const r = await request(g, body);
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toMatch(/userId/);
    }
  });

  it('a public group is 400 (join it directly); a secret, missing, other-game or deleted group is 404; no key is 401', async () => {
    const u = uid();
    expectError(await request(await closed('public'), { userId: u }), 400, 'bad_request');
    expectError(await request(await closed('secret'), { userId: u }), 404, 'not_found');
    expectError(await request(randomUUID(), { userId: u }), 404, 'not_found');
    expectError(await request('not-a-uuid', { userId: u }), 404, 'not_found');
    expectError(await request(await closed('invite-only', otherAuth), { userId: u }), 404, 'not_found');
    const gone = await closed();
    await t.http.delete(`/v1/groups/${gone}`).set(auth).expect(200);
    expectError(await request(gone, { userId: u }), 404, 'not_found');
    expectError(await t.http.post(`/v1/groups/${await closed()}/join-requests`).send({ userId: u }), 401, 'invalid_api_key');
    expect(await identityOf(t, gameId, u)).toBeNull();
  });

  it('an active member is 409 already_member; a member who left may ask again', async () => {
    const g = await closed('public');
    const u = uid();
    await joinOk(t, auth, g, u);
    await t.http.patch(`/v1/groups/${g}`).set(auth).send({ visibility: 'invite-only' }).expect(200);
    expectError(await request(g, { userId: u }), 409, 'already_member');
    await t.http.post(`/v1/groups/${g}/leave`).set(auth).send({ userId: u }).expect(200);
    expect((await request(g, { userId: u })).status).toBe(201);
  });

  it('a user banned game-wide or from the group is 403 banned; a lapsed ban does not count', async () => {
    const g = await closed();
    const gameBanned = uid('gb');
    const groupBanned = uid('grb');
    const lapsed = uid('lapsed');
    await t.http.post('/v1/bans').set(auth).send({ userId: gameBanned }).expect(201);
    await t.http.post(`/v1/groups/${g}/bans`).set(auth).send({ userId: groupBanned }).expect(201);
    await t.http.post('/v1/bans').set(auth).send({ userId: lapsed, expiresAt: '2020-01-01T00:00:00.000Z' }).expect(201);
    expectError(await request(g, { userId: gameBanned }), 403, 'banned');
    expectError(await request(g, { userId: groupBanned }), 403, 'banned');
    expect((await request(g, { userId: lapsed })).status).toBe(201);
  });

  it('a second pending request is 409 join_request_pending; once cancelled or declined, a new one may be made', async () => {
    const g = await closed();
    const u = uid();
    const first = await requested(g, u);
    expectError(await request(g, { userId: u }), 409, 'join_request_pending');
    await decide(first.id, 'cancel').expect(200);
    const second = await requested(g, u);
    await decide(second.id, 'decline', {}).expect(200);
    const third = await requested(g, u);
    expect(new Set([first.id, second.id, third.id]).size).toBe(3);
    const all = await listGroup(g, '?status=all');
    expect(all.body.items.map((r: JoinRequest) => [r.id, r.status])).toEqual([
      [third.id, 'pending'],
      [second.id, 'declined'],
      [first.id, 'cancelled'],
    ]);
  });

  it('concurrent requests of one user: one 201, the others 409 join_request_pending, one pending row', async () => {
    for (let round = 0; round < 3; round++) {
      const g = await closed();
      const u = uid('racer');
      const rs = await Promise.all(Array.from({ length: 4 }, () => request(g, { userId: u })));
      expect(rs.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
      for (const r of rs.filter((x) => x.status === 409)) expect(r.body.code).toBe('join_request_pending');
      const rows = await t.db.query('SELECT 1 FROM join_requests WHERE group_id = $1', [g]);
      expect(rows).toHaveLength(1);
    }
  });
});

describe('GET /v1/groups/:id/join-requests', () => {
  it('pending ones by default, newest first; status narrows or widens (all); a bad status is 400 naming status', async () => {
    const g = await closed();
    const [a, b, c] = [await requested(g, uid()), await requested(g, uid()), await requested(g, uid())];
    await decide(b.id, 'decline', {}).expect(200);
    const ids = (r: { body: { items: JoinRequest[] } }) => r.body.items.map((x) => x.id);
    expect(ids(await listGroup(g))).toEqual([c.id, a.id]);
    expect(ids(await listGroup(g, '?status=declined'))).toEqual([b.id]);
    expect(ids(await listGroup(g, '?status=approved'))).toEqual([]);
    expect(ids(await listGroup(g, '?status=all'))).toEqual([c.id, b.id, a.id]);
    const bad = await listGroup(g, '?status=open');
    expectError(bad, 400, 'bad_request');
    expect(bad.body.message).toMatch(/status/);
  });

  it('walks pages with limit and cursor without repeats, same-createdAt ties included; a cursor of another list is 400', async () => {
    const g = await closed();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await requested(g, uid()));
    // Same instant for all: the id breaks the tie.
    await t.db.query(`UPDATE join_requests SET created_at = '2026-01-01T00:00:00.123Z' WHERE group_id = $1`, [g]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await listGroup(g, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.items.map((x: JoinRequest) => x.id));
      cursor = r.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(made.map((m) => m.id).sort().reverse());
    const first = await listGroup(g, '?limit=2');
    expectError(await listGroup(g, `?status=all&cursor=${first.body.nextCursor}`), 400, 'bad_request');
    expectError(await listGroup(await closed(), `?cursor=${first.body.nextCursor}`), 400, 'bad_request');
    expectError(await listGroup(g, '?cursor=garbage!'), 400, 'bad_request');
    for (const limit of ['0', '101', 'abc']) expectError(await listGroup(g, `?limit=${limit}`), 400, 'bad_request');
  });

  it('a missing, other-game or deleted group is 404', async () => {
    expectError(await listGroup(randomUUID()), 404, 'not_found');
    expectError(await listGroup(await closed('invite-only', otherAuth)), 404, 'not_found');
    const g = await closed();
    await t.http.delete(`/v1/groups/${g}`).set(auth).expect(200);
    expectError(await listGroup(g), 404, 'not_found');
  });
});

describe('GET /v1/users/:userId/join-requests', () => {
  it("every status by default, newest first across the game's live groups, keyset pages; status narrows; other games stay out", async () => {
    const u = uid('wanderer');
    const [g1, g2, g3, gone] = [await closed(), await closed(), await closed(), await closed()];
    const r1 = await requested(g1, u);
    const r2 = await requested(g2, u);
    const r3 = await requested(g3, u);
    await requested(gone, u);
    await requested(await closed('invite-only', otherAuth), u, undefined, otherAuth);
    await decide(r2.id, 'cancel').expect(200);
    await t.http.delete(`/v1/groups/${gone}`).set(auth).expect(200);
    const all = await listUser(u);
    expect(all.body).toEqual({ items: [r3.id, r2.id, r1.id].map((id) => expect.objectContaining({ id })), nextCursor: null });
    const pending = await listUser(u, '?status=pending');
    expect(pending.body.items.map((x: JoinRequest) => x.id)).toEqual([r3.id, r1.id]);
    const p1 = await listUser(u, '?limit=2');
    expect(p1.body.items.map((x: JoinRequest) => x.id)).toEqual([r3.id, r2.id]);
    const p2 = await listUser(u, `?limit=2&cursor=${p1.body.nextCursor}`);
    expect(p2.body).toEqual({ items: [expect.objectContaining({ id: r1.id })], nextCursor: null });
    expectError(await listUser(uid(), `?cursor=${p1.body.nextCursor}`), 400, 'bad_request');
    expectError(await listUser(u, '?status=nope'), 400, 'bad_request');
  });

  it('a user the game has never seen has an empty page and is not created', async () => {
    const u = uid('ghost');
    expect((await listUser(u)).body).toEqual({ items: [], nextCursor: null });
    expect(await identityOf(t, gameId, u)).toBeNull();
  });
});

describe('POST /v1/join-requests/:id/approve', () => {
  it('200 { joinRequest, member }: the member is made as by an accepted invitation; the actor is recorded', async () => {
    const g = await closed();
    const u = uid('newbie');
    const officer = uid('officer');
    const req = await requested(g, u);
    const r = await decide(req.id, 'approve', { actorUserId: officer });
    expect(r.status).toBe(200);
    expect(r.body.joinRequest).toEqual({ ...req, status: 'approved', decidedAt: expect.stringMatching(ISO_MS), decidedByUserId: officer });
    expect(r.body.member).toEqual({
      id: expect.stringMatching(UUID),
      groupId: g,
      userId: u,
      status: 'active',
      roles: [],
      roleGrants: [],
      metadata: {},
      notesPublic: null,
      notesPrivate: null,
      joinedAt: expect.stringMatching(ISO_MS),
      leftAt: null,
      bannedUntil: null,
      timedOutUntil: null,
    });
    const [joined] = await audits(g, 'member.joined');
    expect(joined).toMatchObject({
      actor_user_id: await svc(u),
      target_id: u,
      payload: { memberId: r.body.member.id, via: 'join-request', joinRequestId: req.id },
    });
    const [approved] = await audits(g, 'join_request.approved');
    expect(approved).toMatchObject({ actor_user_id: await svc(officer), target_id: u, payload: { joinRequestId: req.id, memberId: r.body.member.id } });
    const [e] = await events(g, 'member.joined');
    expect(e.body.member).toEqual(r.body.member);
    const group = await t.http.get(`/v1/groups/${g}`).set(auth);
    expect(group.body.memberCount).toBe(1);
    expect((await t.http.get(`/v1/permissions/check?userId=${u}&groupId=${g}&permission=x`).set(auth)).body.source).toBe('default');
  });

  it('without actorUserId (no body, {}, an empty JSON body or actorUserId null): decidedByUserId null and no audit actor', async () => {
    const g = await closed();
    const bodies = [undefined, {}, '', { actorUserId: null }];
    for (const body of bodies) {
      const req = await requested(g, uid());
      const call = decide(req.id, 'approve');
      const r = body === '' ? await call.set('content-type', 'application/json').send('') : await (body === undefined ? call : call.send(body));
      expect(r.status).toBe(200);
      expect(r.body.joinRequest.decidedByUserId).toBeNull();
    }
    const rows = await audits(g, 'join_request.approved');
    expect(rows.map((a) => a.actor_user_id)).toEqual([null, null, null, null]);
    const declined = await decide((await requested(g, uid())).id, 'decline', { actorUserId: null, reason: null });
    expect(declined.status).toBe(200);
    expect(declined.body.decidedByUserId).toBeNull();
  });

  it('a member who left comes back on the same row (joinedAt kept, leftAt cleared)', async () => {
    const g = await closed();
    const u = uid();
    const first = await decide((await requested(g, u)).id, 'approve', {});
    await t.http.post(`/v1/groups/${g}/leave`).set(auth).send({ userId: u }).expect(200);
    const again = await decide((await requested(g, u)).id, 'approve', {});
    expect(again.body.member).toMatchObject({ id: first.body.member.id, joinedAt: first.body.member.joinedAt, leftAt: null, status: 'active' });
  });

  it('a request no longer pending is 410 join_request_closed, whatever closed it', async () => {
    const g = await closed();
    const approved = await requested(g, uid());
    await decide(approved.id, 'approve', {}).expect(200);
    const declined = await requested(g, uid());
    await decide(declined.id, 'decline', {}).expect(200);
    const cancelled = await requested(g, uid());
    await decide(cancelled.id, 'cancel').expect(200);
    for (const id of [approved.id, declined.id, cancelled.id]) {
      for (const verb of ['approve', 'decline', 'cancel'] as const) expectError(await decide(id, verb, {}), 410, 'join_request_closed');
    }
  });

  it('re-checks bans: a ban that slipped in beside the request is 403 banned, the request stays pending, nobody joins', async () => {
    const g = await closed();
    const u = uid('sneaky');
    const req = await requested(g, u);
    // What a ban committing concurrently with the request can leave behind.
    await t.db.query(`INSERT INTO game_bans (id, game_id, user_id, external_user_id) VALUES ($1, $2, $3, $4)`, [randomUUID(), gameId, await svc(u), u]);
    expectError(await decide(req.id, 'approve', {}), 403, 'banned');
    expect(await row(req.id)).toEqual({ status: 'pending' });
    expect(await memberOf(g, u)).toBeUndefined();
  });

  it('a user already active by then is 409 already_member and the request stays pending', async () => {
    const g = await closed();
    const u = uid();
    const req = await requested(g, u);
    await t.db.query(`INSERT INTO members (id, group_id, user_id, external_user_id, status) VALUES ($1, $2, $3, $4, 'active')`, [
      randomUUID(),
      g,
      await svc(u),
      u,
    ]);
    expectError(await decide(req.id, 'approve', {}), 409, 'already_member');
    expect(await row(req.id)).toEqual({ status: 'pending' });
  });

  it('an unknown or malformed id, another game, or a deleted group is 404; an empty actorUserId is 400; no key is 401', async () => {
    const g = await closed();
    const req = await requested(g, uid());
    expectError(await decide(randomUUID(), 'approve', {}), 404, 'not_found');
    expectError(await decide('nope', 'approve', {}), 404, 'not_found');
    expectError(await decide(req.id, 'approve', {}, otherAuth), 404, 'not_found');
    const bad = await decide(req.id, 'approve', { actorUserId: '' });
    expectError(bad, 400, 'bad_request');
    expect(bad.body.message).toMatch(/actorUserId/);
    expectError(await t.http.post(`/v1/join-requests/${req.id}/approve`), 401, 'invalid_api_key');
    await t.http.delete(`/v1/groups/${g}`).set(auth).expect(200);
    for (const verb of ['approve', 'decline', 'cancel'] as const) expectError(await decide(req.id, verb, {}), 404, 'not_found');
  });

  it('two concurrent approvals: one 200, the other 410 join_request_closed; one member, one member.joined', async () => {
    for (let round = 0; round < 5; round++) {
      const g = await closed();
      const u = uid('twice');
      const req = await requested(g, u);
      const rs = await Promise.all([decide(req.id, 'approve', { actorUserId: 'o1' }), decide(req.id, 'approve', { actorUserId: 'o2' })]);
      expect(rs.map((r) => r.status).sort()).toEqual([200, 410]);
      expect(rs.find((r) => r.status === 410)!.body.code).toBe('join_request_closed');
      expect(await audits(g, 'member.joined')).toHaveLength(1);
      expect(await audits(g, 'join_request.approved')).toHaveLength(1);
      expect(await memberOf(g, u)).toMatchObject({ status: 'active' });
    }
  });

  it('approve against cancel: exactly one wins, and the state is the winner’s', async () => {
    for (let round = 0; round < 5; round++) {
      const g = await closed();
      const u = uid('torn');
      const req = await requested(g, u);
      const [approve, cancel] = await Promise.all([decide(req.id, 'approve', {}), decide(req.id, 'cancel')]);
      expect([approve.status, cancel.status].sort()).toEqual([200, 410]);
      const member = await memberOf(g, u);
      if (approve.status === 200) {
        expect(await row(req.id)).toEqual({ status: 'approved' });
        expect(member).toMatchObject({ status: 'active' });
      } else {
        expect(await row(req.id)).toEqual({ status: 'cancelled' });
        expect(member).toBeUndefined();
      }
    }
  });
});

describe('POST /v1/join-requests/:id/decline and /cancel', () => {
  it('decline: 200 declined with the actor; audit and event carry the reason; nobody joins', async () => {
    const g = await closed();
    const u = uid();
    const req = await requested(g, u);
    const r = await decide(req.id, 'decline', { actorUserId: 'officer-d', reason: 'roster is full' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...req, status: 'declined', decidedAt: expect.stringMatching(ISO_MS), decidedByUserId: 'officer-d' });
    const [a] = await audits(g, 'join_request.declined');
    expect(a).toMatchObject({ actor_user_id: await svc('officer-d'), target_id: u, payload: { joinRequestId: req.id, reason: 'roster is full' } });
    const [e] = await events(g, 'join_request.declined');
    expect(e.body).toMatchObject({ type: 'join_request.declined', groupId: g, joinRequest: r.body, reason: 'roster is full' });
    expect(await memberOf(g, u)).toBeUndefined();
  });

  it('decline: a reason over 500 characters or not a string is 400 naming reason; the request stays pending', async () => {
    const g = await closed();
    const req = await requested(g, uid());
    for (const reason of ['r'.repeat(501), 5]) {
      const r = await decide(req.id, 'decline', { reason });
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toMatch(/reason/);
    }
    expect(await row(req.id)).toEqual({ status: 'pending' });
    expect((await decide(req.id, 'decline', { reason: 'r'.repeat(500) })).status).toBe(200);
  });

  it('cancel: 200 cancelled, decided by the requester; audited with the requester as actor; no event', async () => {
    const g = await closed();
    const u = uid();
    const req = await requested(g, u);
    const r = await decide(req.id, 'cancel');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...req, status: 'cancelled', decidedAt: expect.stringMatching(ISO_MS), decidedByUserId: u });
    const [a] = await audits(g, 'join_request.cancelled');
    expect(a).toMatchObject({ actor_user_id: await svc(u), target_id: u, payload: { joinRequestId: req.id } });
    const types = await t.db.query<{ type: string }>(`SELECT type FROM ${journalEvents()} WHERE group_id = $1 ORDER BY era, xid, seq`, [g]);
    expect(types.map((x) => x.type)).toEqual(['group.created', 'join_request.created']);
  });

  it('the audit log filters by the four join_request actions', async () => {
    const g = await closed();
    const req = await requested(g, uid());
    await decide(req.id, 'cancel').expect(200);
    const r = await t.http.get(`/v1/groups/${g}/audit?actions=join_request.created&actions=join_request.cancelled`).set(auth);
    expect(r.body.items.map((x: { action: string }) => x.action)).toEqual(['join_request.cancelled', 'join_request.created']);
    for (const action of ['join_request.approved', 'join_request.declined']) {
      expect((await t.http.get(`/v1/groups/${g}/audit?actions=${action}`).set(auth)).status).toBe(200);
    }
  });
});

describe('requests closed by other changes', () => {
  it('joining by invitation approves the pending request (nobody decided), audited with closedBecause invitation', async () => {
    const g = await closed();
    const u = uid();
    const req = await requested(g, u);
    const inv = await t.http.post(`/v1/groups/${g}/invitations`).set(auth).send({ targetUserId: u });
    const member = await t.http.post(`/v1/invitations/${inv.body.code}/accept`).set(auth).send({ userId: u });
    expect(member.status).toBe(201);
    const [mine] = (await listUser(u)).body.items;
    expect(mine).toEqual({ ...req, status: 'approved', decidedAt: expect.stringMatching(ISO_MS), decidedByUserId: null });
    const [a] = await audits(g, 'join_request.approved');
    expect(a).toMatchObject({ actor_user_id: null, payload: { joinRequestId: req.id, memberId: member.body.id, closedBecause: 'invitation' } });
    expectError(await decide(req.id, 'approve', {}), 410, 'join_request_closed');
  });

  it('a public join (the group opened meanwhile) approves it too', async () => {
    const g = await closed();
    const u = uid();
    const req = await requested(g, u);
    await t.http.patch(`/v1/groups/${g}`).set(auth).send({ visibility: 'public' }).expect(200);
    await joinOk(t, auth, g, u);
    expect(await row(req.id)).toEqual({ status: 'approved' });
    expect((await audits(g, 'join_request.approved'))[0].payload).toMatchObject({ closedBecause: 'public-join' });
  });

  it("a game-wide ban in force cancels the user's pending requests in every group; a ban set already lapsed closes none", async () => {
    const [g1, g2] = [await closed(), await closed()];
    const u = uid('cheat');
    const other = uid('bystander');
    const [r1, r2, r3] = [await requested(g1, u), await requested(g2, u), await requested(g1, other)];
    await t.http.post('/v1/bans').set(auth).send({ userId: other, expiresAt: '2020-01-01T00:00:00.000Z' }).expect(201);
    expect(await row(r3.id)).toEqual({ status: 'pending' });
    await t.http.post('/v1/bans').set(auth).send({ userId: u, actorUserId: 'mod-1' }).expect(201);
    expect([await row(r1.id), await row(r2.id)]).toEqual([{ status: 'cancelled' }, { status: 'cancelled' }]);
    for (const g of [g1, g2]) {
      const [a] = await audits(g, 'join_request.cancelled');
      expect(a).toMatchObject({ actor_user_id: await svc('mod-1'), target_id: u, payload: { closedBecause: 'banned' } });
    }
  });

  it("a group ban cancels the user's pending request in that group only", async () => {
    const [g1, g2] = [await closed(), await closed()];
    const u = uid();
    const [r1, r2] = [await requested(g1, u), await requested(g2, u)];
    await t.http.post(`/v1/groups/${g1}/bans`).set(auth).send({ userId: u }).expect(201);
    expect([await row(r1.id), await row(r2.id)]).toEqual([{ status: 'cancelled' }, { status: 'pending' }]);
    expectError(await decide(r1.id, 'approve', {}), 410, 'join_request_closed');
  });

  it('deleting the group cancels its pending requests (a restore does not reopen them); a hard delete removes them', async () => {
    const g = await closed();
    const [a, b] = [await requested(g, uid()), await requested(g, uid())];
    await decide(b.id, 'decline', {}).expect(200);
    await t.http.delete(`/v1/groups/${g}`).set(auth).expect(200);
    expect([await row(a.id), await row(b.id)]).toEqual([{ status: 'cancelled' }, { status: 'declined' }]);
    await t.http.post(`/v1/groups/${g}/restore`).set(auth).expect(200);
    expect((await listGroup(g)).body.items).toEqual([]);
    expect((await audits(g, 'join_request.cancelled'))[0].payload).toEqual({ joinRequestId: a.id, closedBecause: 'group-deleted' });
    await t.http.delete(`/v1/groups/${g}?hard=true`).set(auth).expect(204);
    expect(await t.db.query('SELECT 1 FROM join_requests WHERE group_id = $1', [g])).toEqual([]);
  });
});

describe('the two new event types', () => {
  it('reach the group stream, the feed (types filter), and webhooks that filter on them', async () => {
    const wh = await t.http
      .post('/v1/webhooks')
      .set(auth)
      .send({ url: 'https://example.com/join-requests', events: ['join_request.created', 'join_request.declined'] });
    expect(wh.status).toBe(201);
    const g = await closed();
    const stream = await openSse(base, `/v1/events/${g}`, auth);
    streams.push(stream);
    expect(stream.status).toBe(200);
    const req = await requested(g, uid());
    await decide(req.id, 'decline', { reason: 'no' }).expect(200);
    await stream.waitFor(() => stream.frames.filter((f) => f.event?.startsWith('join_request.')).length >= 2, 10_000, 'both frames');
    expect(stream.frames.filter((f) => f.event).map((f) => f.event)).toEqual(['join_request.created', 'join_request.declined']);
    const ids = (await events(g, 'join_request.created')).concat(await events(g, 'join_request.declined')).map((e) => e.body.id as string);
    // Queued for the endpoint (a commit writes no delivery row): its delivery log lists them pending.
    const log = await t.http.get(`/v1/webhooks/${wh.body.id}/deliveries`).set(auth);
    expect(log.status).toBe(200);
    const deliveries = log.body.items as { eventId: string; status: string; attempts: number }[];
    expect(deliveries.map((d) => d.eventId).sort()).toEqual([...ids].sort());
    expect(deliveries.every((d) => d.status === 'pending' && d.attempts === 0)).toBe(true);
    const until = Date.now() + 15_000;
    let feed;
    do feed = await t.http.get('/v1/events/feed?types=join_request.created,join_request.declined&limit=1000').set(auth);
    while (feed.body.items.filter((e: { groupId: string }) => e.groupId === g).length < 2 && Date.now() < until);
    expect(feed.body.items.filter((e: { groupId: string }) => e.groupId === g).map((e: { id: string }) => e.id)).toEqual(ids);
  });
});
