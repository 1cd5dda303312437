import { createHash, randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { exportQueries, type ExportSection, type ExportSubject } from '../../src/users/user-export.repository';
import { expectError } from '../helpers/errors';
import { joinOk, postGroup } from '../helpers/groups';
import { identityOf } from '../helpers/identities';
import { seqUid as uid } from '../helpers/ids';
import { insertAuditSql, insertEventsSql, journalAudit, journalEvents } from '../helpers/journal';
import { ISO_MS } from '../helpers/shapes';
import { asAdmin, authedGame, bearer, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * EXTENSIONS X7, export: `GET /v1/users/:userId/export` and its admin twin. Every section of the
 * document for a user with a full history, each item as the API's own answer for it; nothing of
 * another user or another game; the errors before the first byte; a large history streamed from
 * one snapshot by index reads, and the connection given back when the client walks away.
 */

jest.setTimeout(240_000);

type Auth = Record<string, string>;
type Json = Record<string, unknown>;

interface ExportDoc {
  exportedAt: string;
  gameId: string;
  userId: string;
  memberships: (Json & { id: string; groupId: string; status: string; group: Json; permissionOverrides: Json[] })[];
  invitations: (Json & { id: string })[];
  joinRequests: (Json & { id: string })[];
  bans: { game: Json[]; groups: Json[]; history: Json[] };
  friends: {
    friends: (Json & { friendSvcUserId: string; tagIds: string[] })[];
    requestsSent: Json[];
    requestsReceived: Json[];
    blocks: Json[];
    tags: (Json & { id: string; name: string; friendSvcUserIds: string[] })[];
    visibility: Json;
  };
  audit: (Json & { id: string; action: string; actorUserId: string | null; targetId: string | null })[];
  events: (Json & { id: string; type: string })[];
}

const enc = encodeURIComponent;
const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
const without = <T extends Json>(o: T, ...keys: string[]) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

let t: TestApp;
let base: string;

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' });
  await t.app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
});
afterAll(() => t?.close());

