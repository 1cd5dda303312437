import { EventBus } from '../../src/events/event-bus';
import { expectError } from '../helpers/errors';
import { friendsClient, sendPending } from '../helpers/friends';
import { joinOk, postGroup } from '../helpers/groups';
import { seqUid as uid } from '../helpers/ids';
import { listenToNotifications, listNotifications, notificationsOf, notificationsPath, type Notification } from '../helpers/notifications';
import { asAdmin, authedGame, bearer, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * EXTENSIONS X9, the routes: the list (filters, keyset pages newest first), the unread counts,
 * marking read (ids or all, idempotent, only the player's own), dismissing, the signals the marks
 * send to the streams, and the keys' scopes.
 */

type Auth = Record<string, string>;

describe("a player's notifications: list, counts, read, dismiss (EXTENSIONS X9)", () => {
  let t: TestApp;
  let gameId: string;
  let auth: Auth;

  beforeAll(async () => {
    t = await startTestApp();
    ({ gameId, auth } = await authedGame(t, 'inbox'));
  });
  afterAll(() => t.close());

  const ok = async (method: 'post' | 'delete', path: string, body: object = {}, as: Auth = auth) => {
    const r = await t.http[method](path).set(as).send(body);
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const of = (userId: string, as: Auth = auth) => notificationsOf(t, as, userId);
  const counts = async (userId: string, as: Auth = auth) => {
    const r = await t.http.get(`${notificationsPath(userId)}/counts`).set(as);
    expect(r.status).toBe(200);
    return r.body as { unread: number; byKind: Record<string, number> };
  };
  const read = (userId: string, body: object, as: Auth = auth) => t.http.post(`${notificationsPath(userId)}/read`).set(as).send(body);
  const dismiss = (userId: string, id: string, as: Auth = auth) => t.http.delete(`${notificationsPath(userId)}/${encodeURIComponent(id)}`).set(as);

  /**
   * A player with `roleChanges` member.roles_changed notifications (alternately assigned and
   * removed), then one member.kicked, and one friend.request.received: newest first, the request,
   * the kick, then the role changes from the last.
   */
  async function player(roleChanges = 4, as: Auth = auth): Promise<{ userId: string; groupId: string; notifications: Notification[] }> {
    const userId = uid('p');
    const g = await postGroup<{ id: string }>(t, as, { kind: 'guild', name: 'G', visibility: 'public' });
    await joinOk(t, as, g.id, userId);
    const role = await ok('post', `/v1/groups/${g.id}/roles`, { name: 'r', priority: 1 }, as);
    const path = `/v1/groups/${g.id}/members/${encodeURIComponent(userId)}/roles/${role.id}`;
    for (let i = 0; i < roleChanges; i++) await ok(i % 2 === 0 ? 'post' : 'delete', path, {}, as);
    await ok('post', `/v1/groups/${g.id}/members/${encodeURIComponent(userId)}/kick`, { reason: 'bye' }, as);
    await sendPending(friendsClient(t, '', as.authorization.slice('Bearer '.length)), uid('friend'), userId);
    const notifications = await of(userId, as);
    expect(notifications).toHaveLength(roleChanges + 2);
    return { userId, groupId: g.id, notifications };
  }

  describe('GET /v1/users/:userId/notifications', () => {
    it('lists newest first, in keyset pages that neither repeat nor skip', async () => {
      const { userId, notifications } = await player(5);
      expect(notifications.map((n) => n.kind)).toEqual(['friend.request.received', 'member.kicked', ...Array(5).fill('member.roles_changed')]);
      const created = notifications.map((n) => Date.parse(n.createdAt));
      expect([...created].sort((a, b) => b - a)).toEqual(created);

      const pages: Notification[][] = [];
      let cursor: string | null = null;
      do {
        const page: { items: Notification[]; nextCursor: string | null } = await listNotifications(t, auth, userId, `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        pages.push(page.items);
        cursor = page.nextCursor;
      } while (cursor);
      expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
      expect(pages.flat()).toEqual(notifications);
    });

    it('unread=true keeps the unread; kinds keeps those kinds; both together', async () => {
      const { userId, notifications } = await player(3);
      const [request, kick] = notifications;
      expect((await read(userId, { ids: [kick.id] })).body).toEqual({ marked: 1 });

      const unread = await listNotifications(t, auth, userId, '?unread=true');
      expect(unread.items.map((n) => n.id)).toEqual(notifications.filter((n) => n.id !== kick.id).map((n) => n.id));
      expect((await listNotifications(t, auth, userId, '?unread=false')).items).toHaveLength(5);

      const kinds = await listNotifications(t, auth, userId, `?kinds=${encodeURIComponent('member.kicked, friend.request.received')}`);
      expect(kinds.items.map((n) => n.id)).toEqual([request.id, kick.id]);
      const both = await listNotifications(t, auth, userId, '?unread=true&kinds=member.kicked,friend.request.received');
      expect(both.items.map((n) => n.id)).toEqual([request.id]);
      expect((await listNotifications(t, auth, userId, '?kinds=group.ownership_received')).items).toEqual([]);
    });

    it('pages a filtered list too, and refuses its cursor under another filter or for another player', async () => {
      const { userId, notifications } = await player(4);
      const roleChanges = notifications.filter((n) => n.kind === 'member.roles_changed');
      const first = await listNotifications(t, auth, userId, '?kinds=member.roles_changed&limit=3');
      expect(first.items).toEqual(roleChanges.slice(0, 3));
      const cursor = encodeURIComponent(first.nextCursor!);
      expect((await listNotifications(t, auth, userId, `?kinds=member.roles_changed&limit=3&cursor=${cursor}`)).items).toEqual(roleChanges.slice(3));

      expectError(await t.http.get(`${notificationsPath(userId)}?cursor=${cursor}`).set(auth), 400, 'bad_request');
      expectError(await t.http.get(`${notificationsPath(userId)}?unread=true&kinds=member.roles_changed&cursor=${cursor}`).set(auth), 400, 'bad_request');
      expectError(await t.http.get(`${notificationsPath('someone else')}?kinds=member.roles_changed&cursor=${cursor}`).set(auth), 400, 'bad_request');
    });

    it.each([
      ['an unknown kind', '?kinds=member.left', 'kinds'],
      ['an empty kinds', '?kinds=', 'kinds'],
      ['unread that is not a boolean', '?unread=yes', 'unread'],
      ['a limit of 0', '?limit=0', 'limit'],
      ['a limit over the cap', '?limit=100000', 'limit'],
      ['a cursor that is no cursor', '?cursor=nope', 'cursor'],
    ])('400 naming the field for %s', async (_case, query, field) => {
      const r = await t.http.get(`${notificationsPath('anyone')}${query}`).set(auth);
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toContain(field);
    });

    it("an id the game has never seen: an empty page, never 404; another game's player is not this game's", async () => {
      expect(await listNotifications(t, auth, uid('never'))).toEqual({ items: [], nextCursor: null });
      const { userId } = await player(1);
      const other = await authedGame(t, 'other');
      expect(await listNotifications(t, other.auth, userId)).toEqual({ items: [], nextCursor: null });
      expect(await counts(userId, other.auth)).toEqual({ unread: 0, byKind: {} });
    });
  });

  describe('GET /v1/users/:userId/notifications/counts', () => {
    it('counts the unread in all and by kind, only kinds with some; zero counts for an id never seen', async () => {
      const { userId, notifications } = await player(3);
      expect(await counts(userId)).toEqual({ unread: 5, byKind: { 'member.roles_changed': 3, 'member.kicked': 1, 'friend.request.received': 1 } });
      await read(userId, { ids: [notifications[1].id] });
      expect(await counts(userId)).toEqual({ unread: 4, byKind: { 'member.roles_changed': 3, 'friend.request.received': 1 } });
      await read(userId, { all: true });
      expect(await counts(userId)).toEqual({ unread: 0, byKind: {} });
      expect(await counts(uid('never'))).toEqual({ unread: 0, byKind: {} });
    });

    it('a notification written through this instance is in its next counts: the writer drops the cached ones at commit, before its signal comes back', async () => {
      const { userId, groupId } = await player(0);
      const notified: { gameId: string; svcUserId: string }[] = [];
      const sub = t.app.get(EventBus).notified$.subscribe((p) => notified.push(p));
      try {
        const before = (await counts(userId)).unread;
        await joinOk(t, auth, groupId, userId);
        await ok('post', `/v1/groups/${groupId}/members/${encodeURIComponent(userId)}/kick`, {}, auth);
        // Reported by the unit of work before the kick was answered, not by the listener later.
        expect(notified).toEqual([{ gameId, svcUserId: expect.any(String) }]);
        expect((await counts(userId)).unread).toBe(before + 1);
      } finally {
        sub.unsubscribe();
      }
    });
  });

  describe('POST /v1/users/:userId/notifications/read', () => {
    it('ids: sets readAt on those still unread, and answers how many; again, nothing', async () => {
      const { userId, notifications } = await player(2);
      const ids = [notifications[0].id, notifications[2].id];
      expect((await read(userId, { ids })).body).toEqual({ marked: 2 });
      const after = await of(userId);
      const readAt = after.filter((n) => ids.includes(n.id)).map((n) => n.readAt);
      expect(readAt).toEqual([expect.any(String), expect.any(String)]);
      expect(after.filter((n) => !ids.includes(n.id)).every((n) => n.readAt === null)).toBe(true);

      const again = await read(userId, { ids: [...ids, ids[0]] });
      expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: { marked: 0 } });
      expect((await of(userId)).filter((n) => ids.includes(n.id)).map((n) => n.readAt)).toEqual(readAt);
    });

    it("counts nothing for an id of another player, of another game, or that names no notification, and leaves theirs unread", async () => {
      const mine = await player(1);
      const theirs = await player(1);
      const other = await authedGame(t, 'other game');
      const elsewhere = await player(1, other.auth);
      const foreign = [theirs.notifications[0].id, elsewhere.notifications[0].id, '0190f2a4-0000-7000-8000-000000000000', 'not-an-id'];
      expect((await read(mine.userId, { ids: foreign })).body).toEqual({ marked: 0 });
      // The other game's key cannot reach this game's player either.
      expect((await read(mine.userId, { ids: [mine.notifications[0].id] }, other.auth)).body).toEqual({ marked: 0 });
      expect((await of(theirs.userId)).every((n) => n.readAt === null)).toBe(true);
      expect((await of(elsewhere.userId, other.auth)).every((n) => n.readAt === null)).toBe(true);
      expect((await of(mine.userId)).every((n) => n.readAt === null)).toBe(true);
      expect((await read(mine.userId, { ids: [...foreign, mine.notifications[0].id] })).body).toEqual({ marked: 1 });
    });

    it("all: marks every unread notification of the player, and only theirs; again, nothing", async () => {
      const { userId, notifications } = await player(3);
      const other = await player(1);
      await read(userId, { ids: [notifications[0].id] });
      expect((await read(userId, { all: true })).body).toEqual({ marked: 4 });
      expect((await of(userId)).every((n) => n.readAt !== null)).toBe(true);
      expect((await read(userId, { all: true })).body).toEqual({ marked: 0 });
      expect((await of(other.userId)).every((n) => n.readAt === null)).toBe(true);
    });

    it('an id the game has never seen: 200, nothing marked', async () => {
      expect((await read(uid('never'), { all: true })).body).toEqual({ marked: 0 });
      expect((await read(uid('never'), { ids: ['0190f2a4-0000-7000-8000-000000000000'] })).body).toEqual({ marked: 0 });
    });

    it.each([
      ['neither ids nor all', {}, 'ids'],
      ['both', { ids: ['0190f2a4-0000-7000-8000-000000000000'], all: true }, 'ids'],
      ['no ids', { ids: [] }, 'ids'],
      ['101 ids', { ids: Array.from({ length: 101 }, (_, i) => `0190f2a4-0000-7000-8000-${String(i).padStart(12, '0')}`) }, 'ids'],
      ['ids that are not strings', { ids: [1] }, 'ids'],
      ['ids not a list', { ids: 'x' }, 'ids'],
      ['all false', { all: false }, 'all'],
      ['all a string', { all: 'true' }, 'all'],
    ])('400 naming the field for %s', async (_case, body, field) => {
      const r = await read('anyone', body);
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toContain(field);
    });

    it('takes 100 ids', async () => {
      const { userId, notifications } = await player(1);
      const ids = [...Array.from({ length: 99 }, (_, i) => `0190f2a4-0000-7000-8000-${String(i).padStart(12, '0')}`), notifications[0].id];
      expect((await read(userId, { ids })).body).toEqual({ marked: 1 });
    });

    it('tells the streams which were marked, with the commit, and nothing when nothing changed', async () => {
      const { userId, notifications } = await player(2);
      const [svc] = await t.db.query<{ user_id: string }>(`SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = $2`, [gameId, userId]);
      const listener = await listenToNotifications(t.db.url);
      try {
        await read(userId, { ids: [notifications[0].id, notifications[1].id] });
        await read(userId, { ids: [notifications[0].id] });
        const marked = await read(userId, { all: true });
        expect(marked.body).toEqual({ marked: 2 });
        await read(userId, { all: true });
        await waitFor(() => listener.payloads.length >= 2);
        await new Promise((r) => setTimeout(r, 150));
        const signals = listener.payloads.map((p) => JSON.parse(p));
        expect(signals).toEqual([
          { t: 'read', g: gameId, u: svc.user_id, ids: expect.arrayContaining([notifications[0].id, notifications[1].id]) },
          { t: 'read', g: gameId, u: svc.user_id, all: true, before: expect.any(String) },
        ]);
        expect(signals[0].ids).toHaveLength(2);
        const readAt = (await of(userId)).find((n) => n.id === notifications[2].id)!.readAt;
        expect(signals[1].before).toBe(readAt);
      } finally {
        await listener.close();
      }
    });
  });

  describe('DELETE /v1/users/:userId/notifications/:id', () => {
    it('204 dismisses one of the player\'s; then 404', async () => {
      const { userId, notifications } = await player(1);
      const r = await dismiss(userId, notifications[1].id);
      expect(r.status).toBe(204);
      expect((await of(userId)).map((n) => n.id)).toEqual([notifications[0].id, notifications[2].id]);
      expectError(await dismiss(userId, notifications[1].id), 404, 'not_found');
    });

    it("404 for another player's, another game's, or an id that is none; theirs stay", async () => {
      const mine = await player(1);
      const theirs = await player(1);
      const other = await authedGame(t, 'other game 2');
      expectError(await dismiss(mine.userId, theirs.notifications[0].id), 404, 'not_found');
      expectError(await dismiss(mine.userId, mine.notifications[0].id, other.auth), 404, 'not_found');
      expectError(await dismiss(mine.userId, 'not-an-id'), 404, 'not_found');
      expectError(await dismiss(uid('never'), mine.notifications[0].id), 404, 'not_found');
      expect(await of(theirs.userId)).toEqual(theirs.notifications);
      expect(await of(mine.userId)).toEqual(mine.notifications);
    });

    it('an unread one dismissed is no longer unread: the streams hear of it as of a read; a read one, nothing', async () => {
      const { userId, notifications } = await player(1);
      await read(userId, { ids: [notifications[0].id] });
      const listener = await listenToNotifications(t.db.url);
      try {
        expect((await dismiss(userId, notifications[0].id)).status).toBe(204);
        expect((await dismiss(userId, notifications[1].id)).status).toBe(204);
        await waitFor(() => listener.payloads.length >= 1);
        await new Promise((r) => setTimeout(r, 150));
        expect(listener.payloads.map((p) => JSON.parse(p))).toEqual([{ t: 'read', g: gameId, u: expect.any(String), ids: [notifications[1].id] }]);
      } finally {
        await listener.close();
      }
    });
  });

  describe('API key scopes', () => {
    it('a read-only key lists and counts; marking and dismissing need the write scope (403)', async () => {
      const { userId, notifications } = await player(1);
      const minted = await t.http.post(`/v1/admin/games/${gameId}/api-keys`).set(asAdmin).send({ scopes: ['read'] });
      expect(minted.status).toBe(201);
      const reader = bearer(minted.body.key);
      expect(await of(userId, reader)).toEqual(notifications);
      expect((await counts(userId, reader)).unread).toBe(3);
      expectError(await read(userId, { all: true }, reader), 403, 'permission_denied');
      expectError(await dismiss(userId, notifications[0].id, reader), 403, 'permission_denied');
      expect((await counts(userId)).unread).toBe(3);
      expectError(await t.http.get(notificationsPath(userId)), 401, 'invalid_api_key');
    });
  });
});

async function waitFor(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
