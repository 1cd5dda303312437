import { randomUUID } from 'node:crypto';
import { expectError } from '../helpers/errors';
import { joinOk, postGroup } from '../helpers/groups';
import { seqUid as uid } from '../helpers/ids';
import { listNotifications, type Notification } from '../helpers/notifications';
import { asAdmin, authedGame, bearer, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * GET /v1/admin/games/:gameId/users/:externalUserId/notifications: the console's read of a
 * player's notifications (EXTENSIONS X9). The game route's list for an operator: same items, same
 * filters, same pages; a viewer may read it; it changes nothing.
 */

type Auth = Record<string, string>;
type Page = { items: Notification[]; nextCursor: string | null };

describe("a player's notifications for an operator", () => {
  let t: TestApp;
  let gameId: string;
  let auth: Auth;
  let viewer: Auth;

  beforeAll(async () => {
    t = await startTestApp();
    ({ gameId, auth } = await authedGame(t, 'admin inbox'));
    viewer = bearer((await t.http.post('/v1/admin/operators').set(asAdmin).send({ name: 'viewer', role: 'viewer' })).body.token);
  });
  afterAll(() => t.close());

  const adminPath = (userId: string, game = gameId) => `/v1/admin/games/${game}/users/${encodeURIComponent(userId)}/notifications`;
  const adminList = async (userId: string, query = '', as: Auth = viewer): Promise<Page> => {
    const r = await t.http.get(`${adminPath(userId)}${query}`).set(as);
    expect(r.status).toBe(200);
    return r.body;
  };

  /** A member kicked from a group after `roleChanges` role changes: roleChanges + 1 notifications, the kick the newest. */
  async function player(roleChanges: number): Promise<{ userId: string; notifications: Notification[] }> {
    const userId = uid('p');
    const g = await postGroup<{ id: string }>(t, auth, { kind: 'guild', name: 'Watch', visibility: 'public' });
    await joinOk(t, auth, g.id, userId);
    const role = (await t.http.post(`/v1/groups/${g.id}/roles`).set(auth).send({ name: 'r', priority: 1 })).body;
    const path = `/v1/groups/${g.id}/members/${encodeURIComponent(userId)}/roles/${role.id}`;
    for (let i = 0; i < roleChanges; i++) expect((await (i % 2 === 0 ? t.http.post(path) : t.http.delete(path)).set(auth)).status).toBeLessThan(300);
    expect((await t.http.post(`/v1/groups/${g.id}/members/${encodeURIComponent(userId)}/kick`).set(auth).send({ reason: 'afk' })).status).toBe(200);
    const { items } = await listNotifications(t, auth, userId, '?limit=100');
    expect(items).toHaveLength(roleChanges + 1);
    return { userId, notifications: items };
  }

  it("answers what the game's key reads, page by page, with the same filters", async () => {
    const { userId, notifications } = await player(4);
    expect(await adminList(userId)).toEqual({ items: notifications, nextCursor: null });

    const first = await adminList(userId, '?limit=2');
    expect(first.items).toEqual(notifications.slice(0, 2));
    const rest = await adminList(userId, `?limit=10&cursor=${encodeURIComponent(first.nextCursor!)}`);
    expect(rest).toEqual({ items: notifications.slice(2), nextCursor: null });

    await t.http.post(`/v1/users/${encodeURIComponent(userId)}/notifications/read`).set(auth).send({ ids: [notifications[0].id] });
    const unread = await adminList(userId, '?unread=true');
    expect(unread.items.map((n) => n.id)).toEqual(notifications.slice(1).map((n) => n.id));
    const kicks = await adminList(userId, '?kinds=member.kicked');
    expect(kicks.items).toEqual([expect.objectContaining({ id: notifications[0].id, kind: 'member.kicked', readAt: expect.any(String) })]);
    expect(await adminList(userId, '?limit=100', asAdmin)).toEqual(await listNotifications(t, auth, userId, '?limit=100'));
  });

  it('reads without marking: what was unread stays unread', async () => {
    const { userId } = await player(1);
    await adminList(userId);
    const counts = await t.http.get(`/v1/users/${encodeURIComponent(userId)}/notifications/counts`).set(auth);
    expect(counts.body.unread).toBe(2);
  });

  it('a user the game has never seen: an empty page; an unknown game: 404; no game key', async () => {
    expect(await adminList(uid('never'))).toEqual({ items: [], nextCursor: null });
    const unknownGame = await t.http.get(adminPath('anyone', randomUUID())).set(viewer);
    expectError(unknownGame, 404, 'not_found');
    const withKey = await t.http.get(adminPath('anyone')).set(auth);
    expect(withKey.status).toBe(401);
  });

  it('a player of another game is not this game’s', async () => {
    const { userId } = await player(1);
    const other = await authedGame(t, 'other');
    const r = await t.http.get(adminPath(userId, other.gameId)).set(viewer);
    expect(r.body).toEqual({ items: [], nextCursor: null });
  });

  it.each([
    ['an unknown kind', '?kinds=member.left', 'kinds'],
    ['unread that is not a boolean', '?unread=yes', 'unread'],
    ['a limit of 0', '?limit=0', 'limit'],
    ['a cursor that is no cursor', '?cursor=nope', 'cursor'],
  ])('400 naming the field for %s', async (_case, query, field) => {
    const r = await t.http.get(`${adminPath('anyone')}${query}`).set(viewer);
    expectError(r, 400, 'bad_request');
    expect(r.body.message).toContain(field);
  });
});