async function ok(req: PromiseLike<Response>, status = 200): Promise<Response> {
  const r = await req;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text.slice(0, 500)}`);
  return r;
}

const exportOf = (auth: Auth, userId: string) => t.http.get(`/v1/users/${enc(userId)}/export`).set(auth);
const adminExportOf = (gameId: string, userId: string) => t.http.get(`/v1/admin/games/${gameId}/users/${enc(userId)}/export`).set(asAdmin);
async function exportDoc(auth: Auth, userId: string): Promise<ExportDoc> {
  return (await ok(exportOf(auth, userId))).body as ExportDoc;
}

/** The internal id of an external id, which must exist. */
async function svcOf(gameId: string, userId: string): Promise<string> {
  const id = await identityOf(t, gameId, userId);
  if (!id) throw new Error(`no identity for ${userId}`);
  return id;
}

/** A raw GET: the status, headers, how many chunks the body came in, and the body. */
function fetchRaw(path: string, headers: Auth): Promise<{ status: number; headers: IncomingHttpHeaders; chunks: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { agent: false, headers }, (res) => {
      let chunks = 0;
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => {
        chunks++;
        parts.push(d);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, chunks, text: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a user with a full history (every section)', () => {
  let gameId: string;
  let auth: Auth;
  let otherGame: { gameId: string; auth: Auth };
  const me = uid('me');
  const stranger = uid('stranger');
  const officer = uid('officer');
  const [f1, f2, sentTo, requester, blocked, blocker, invitee] = ['f1', 'f2', 'sent', 'requester', 'blocked', 'blocker', 'invitee'].map((p) => uid(p));
  let doc: ExportDoc;
  let meSvc: string;
  const groups: Record<'active' | 'left' | 'banned' | 'deleted' | 'closed', { id: string }> = {} as never;
  let role: { id: string };
  let raid: { id: string };
  let alts: { id: string };
  let otherGameGroup: { id: string };

  const post = (path: string, body?: object, as: Auth = auth) => t.http.post(path).set(as).send(body ?? {});
  async function befriend(a: string, b: string, as: Auth = auth): Promise<void> {
    const sent = await ok(post(`/v1/users/${enc(a)}/friend-requests`, { targetSvcUserId: b }, as), 201);
    await ok(post(`/v1/friend-requests/${sent.body.request.id}/accept`, undefined, as));
  }

  beforeAll(async () => {
    ({ gameId, auth } = await authedGame(t, 'export'));
    otherGame = await authedGame(t, 'export other');
    const group = (name: string, visibility = 'public') => postGroup<{ id: string }>(t, auth, { kind: 'guild', name, visibility, creatorUserId: officer });
    groups.active = await group('Active');
    groups.left = await group('Left');
    groups.banned = await group('Banned');
    groups.deleted = await group('Deleted');
    groups.closed = await group('Closed', 'invite-only');

    // Memberships: active (a role, an override), left, banned from the group, in a group since soft-deleted.
    for (const g of [groups.active, groups.left, groups.banned, groups.deleted]) await joinOk(t, auth, g.id, me);
    await joinOk(t, auth, groups.active.id, stranger);
    await ok(post(`/v1/groups/${groups.left.id}/leave`, { userId: me }));
    role = (await ok(post(`/v1/groups/${groups.active.id}/roles`, { name: 'Quartermaster', priority: 5 }), 201)).body;
    await ok(post(`/v1/groups/${groups.active.id}/members/${enc(me)}/roles/${role.id}`));
    await ok(post(`/v1/groups/${groups.active.id}/members/${enc(me)}/permissions/chat.mute`, { allowed: false }));
    await ok(post(`/v1/groups/${groups.banned.id}/bans`, { userId: me, reason: 'spam', expiresAt: future(30), actorUserId: officer }), 201);
    await ok(t.http.delete(`/v1/groups/${groups.deleted.id}`).set(auth));

    // Invitations both ways, and a join request.
    await ok(post(`/v1/groups/${groups.closed.id}/invitations`, { targetUserId: me, invitedByUserId: officer }), 201);
    await ok(post(`/v1/groups/${groups.active.id}/invitations`, { targetUserId: invitee, invitedByUserId: me }), 201);
    await ok(post(`/v1/groups/${groups.active.id}/invitations`, { targetUserId: stranger, invitedByUserId: officer }), 201);
    await ok(post(`/v1/groups/${groups.closed.id}/join-requests`, { userId: me, message: 'let me in' }), 201);

    // Friends, requests both ways, blocks both ways, tags, visibility.
    await befriend(me, f1);
    await befriend(f2, me);
    await befriend(stranger, f1);
    await ok(post(`/v1/users/${enc(me)}/friend-requests`, { targetSvcUserId: sentTo }), 201);
    await ok(post(`/v1/users/${enc(requester)}/friend-requests`, { targetSvcUserId: me }), 201);
    await ok(post(`/v1/users/${enc(me)}/blocks`, { targetSvcUserId: blocked }), 201);
    await ok(post(`/v1/users/${enc(blocker)}/blocks`, { targetSvcUserId: me }), 201);
    raid = (await ok(post(`/v1/users/${enc(me)}/friend-tags`, { name: 'raid', color: '#ff8800' }), 201)).body;
    alts = (await ok(post(`/v1/users/${enc(me)}/friend-tags`, { name: 'alts' }), 201)).body;
    await ok(post(`/v1/users/${enc(stranger)}/friend-tags`, { name: 'stranger things' }), 201);
    for (const f of [f1, f2]) await ok(t.http.put(`/v1/users/${enc(me)}/friends/${enc(f)}/tags`).set(auth).send({ tagIds: [raid.id] }));
    await ok(t.http.patch(`/v1/users/${enc(me)}/visibility`).set(auth).send({ friendsListVisibility: 'friends-only' }));

    // Game bans and their history: set, lifted, set again.
    await ok(post('/v1/bans', { userId: me, reason: 'cheating', actorUserId: officer }), 201);
    await ok(t.http.delete(`/v1/bans/${enc(me)}`).set(auth), 204);
    await ok(post('/v1/bans', { userId: me, reason: 'again', expiresAt: future(7) }), 201);
    await ok(post('/v1/bans', { userId: stranger, reason: 'not me' }), 201);

    // The same player in another game, linked to the same internal user (DECISIONS §6), with data of their own there.
    meSvc = await svcOf(gameId, me);
    await ok(t.http.put(`/v1/admin/games/${otherGame.gameId}/users/${enc(me)}`).set(asAdmin).send({ svcUserId: meSvc }));
    otherGameGroup = await postGroup<{ id: string }>(t, otherGame.auth, { kind: 'guild', name: 'Elsewhere', visibility: 'public', creatorUserId: me });
    await ok(post(`/v1/users/${enc(me)}/friend-requests`, { targetSvcUserId: f1 }, otherGame.auth), 201);
    await ok(post('/v1/bans', { userId: me, reason: 'other game' }, otherGame.auth), 201);
    expect(await svcOf(otherGame.gameId, me)).toBe(meSvc);

    doc = await exportDoc(auth, me);
  });

  it('names the game, the user and the snapshot time', () => {
    expect(doc.gameId).toBe(gameId);
    expect(doc.userId).toBe(me);
    expect(doc.exportedAt).toMatch(ISO_MS);
    expect(Date.parse(doc.exportedAt)).toBeLessThanOrEqual(Date.now());
    expect(Object.keys(doc)).toEqual(['exportedAt', 'gameId', 'userId', 'memberships', 'invitations', 'joinRequests', 'bans', 'friends', 'audit', 'events', 'notifications', 'reports']);
  });

  it('memberships: every one in any status, the soft-deleted group included, each a Member with its group and overrides', async () => {
    const byGroup = Object.fromEntries(doc.memberships.map((m) => [m.groupId, m]));
    expect(doc.memberships.map((m) => m.groupId)).toEqual([groups.active.id, groups.left.id, groups.banned.id, groups.deleted.id]);
    for (const key of ['active', 'left', 'banned'] as const) {
      const api = (await ok(t.http.get(`/v1/groups/${groups[key].id}/members/${enc(me)}`).set(auth))).body;
      expect(without(byGroup[groups[key].id], 'group', 'permissionOverrides')).toEqual(api);
    }
    expect(byGroup[groups.active.id]).toMatchObject({ status: 'active', roles: [role.id] });
    expect(byGroup[groups.active.id].permissionOverrides).toEqual([{ memberId: byGroup[groups.active.id].id, permission: 'chat.mute', allowed: false, expiresAt: null }]);
    expect(byGroup[groups.left.id]).toMatchObject({ status: 'left', leftAt: expect.stringMatching(ISO_MS), permissionOverrides: [] });
    expect(byGroup[groups.banned.id]).toMatchObject({ status: 'banned', bannedUntil: expect.stringMatching(ISO_MS) });
    expect(byGroup[groups.active.id].group).toEqual({ id: groups.active.id, name: 'Active', kind: 'guild', softDeletedAt: null });
    // No read of the API shows a soft-deleted group's members: the export does.
    expect(byGroup[groups.deleted.id]).toMatchObject({ status: 'active', userId: me });
    expect(byGroup[groups.deleted.id].group).toEqual({ id: groups.deleted.id, name: 'Deleted', kind: 'guild', softDeletedAt: expect.stringMatching(ISO_MS) });
  });

  it('invitations: targeted at the user and sent by them, as the inbox and the group list show them', async () => {
    expect(doc.invitations.map((i) => [i.targetUserId, i.invitedByUserId])).toEqual([
      [me, officer],
      [invitee, me],
    ]);
    const inbox = (await ok(t.http.get(`/v1/users/${enc(me)}/invitations`).set(auth))).body.items;
    expect(doc.invitations[0]).toEqual(inbox[0]);
    const listed = (await ok(t.http.get(`/v1/groups/${groups.active.id}/invitations`).set(auth))).body.items as Json[];
    expect(without(doc.invitations[1], 'group')).toEqual(listed.find((i) => i.id === doc.invitations[1].id));
    expect(doc.invitations[1].group).toEqual({ id: groups.active.id, name: 'Active', kind: 'guild' });
  });

  it("joinRequests: the user's, as GET /v1/users/:userId/join-requests answers them", async () => {
    const api = (await ok(t.http.get(`/v1/users/${enc(me)}/join-requests`).set(auth))).body.items;
    expect(doc.joinRequests).toEqual([...api].reverse());
    // The game ban closed it.
    expect(doc.joinRequests).toEqual([expect.objectContaining({ groupId: groups.closed.id, userId: me, status: 'cancelled', message: 'let me in' })]);
  });

  it('bans: the game ban, the group ban and the whole history at both scopes', async () => {
    expect(doc.bans.game).toEqual([(await ok(t.http.get(`/v1/bans/${enc(me)}`).set(auth))).body]);
    expect(doc.bans.game[0]).toMatchObject({ userId: me, reason: 'again' });
    expect(doc.bans.groups).toEqual([(await ok(t.http.get(`/v1/groups/${groups.banned.id}/members/${enc(me)}`).set(auth))).body]);
    const history = (await ok(t.http.get(`/v1/bans/${enc(me)}/history?limit=100`).set(auth))).body.items;
    expect(doc.bans.history).toEqual([...history].reverse());
    expect(doc.bans.history.map((h) => [h.scope, h.kind, h.reason])).toEqual([
      ['group', 'set', 'spam'],
      ['game', 'set', 'cheating'],
      ['game', 'lifted', null],
      ['game', 'set', 'again'],
    ]);
  });

  it('friends: friendships with their tags, requests both ways, own blocks, tags with the friends they label, visibility', async () => {
    const friends = (await ok(t.http.get(`/v1/users/${enc(me)}/friends?limit=100`).set(auth))).body.items;
    expect(doc.friends.friends).toEqual([...friends].reverse());
    expect(doc.friends.friends.map((f) => [f.friendSvcUserId, f.tagIds])).toEqual([
      [f1, [raid.id]],
      [f2, [raid.id]],
    ]);
    const requests = (await ok(t.http.get(`/v1/users/${enc(me)}/friend-requests`).set(auth))).body;
    expect(doc.friends.requestsSent).toEqual([...requests.outbound].reverse());
    expect(doc.friends.requestsReceived).toEqual([...requests.inbound].reverse());
    expect(doc.friends.requestsSent).toEqual([expect.objectContaining({ senderSvcUserId: me, targetSvcUserId: sentTo })]);
    expect(doc.friends.requestsReceived).toEqual([expect.objectContaining({ senderSvcUserId: requester, targetSvcUserId: me })]);
    // Blocks of the user by others are the blockers' data: only the user's own are listed.
    const blocks = (await ok(t.http.get(`/v1/users/${enc(me)}/blocks`).set(auth))).body.items;
    expect(doc.friends.blocks).toEqual(blocks);
    expect(doc.friends.blocks).toEqual([expect.objectContaining({ userId: me, blockedSvcUserId: blocked })]);
    const tags = (await ok(t.http.get(`/v1/users/${enc(me)}/friend-tags`).set(auth))).body.items as Json[];
    expect(doc.friends.tags.map((tag) => without(tag, 'friendSvcUserIds'))).toEqual(tags);
    expect(doc.friends.tags.map((tag) => [tag.id, [...tag.friendSvcUserIds].sort()])).toEqual([
      [alts.id, []],
      [raid.id, [f1, f2].sort()],
    ]);
    expect(doc.friends.visibility).toEqual((await ok(t.http.get(`/v1/users/${enc(me)}/visibility`).set(auth))).body);
    expect(doc.friends.visibility).toMatchObject({ userId: me, friendsListVisibility: 'friends-only' });
  });

  it('audit: every entry of the game where the user is the actor or the target, oldest first', async () => {
    const expected = await t.db.query<{ id: string }>(
      `SELECT id FROM ${journalAudit()} WHERE game_id = $1 AND (actor_user_id = $2 OR target_id = $3) ORDER BY created_at, id`,
      [gameId, meSvc, me],
    );
    expect(doc.audit.map((a) => a.id)).toEqual(expected.map((r) => r.id));
    for (const a of doc.audit) expect(a.actorUserId === meSvc || a.targetId === me).toBe(true);
    const actions = new Set(doc.audit.map((a) => a.action));
    for (const action of ['member.joined', 'member.left', 'member.invited', 'game.user.banned', 'permission.override.set', 'join_request.created']) {
      expect(actions).toContain(action);
    }
    // As actor (joined, invited someone) and as target (banned).
    expect(doc.audit.some((a) => a.actorUserId === meSvc && a.targetId !== me)).toBe(true);
    expect(doc.audit.some((a) => a.targetId === me && a.actorUserId !== meSvc)).toBe(true);
    const groupAudit = (await ok(t.http.get(`/v1/groups/${groups.left.id}/audit?limit=100`).set(auth))).body.items as Json[];
    const left = groupAudit.find((a) => a.action === 'member.left');
    expect(doc.audit.find((a) => a.id === left?.id)).toEqual(left);
  });

  it('events: every retained event naming the user, in feed order, each body as stored', async () => {
    const feed = (await ok(t.http.get('/v1/events/feed?limit=1000').set(auth))).body.items as (Json & { id: string })[];
    // Every event holding either id anywhere, but a block of the user by someone else.
    const naming = await t.db.query<{ id: string }>(
      `SELECT id FROM ${journalEvents()} WHERE game_id = $1
         AND jsonb_path_exists(body, 'strict $.** ? (@ == $u || @ == $s)', jsonb_build_object('u', $2::text, 's', $3::text))
         AND NOT (type IN ('friend.blocked', 'friend.unblocked') AND body->>'bySvcUserId' <> $2)`,
      [gameId, me, meSvc],
    );
    const ids = new Set(naming.map((r) => r.id));
    expect(doc.events).toEqual(feed.filter((e) => ids.has(e.id)));
    const types = new Set(doc.events.map((e) => e.type));
    for (const type of ['member.joined', 'member.left', 'member.banned', 'member.updated', 'invitation.created', 'join_request.created', 'friend.request.sent', 'friend.request.accepted', 'friend.blocked', 'game.user.banned', 'game.user.unbanned']) {
      expect(types).toContain(type);
    }
  });

  it("holds nothing of another user's, nor of another game (the same internal user linked there included)", async () => {
    const text = JSON.stringify(doc);
    expect(text).not.toContain(stranger);
    expect(text).not.toContain(otherGame.gameId);
    expect(text).not.toContain(otherGameGroup.id);
    expect(text).not.toContain('stranger things');
    expect(text).not.toContain('other game');
    // Blocked by someone else: not in the blocks, nor as an event (SPEC §6: the blocked party is not told).
    expect(text).not.toContain(blocker);

    const theirs = await exportDoc(auth, stranger);
    const theirText = JSON.stringify(theirs);
    expect(theirText).not.toContain(me);
    expect(theirText).not.toContain(meSvc);
    expect(theirs.memberships.map((m) => m.groupId)).toEqual([groups.active.id]);
    expect(theirs.bans.game).toEqual([expect.objectContaining({ userId: stranger, reason: 'not me' })]);

    const elsewhere = await exportDoc(otherGame.auth, me);
    expect(elsewhere.gameId).toBe(otherGame.gameId);
    expect(elsewhere.memberships.map((m) => m.groupId)).toEqual([otherGameGroup.id]);
    expect(elsewhere.bans.game).toEqual([expect.objectContaining({ reason: 'other game' })]);
    expect(elsewhere.friends.requestsSent).toEqual([expect.objectContaining({ targetSvcUserId: f1, gameId: otherGame.gameId })]);
    for (const id of [gameId, ...Object.values(groups).map((g) => g.id)]) expect(JSON.stringify(elsewhere)).not.toContain(id);
  });

  it('the admin twin answers the same document for the game; another game, or an unknown one, is 404', async () => {
    const r = await ok(adminExportOf(gameId, me));
    // But for the time and the records of the exports themselves (each export is in the next one's audit).
    const unrecorded = (d: ExportDoc) => ({ ...without(d as unknown as Json, 'exportedAt'), audit: d.audit.filter((a) => a.action !== 'user.exported') });
    expect(unrecorded(r.body)).toEqual(unrecorded(doc));
    expectError(await adminExportOf(randomUUID(), me), 404, 'not_found');
    expectError(await adminExportOf('not-a-game', me), 404, 'not_found');
    expectError(await adminExportOf(otherGame.gameId, stranger), 404, 'not_found');
    expectError(await t.http.get(`/v1/admin/games/${gameId}/users/${enc(me)}/export`).set(auth), 401, 'invalid_admin_token');
    expectError(await exportOf(asAdmin, me), 401, 'invalid_api_key');
    expectError(await t.http.get(`/v1/users/${enc(me)}/export`), 401, 'invalid_api_key');
  });

  it('is an attachment of JSON', async () => {
    const r = await ok(exportOf(auth, me));
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.headers['content-disposition']).toBe('attachment; filename="guildhall-user-export.json"');
  });

  it('an event that holds the external id only as another kind of value (a group named like the player) is not theirs', async () => {
    const namesake = `Night Watch ${uid()}`;
    const namedLikeThem = await postGroup<{ id: string }>(t, auth, { kind: 'guild', name: namesake, visibility: 'public' });
    await joinOk(t, auth, groups.active.id, namesake);
    const theirs = await exportDoc(auth, namesake);
    expect(theirs.events.map((e) => e.type)).toEqual(['member.joined']);
    expect(JSON.stringify(theirs.events)).not.toContain(namedLikeThem.id);
    const stored = await t.db.query(`SELECT 1 FROM ${journalEvents()} WHERE type = 'group.created' AND body->'group'->>'id' = $1`, [namedLikeThem.id]);
    expect(stored).toHaveLength(1);
  });
});

describe('who can be exported, and errors before the first byte', () => {
  let gameId: string;
  let auth: Auth;
  beforeAll(async () => {
    ({ gameId, auth } = await authedGame(t, 'export errors'));
  });

  it('a user the game has never seen is 404, with no attachment header, and anchors no one', async () => {
    const nobody = uid('nobody');
    const r = await exportOf(auth, nobody);
    expectError(r, 404, 'not_found');
    expect(r.headers['content-disposition']).toBeUndefined();
    expectError(await adminExportOf(gameId, nobody), 404, 'not_found');
    expect(await identityOf(t, gameId, nobody)).toBeNull();
  });

  it('a user the game knows only from an invitation naming them is exported (and not anchored by it)', async () => {
    const g = await postGroup<{ id: string }>(t, auth, { kind: 'guild', name: 'Inviting', visibility: 'invite-only' });
    const invited = uid('invited');
    const inv = (await ok(t.http.post(`/v1/groups/${g.id}/invitations`).set(auth).send({ targetUserId: invited }), 201)).body;
    const doc = await exportDoc(auth, invited);
    expect(doc.invitations.map((i) => i.id)).toEqual([inv.id]);
    expect(doc.memberships).toEqual([]);
    expect(doc.audit.map((a) => [a.action, a.targetId])).toEqual([
      ['member.invited', invited],
      ['user.exported', invited],
    ]);
    expect(doc.events.map((e) => e.type)).toEqual(['invitation.created']);
    expect(doc.friends.visibility).toEqual({ userId: invited, friendsListVisibility: 'private', allowed: ['private', 'friends-only'] });
    expect(await identityOf(t, gameId, invited)).toBeNull();
  });

  it('a NUL character in the user id is 400 naming the user id, on both routes', async () => {
    for (const r of [await exportOf(auth, 'bad\u0000id'), await adminExportOf(gameId, 'bad\u0000id')]) {
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toMatch(/userId/i);
    }
  });

  it('any id a path carries is an id (SPEC §8: no length cap): one of 16,384 characters, one of odd characters', async () => {
    const g = await postGroup<{ id: string }>(t, auth, { kind: 'guild', name: 'Open', visibility: 'public' });
    for (const id of [`p${'x'.repeat(16_383)}`, `Ünïcode / player ?#&% ${uid()}`]) {
      await joinOk(t, auth, g.id, id);
      const doc = await exportDoc(auth, id);
      expect(doc.userId).toBe(id);
      expect(doc.memberships.map((m) => m.groupId)).toEqual([g.id]);
    }
  });

  it('an id longer than a path carries, or an empty one, is 400 naming it, on both routes', async () => {
    const long = 'x'.repeat(16_385);
    for (const r of [await exportOf(auth, long), await adminExportOf(gameId, long), await t.http.get('/v1/users//export').set(auth)]) {
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toContain('userId');
    }
    const empty = await t.http.get(`/v1/admin/games/${gameId}/users//export`).set(asAdmin);
    expectError(empty, 400, 'bad_request');
    expect(empty.body.message).toBe('externalUserId must not be empty');
  });

  it('after an erasure, the same id is a new user with no past: only what they did since', async () => {
    const g = await postGroup<{ id: string }>(t, auth, { kind: 'guild', name: 'Again', visibility: 'public' });
    const player = uid('erased');
    await joinOk(t, auth, g.id, player);
    expect((await t.http.delete(`/v1/users/${player}`).set(auth)).status).toBe(200);
    expectError(await exportOf(auth, player), 404, 'not_found');
    await joinOk(t, auth, g.id, player);
    const doc = await exportDoc(auth, player);
    expect(doc.memberships).toHaveLength(1);
    // The export refused before the erasure recorded nothing; this one records itself.
    expect(doc.audit.map((a) => a.action)).toEqual(['member.joined', 'user.exported']);
    expect(doc.events.map((e) => e.type)).toEqual(['member.joined']);
  });
});

describe('a player named only as an object key', () => {
  it('is found by the export: events and audit entries holding their id as a key, at any depth, in group and member metadata', async () => {
    const { auth } = await authedGame(t, 'export keys');
    const keyed = uid('keyed');
    const [officer, rival] = [uid('officer'), uid('rival')];
    const home = await postGroup<{ id: string }>(t, auth, { kind: 'guild', name: 'Home', visibility: 'public' });
    await joinOk(t, auth, home.id, keyed);
    const ranked = await postGroup<{ id: string }>(t, auth, {
      kind: 'guild',
      name: 'Ranked',
      visibility: 'public',
      creatorUserId: officer,
      metadata: { ranks: { [keyed]: 'officer' } },
    });
    const deep = await postGroup<{ id: string }>(t, auth, {
      kind: 'guild',
      name: 'Deep',
      visibility: 'public',
      metadata: { seasons: [{ standings: { top: { [keyed]: { wins: 3 } } } }] },
    });
    await joinOk(t, auth, ranked.id, rival);
    const patched = await t.http.patch(`/v1/groups/${ranked.id}/members/${enc(rival)}`).set(auth).send({ metadata: { rivals: { [keyed]: 'sworn' } } });
    expect(patched.status).toBe(200);
    // Their id only as a value of a field that is not a user field: not theirs (a group named like them).
    const motto = await postGroup<{ id: string }>(t, auth, { kind: 'guild', name: 'Motto', visibility: 'public', metadata: { motto: keyed } });

    const doc = await exportDoc(auth, keyed);
    const eventOf = (type: string, groupId: string) => doc.events.find((e) => e.type === type && e.groupId === groupId);
    expect(eventOf('group.created', ranked.id)).toMatchObject({ group: { metadata: { ranks: { [keyed]: 'officer' } } } });
    expect(eventOf('group.created', deep.id)).toBeDefined();
    expect(eventOf('member.updated', ranked.id)).toMatchObject({ member: { userId: rival, metadata: { rivals: { [keyed]: 'sworn' } } } });
    expect(eventOf('group.created', motto.id)).toBeUndefined();
    const entryOf = (action: string, targetId: string) => doc.audit.find((a) => a.action === action && a.targetId === targetId);
    expect(entryOf('group.created', ranked.id)).toMatchObject({ payload: { metadata: { ranks: { [keyed]: 'officer' } } } });
    expect(entryOf('group.created', deep.id)).toBeDefined();
    expect(entryOf('member.updated', rival)).toMatchObject({ payload: { after: { metadata: { rivals: { [keyed]: 'sworn' } } } } });
    expect(entryOf('group.created', motto.id)).toBeUndefined();
    // Nothing else of the others: their joins are not the player's.
    expect(doc.events.map((e) => e.type).sort()).toEqual(['group.created', 'group.created', 'member.joined', 'member.updated']);
  });
});

describe('every export is recorded', () => {
  let gameId: string;
  let auth: Auth;
  const player = uid('recorded');
  let groupId: string;
  const entriesOf = (action: string) =>
    t.db.query<{ id: string; group_id: string | null; actor_user_id: string | null; target_id: string; payload: Json }>(
      `SELECT id, group_id, actor_user_id, target_id, payload FROM ${journalAudit()} WHERE game_id = $1 AND action = $2 ORDER BY created_at, id`,
      [gameId, action],
    );
  const operatorEntries = () =>
    t.db.query<{ operator_name: string; action: string; game_id: string; target_id: string }>(
      `SELECT operator_name, action, game_id, target_id FROM operator_audit WHERE game_id = $1 AND action = 'user.exported' ORDER BY id`,
      [gameId],
    );

  beforeAll(async () => {
    ({ gameId, auth } = await authedGame(t, 'export records'));
    groupId = (await postGroup<{ id: string }>(t, auth, { kind: 'guild', name: 'Recorded', visibility: 'public' })).id;
    await joinOk(t, auth, groupId, player);
  });

  it('the game route writes one game audit entry user.exported naming the user; a 404 writes none', async () => {
    expectError(await exportOf(auth, uid('nobody')), 404, 'not_found');
    expect(await entriesOf('user.exported')).toEqual([]);
    const doc = await exportDoc(auth, player);
    const entries = await entriesOf('user.exported');
    expect(entries).toEqual([{ id: expect.any(String), group_id: null, actor_user_id: null, target_id: player, payload: { userId: player } }]);
    // Written before the snapshot was taken, in a transaction of its own: the export holds its own record.
    expect(doc.audit.at(-1)).toMatchObject({ id: entries[0].id, action: 'user.exported', targetId: player, payload: { userId: player } });
    expect(await operatorEntries()).toEqual([]);
  });

  it('the admin twin writes the operator audit entry naming the game and the user, and the game entry', async () => {
    const before = (await entriesOf('user.exported')).length;
    const made = await t.http.post('/v1/admin/operators').set(asAdmin).send({ name: 'Records keeper', role: 'viewer' });
    const r = await t.http.get(`/v1/admin/games/${gameId}/users/${enc(player)}/export`).set(bearer(made.body.token));
    expect(r.status).toBe(200);
    expect(await operatorEntries()).toEqual([{ operator_name: 'Records keeper', action: 'user.exported', game_id: gameId, target_id: player }]);
    expect(await entriesOf('user.exported')).toHaveLength(before + 1);
    expect((await t.http.get(`/v1/admin/operator-audit?action=user.exported`).set(asAdmin)).body.items[0]).toMatchObject({
      operatorName: 'Records keeper',
      action: 'user.exported',
      gameId,
      targetId: player,
    });
  });

  it('the records are part of the next export, and an erasure pseudonymises them in both audits', async () => {
    const doc = await exportDoc(auth, player);
    expect(doc.audit.filter((a) => a.action === 'user.exported')).toHaveLength(3);
    const erased = await t.http.delete(`/v1/users/${enc(player)}`).set(auth);
    expect(erased.status).toBe(200);
    const { pseudonym } = erased.body as { pseudonym: string };
    const entries = await entriesOf('user.exported');
    expect(entries.map((e) => [e.target_id, e.payload])).toEqual(Array(3).fill([pseudonym, { userId: pseudonym }]));
    expect((await operatorEntries()).map((e) => e.target_id)).toEqual([pseudonym]);
  });
});

describe('the body routes, for ids of any length', () => {
  let gameId: string;
  let auth: Auth;
  beforeAll(async () => {
    ({ gameId, auth } = await authedGame(t, 'export by body'));
  });
  const postExport = (body: object, as: Auth = auth) => t.http.post('/v1/users/export').set(as).send(body);
  const postAdminExport = (body: object, game = gameId) => t.http.post(`/v1/admin/games/${game}/users/export`).set(asAdmin).send(body);

  it('a user id of 100,000 characters joins, is exported by both body routes, and is erased by the body route', async () => {
    const long = `p${'x'.repeat(99_999)}`;
    const g = await postGroup<{ id: string }>(t, auth, { kind: 'guild', name: 'Long ids', visibility: 'public' });
    await joinOk(t, auth, g.id, long);
    // No path can name them: the request line alone is past what the HTTP server takes.
    expect((await exportOf(auth, long)).status).toBeGreaterThanOrEqual(400);

    const r = await ok(postExport({ userId: long }));
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.headers['content-disposition']).toBe('attachment; filename="guildhall-user-export.json"');
    const doc = r.body as ExportDoc;
    expect(doc.userId).toBe(long);
    expect(doc.memberships.map((m) => m.groupId)).toEqual([g.id]);
    expect(doc.audit.map((a) => [a.action, a.targetId === long])).toEqual([
      ['member.joined', true],
      ['user.exported', true],
    ]);
    const twin = await ok(postAdminExport({ userId: long }));
    expect(without(twin.body, 'exportedAt', 'audit')).toEqual(without(doc as unknown as Json, 'exportedAt', 'audit'));

    const erased = await t.http.post('/v1/users/erase').set(auth).send({ userId: long });
    expect(erased.status).toBe(200);
    expect(erased.body).toMatchObject({ userId: long, pseudonym: expect.stringMatching(/^erased_[0-9a-f]{32}$/), removed: { memberships: 1 } });
    expect(await identityOf(t, gameId, long)).toBeNull();
    expectError(await postExport({ userId: long }), 404, 'not_found');
    // No audit entry names them.
    const [left] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${journalAudit()} WHERE game_id = $1 AND strpos(target_id, $2) > 0`, [gameId, long]);
    expect(left.n).toBe(0);
  });

  it('the admin body route erases with the moderator role, and names the game', async () => {
    const player = `q${'y'.repeat(20_000)}`;
    const g = await postGroup<{ id: string }>(t, auth, { kind: 'guild', name: 'Erased by an operator', visibility: 'public' });
    await joinOk(t, auth, g.id, player);
    const viewer = (await t.http.post('/v1/admin/operators').set(asAdmin).send({ name: 'Only looks', role: 'viewer' })).body.token as string;
    expectError(await t.http.post(`/v1/admin/games/${gameId}/users/erase`).set(bearer(viewer)).send({ userId: player }), 403, 'permission_denied');
    expectError(await t.http.post(`/v1/admin/games/${randomUUID()}/users/erase`).set(asAdmin).send({ userId: player }), 404, 'not_found');
    const r = await t.http.post(`/v1/admin/games/${gameId}/users/erase`).set(asAdmin).send({ userId: player });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ userId: player, removed: { memberships: 1 } });
    expect(await identityOf(t, gameId, player)).toBeNull();
  });

  it('the body is checked: userId a non-empty string without NUL; an unknown game is 404', async () => {
    for (const body of [{}, { userId: '' }, { userId: 7 }, { userId: 'bad\u0000id' }]) {
      for (const r of [await postExport(body), await postAdminExport(body), await t.http.post('/v1/users/erase').set(auth).send(body)]) {
        expectError(r, 400, 'bad_request');
        expect(r.body.message).toContain('userId');
      }
    }
    expectError(await postAdminExport({ userId: 'anyone' }, randomUUID()), 404, 'not_found');
    expectError(await postExport({ userId: uid('nobody') }), 404, 'not_found');
    expectError(await t.http.post('/v1/users/export').send({ userId: 'anyone' }), 401, 'invalid_api_key');
  });

  it('no route is shadowed: users named "export" and "erase" are still reached by their paths', async () => {
    const g = await postGroup<{ id: string }>(t, auth, { kind: 'guild', name: 'Namesakes', visibility: 'public' });
    for (const name of ['export', 'erase']) await joinOk(t, auth, g.id, name);
    expect((await exportDoc(auth, 'export')).userId).toBe('export');
    expect((await ok(adminExportOf(gameId, 'erase'))).body.userId).toBe('erase');
    expect((await ok(t.http.get(`/v1/admin/games/${gameId}/users/export`).set(asAdmin))).body).toMatchObject({ gameId, userId: 'export' });
    const erased = await t.http.delete('/v1/users/erase').set(auth);
    expect(erased.status).toBe(200);
    expect(erased.body.userId).toBe('erase');
    expect(await identityOf(t, gameId, 'erase')).toBeNull();
    expect(await identityOf(t, gameId, 'export')).not.toBeNull();
  });
});

describe('a large history (10,000 friends, 100,000 audit entries)', () => {
  let gameId: string;
  let auth: Auth;
  const big = uid('big');
  let subject: ExportSubject;
  const EVENTS = 2_000;

  beforeAll(async () => {
    ({ gameId, auth } = await authedGame(t, 'export large'));
    const g = await postGroup<{ id: string }>(t, auth, { kind: 'guild', name: 'Big', visibility: 'public' });
    await joinOk(t, auth, g.id, big);
    const svc = await svcOf(gameId, big);
    subject = { gameId, userId: big, svcUserId: svc };
    await seedLargeHistory(t.db.url, { gameId, groupId: g.id, userId: big, svcUserId: svc, events: EVENTS });
  });

  it('streams the whole document in many chunks, every row counted', async () => {
    const r = await fetchRaw(`/v1/users/${enc(big)}/export`, { authorization: auth.authorization });
    expect(r.status).toBe(200);
    expect(r.headers['transfer-encoding']).toBe('chunked');
    expect(r.headers['content-length']).toBeUndefined();
    const doc = JSON.parse(r.text) as ExportDoc;
    expect(doc.friends.friends).toHaveLength(10_000);
    // The seeded entries, the member.joined of the user's one join through the API, and this export's own record.
    expect(doc.audit).toHaveLength(100_000 + 2);
    expect(doc.audit.at(-1)).toMatchObject({ action: 'user.exported', targetId: big });
    expect(doc.events).toHaveLength(EVENTS + 1);
    expect(doc.friends.tags).toEqual([expect.objectContaining({ name: 'everyone', friendSvcUserIds: expect.any(Array) }), expect.objectContaining({ name: 'nobody', friendSvcUserIds: [] })]);
    expect(doc.friends.tags[0].friendSvcUserIds).toHaveLength(10_000);
    expect(new Set(doc.friends.tags[0].friendSvcUserIds)).toEqual(new Set(doc.friends.friends.map((f) => f.friendSvcUserId)));
    expect(doc.memberships).toHaveLength(1);
    // Oldest first, and no other user's entry among them.
    const times = doc.audit.map((a) => Date.parse(a.createdAt as string));
    expect(times.every((at, i) => i === 0 || times[i - 1] <= at)).toBe(true);
    expect(doc.audit.every((a) => a.actorUserId === subject.svcUserId || a.targetId === big)).toBe(true);
    // Streamed as it was read, not buffered whole: a chunk is about a batch of rows.
    expect(r.chunks).toBeGreaterThan(100);
  });

  it('reads one snapshot: what is written while the answer streams is not in it', async () => {
    const late = uid('late');
    const g = await postGroup<{ id: string }>(t, auth, { kind: 'guild', name: 'Late', visibility: 'invite-only' });
    const path = `/v1/users/${enc(big)}/export`;
    // The answer is paused after its first chunk while an invitation to the user is written: an
    // invitation, an audit entry (target) and an event naming them, all committed mid-stream.
    const during = await readPausedAfterFirstChunk(path, auth.authorization, () =>
      ok(t.http.post(`/v1/groups/${g.id}/invitations`).set(auth).send({ targetUserId: big, invitedByUserId: late }), 201),
    );
    expect(during.includes(late)).toBe(false);
    const before = JSON.parse(during) as ExportDoc;
    const after = JSON.parse((await fetchRaw(path, { authorization: auth.authorization })).text) as ExportDoc;
    expect(after.invitations.filter((i) => i.invitedByUserId === late)).toHaveLength(1);
    // The invitation's entry, and the record of the export read after it.
    expect(after.audit.length).toBe(before.audit.length + 2);
    expect(after.events.length).toBe(before.events.length + 1);
  });

  it('every statement reads from the user through an index: no sequential scan, no index walked whole', async () => {
    const c = new Client({ connectionString: t.db.url });
    await c.connect();
    try {
      const key = `\\x${createHash('sha256').update(big, 'utf8').digest('hex')}`;
      // The journal finds a user by the hashes of their ids.
      const hashes = await c.query<{ h: number }>(`SELECT svc_name_hash(unnest($1::text[])) AS h`, [[subject.svcUserId!, big]]);
      const anchors = [subject.svcUserId!, big, key, ...hashes.rows.map((r) => String(r.h))];
      const used = new Map<ExportSection, string[]>();
      for (const section of Object.keys(exportQueries) as ExportSection[]) {
        const plan = await cursorPlan(c, exportQueries[section](subject));
        const nodes = flatten(plan);
        if (process.env.SHOW_PLANS) console.log(section, JSON.stringify(plan, null, 1));
        expect({ section, seq: nodes.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']) }).toEqual({ section, seq: [] });
        for (const n of nodes.filter((n) => /Index/.test(n['Node Type']))) {
          expect({ section, index: n['Index Name'], cond: n['Index Cond'] ?? null }).toEqual({ section, index: n['Index Name'], cond: expect.any(String) });
        }
        // The section's own rows are found by the user (internal id, external id or its key), not by the game alone.
        expect({ section, anchored: nodes.some((n) => anchors.some((a) => (n['Index Cond'] ?? '').includes(a))) }).toEqual({ section, anchored: true });
        used.set(section, nodes.map((n) => n['Index Name']).filter((n): n is string => n !== undefined));
      }
      // The rows naming a user only as text or inside JSON: the journal's index of their names' hashes.
      expect(used.get('audit')).toEqual(['journal_names']);
      expect(used.get('events')).toEqual(['journal_names']);
      expect(used.get('invitations')).toEqual(expect.arrayContaining(['invitations_target', 'invitations_sender']));
    } finally {
      await c.end();
    }
  });

  it('gives the connection back when the client goes away mid-stream, and the next export is served', async () => {
    // Two connections: two abandoned exports that kept theirs would leave none for the third.
    const small = await startTestApp({ DATABASE_POOL_MAX: '2', WEBHOOK_WORKER_ENABLED: 'false' }, t.db);
    try {
      await small.app.listen(0, '127.0.0.1');
      const port = (small.app.getHttpServer().address() as AddressInfo).port;
      const pool = (small.app.get(DataSource).driver as unknown as { master: { totalCount: number; idleCount: number; waitingCount: number } }).master;
      for (let i = 0; i < 2; i++) await abandonMidStream(port, `/v1/users/${enc(big)}/export`, auth.authorization);
      await until(() => pool.idleCount === pool.totalCount && pool.waitingCount === 0);
      await noneLeftIdleInTransaction();
      const next = await ok(small.http.get(`/v1/users/${enc(big)}/export`).set(auth));
      expect(next.body.audit.length).toBeGreaterThan(100_000);
    } finally {
      await small.close();
    }
  });

  it('a shutdown cuts an export in flight short (never a complete-looking answer) and gives its connection back', async () => {
    const other = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false' }, t.db);
    let closing: Promise<void> | undefined;
    try {
      await other.app.listen(0, '127.0.0.1');
      const port = (other.app.getHttpServer().address() as AddressInfo).port;
      // A reader that stalls after the first chunk holds the export (its spool, not its connection) open.
      const outcome = new Promise<'ended' | 'cut'>((resolve) => {
        const req = httpRequest({ host: '127.0.0.1', port, path: `/v1/users/${enc(big)}/export`, agent: false, headers: { authorization: auth.authorization } }, (res) => {
          res.once('data', () => {
            res.pause();
            closing = other.close();
            void closing.finally(() => res.resume());
          });
          res.on('end', () => resolve('ended'));
          res.on('error', () => resolve('cut'));
          res.on('aborted', () => resolve('cut'));
        });
        req.on('error', () => resolve('cut'));
        req.end();
      });
      expect(await outcome).toBe('cut');
      await closing;
      await noneLeftIdleInTransaction();
    } finally {
      if (!closing) await other.close();
    }
  });
});

/** Reads an answer whole, pausing after its first chunk until `meanwhile` is done. */
function readPausedAfterFirstChunk(path: string, authorization: string, meanwhile: () => Promise<unknown>): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { agent: false, headers: { authorization } }, (res) => {
      const parts: Buffer[] = [];
      res.once('data', (first: Buffer) => {
        parts.push(first);
        res.pause();
        meanwhile().then(
          () => {
            res.on('data', (d: Buffer) => parts.push(d));
            res.resume();
          },
          (err: unknown) => {
            req.destroy();
            reject(err);
          },
        );
      });
      res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Reads the first chunk of an answer, then drops the connection. */
function abandonMidStream(port: number, path: string, authorization: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: false, headers: { authorization } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
      res.once('data', () => {
        req.destroy();
        resolve();
      });
    });
    req.on('error', () => undefined);
    req.end();
  });
}

/**
 * No session of the test database stays idle in a transaction: a connection an export kept would.
 * The app's background jobs (the sweeper) may be between two statements of their own transaction
 * at any instant, so a session seen so is looked at again, for up to 5 s, before the test fails.
 */
async function noneLeftIdleInTransaction(): Promise<void> {
  const idle = async () =>
    (
      await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'`,
      )
    )[0].n;
  const deadline = Date.now() + 5_000;
  let n = await idle();
  while (n > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    n = await idle();
  }
  expect(n).toBe(0);
}

/** Waits for `cond`, checking every 20 ms (the test's own timeout bounds the wait). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 20));
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

function flatten(n: PlanNode): PlanNode[] {
  return [n, ...(n.Plans ?? []).flatMap(flatten)];
}

/** The plan of a section's cursor, declared as the export declares it, with the export's planner settings. */
async function cursorPlan(c: Client, q: { sql: string; params: unknown[] }): Promise<PlanNode> {
  await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY; SET LOCAL cursor_tuple_fraction = 1; SET LOCAL enable_seqscan = off');
  try {
    const { rows } = await c.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (FORMAT JSON) DECLARE plan_check NO SCROLL CURSOR FOR ${q.sql}`, q.params);
    return rows[0]['QUERY PLAN'][0].Plan;
  } finally {
    await c.query('ROLLBACK');
  }
}

/**
 * The large user's history, by set-based SQL: 10,000 friends (both rows of each friendship), two
 * tags (one on every friend), 100,000 audit entries naming them as actor or target and `events`
 * events naming them; beside it, other users' rows in every table the export reads, so that the
 * statistics look like a game with more than one player.
 */
async function seedLargeHistory(url: string, p: { gameId: string; groupId: string; userId: string; svcUserId: string; events: number }): Promise<void> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('BEGIN');
    // Bulk load: no per-row trigger (the friendship mirror check is quadratic on one user's rows) or foreign-key check.
    await c.query('SET LOCAL session_replication_role = replica');
    const params = [p.gameId, p.svcUserId, p.userId, p.groupId];
    await c.query(`CREATE TEMP TABLE others ON COMMIT DROP AS SELECT svc_uuidv7() AS id, 'other_' || i AS ext, i FROM generate_series(1, 12000) i`);
    await c.query(`INSERT INTO users (id) SELECT id FROM others`);
    await c.query(`INSERT INTO user_identities (game_id, external_id, user_id) SELECT $1, ext, id FROM others`, [p.gameId]);
    // 10,000 friendships of the user, 2,000 among the others; requests and blocks among the others.
    await c.query(
      `INSERT INTO user_relationships (id, game_id, user_id, other_id, user_external_id, other_external_id, type, created_at, responded_at)
       SELECT svc_uuidv7(), $1, a, b, ax, bx, 'friend', at, at FROM (
         SELECT $2::uuid AS a, o.id AS b, $3::text AS ax, o.ext AS bx, now() - make_interval(secs => o.i) AS at FROM others o WHERE o.i <= 10000
         UNION ALL SELECT o.id, $2::uuid, o.ext, $3::text, now() - make_interval(secs => o.i) FROM others o WHERE o.i <= 10000
         UNION ALL SELECT o.id, n.id, o.ext, n.ext, now() FROM others o JOIN others n ON n.i = o.i + 1000 WHERE o.i BETWEEN 10001 AND 11000
         UNION ALL SELECT n.id, o.id, n.ext, o.ext, now() FROM others o JOIN others n ON n.i = o.i + 1000 WHERE o.i BETWEEN 10001 AND 11000
       ) f`,
      params.slice(0, 3),
    );
    await c.query(
      `INSERT INTO user_relationships (id, game_id, user_id, other_id, user_external_id, other_external_id, type)
       SELECT svc_uuidv7(), $1, o.id, n.id, o.ext, n.ext, CASE WHEN o.i % 2 = 0 THEN 'request' ELSE 'blocked' END
       FROM others o JOIN others n ON n.i = o.i - 11000 WHERE o.i > 11000`,
      [p.gameId],
    );
    await c.query(
      `WITH t AS (INSERT INTO friend_tags (id, game_id, user_id, name) VALUES (svc_uuidv7(), $1, $2, 'everyone'), (svc_uuidv7(), $1, $2, 'nobody') RETURNING id, name)
       INSERT INTO friend_tag_links (relationship_id, tag_id)
       SELECT r.id, t.id FROM user_relationships r JOIN t ON t.name = 'everyone' WHERE r.user_id = $2 AND r.game_id = $1 AND r.type = 'friend'`,
      params.slice(0, 2),
    );
    await c.query(`INSERT INTO friend_tags (id, game_id, user_id, name) SELECT svc_uuidv7(), $1, o.id, 'tag ' || o.i FROM others o WHERE o.i > 10000`, [p.gameId]);
    // Groups, memberships, invitations, join requests and bans of the others.
    await c.query(
      `INSERT INTO groups (id, game_id, kind, name, visibility, search_name) SELECT svc_uuidv7(), $1, 'guild', 'g' || i, 'invite-only', 'g' || i FROM generate_series(1, 1000) i`,
      [p.gameId],
    );
    await c.query(
      `INSERT INTO members (id, group_id, user_id, external_user_id, status)
       SELECT svc_uuidv7(), g.id, o.id, o.ext, 'active' FROM others o
       JOIN LATERAL (SELECT id FROM groups WHERE game_id = $1 AND name = 'g' || (o.i % 1000 + 1)) g ON true WHERE o.i > 10000`,
      [p.gameId],
    );
    await c.query(
      `INSERT INTO invitations (id, group_id, game_id, code, target_user_id, invited_by_user_id)
       SELECT svc_uuidv7(), $2, $1, substr(md5(random()::text), 1, 16), o.ext, CASE WHEN o.i % 3 = 0 THEN 'other_1' END FROM others o WHERE o.i > 8000`,
      [p.gameId, p.groupId],
    );
    await c.query(
      `INSERT INTO join_requests (id, game_id, group_id, user_id, external_user_id, status)
       SELECT svc_uuidv7(), $1, $2, o.id, o.ext, 'declined' FROM others o WHERE o.i > 10000`,
      [p.gameId, p.groupId],
    );
    await c.query(`INSERT INTO game_bans (id, game_id, user_id, external_user_id) SELECT svc_uuidv7(), $1, o.id, o.ext FROM others o WHERE o.i > 11000`, [p.gameId]);
    await c.query(
      `INSERT INTO ban_history (id, game_id, user_id, external_user_id, scope, kind) SELECT svc_uuidv7(), $1, o.id, o.ext, 'game', 'set' FROM others o WHERE o.i > 10000`,
      [p.gameId],
    );
    // 100,000 audit entries of the user (actor or target), 50,000 of the others.
    await c.query(
      insertAuditSql(
        ['id', 'game_id', 'actor_user_id', 'action', 'target_id', 'payload', 'created_at'],
        `SELECT svc_uuidv7(), $1::uuid, CASE WHEN i % 2 = 0 THEN $2::uuid END, CASE WHEN i % 2 = 0 THEN 'game.user.banned' ELSE 'game.user.unbanned' END,
           CASE WHEN i % 2 = 1 THEN $3 ELSE 'other_' || (i % 10000 + 1) END, jsonb_build_object('n', i), now() - make_interval(secs => 200000 - i)
         FROM generate_series(1, 100000) i`,
      ),
      params.slice(0, 3),
    );
    await c.query(
      insertAuditSql(
        ['id', 'game_id', 'action', 'target_id'],
        `SELECT svc_uuidv7(), $1::uuid, 'game.user.banned', 'other_' || (i % 12000 + 1) FROM generate_series(1, 50000) i`,
      ),
      [p.gameId],
    );
    // Events: `events` naming the user, 20,000 of the others.
    await c.query(
      insertEventsSql(
        `SELECT e.id, $1::uuid, NULL::uuid, 'friend.request.sent', jsonb_build_object('id', e.id, 'type', 'friend.request.sent', 'gameId', $1::text,
           'occurredAt', now(), 'actorSvcUserId', CASE WHEN i <= $3 THEN $2 ELSE 'other_' || (i % 12000 + 1) END, 'targetSvcUserId', 'other_' || (i % 9000 + 1))
         FROM generate_series(1, $3::int + 20000) i, LATERAL (SELECT substr(md5(random()::text || i), 1, 24) AS id) e`,
      ),
      [p.gameId, p.userId, p.events],
    );
    await c.query('COMMIT');
    await c.query('ANALYZE');
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await c.end();
  }
}
