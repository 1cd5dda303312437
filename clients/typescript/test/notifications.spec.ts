import { dismissNotification, GuildhallError, listNotifications, markNotificationsRead, notificationCounts, paginate, type Notification } from '../src/index.js';
import { seenPlayer } from './notifications-support';
import { gameClient, rejection, startService, type Service } from './support';

/** The notification calls (EXTENSIONS X9) against the real service: list, counts, read, dismiss. */
let s: Service;
beforeAll(async () => {
  s = await startService({ WEBHOOK_WORKER_ENABLED: 'false' });
});
afterAll(() => s.t.close());

describe('notification calls', () => {
  it('lists newest first with unread and kinds, pages with limit and cursor, and paginate reads them all', async () => {
    const g = await gameClient(s);
    const p = await seenPlayer(g);
    await p.invite(5);
    const all = await listNotifications(g.client, p.userId);
    expect(all.items).toHaveLength(5);
    expect(all.items[0]).toMatchObject({ kind: 'invitation.received', userId: p.userId, actorUserId: 'captain', readAt: null, data: { group: { name: 'Night Watch' } } });

    const first = await listNotifications(g.client, p.userId, { limit: 2 });
    const second = await listNotifications(g.client, p.userId, { limit: 2, cursor: first.nextCursor! });
    expect([...first.items, ...second.items]).toEqual(all.items.slice(0, 4));
    const paged: Notification[] = [];
    for await (const n of paginate(g.client, '/v1/users/{userId}/notifications', { params: { path: { userId: p.userId }, query: { limit: 2 } } })) paged.push(n);
    expect(paged).toEqual(all.items);

    await markNotificationsRead(g.client, p.userId, { ids: [all.items[0].id] });
    expect((await listNotifications(g.client, p.userId, { unread: true })).items.map((n) => n.id)).toEqual(all.items.slice(1).map((n) => n.id));
    expect((await listNotifications(g.client, p.userId, { unread: false })).items).toHaveLength(5);
    expect((await listNotifications(g.client, p.userId, { kinds: ['member.kicked', 'invitation.received'] })).items).toHaveLength(5);
    expect((await listNotifications(g.client, p.userId, { kinds: ['member.kicked'] })).items).toEqual([]);
  });

  it('counts the unread; marks by ids or all answer how many; dismiss deletes one', async () => {
    const g = await gameClient(s);
    const p = await seenPlayer(g);
    await p.invite(4);
    expect(await notificationCounts(g.client, p.userId)).toEqual({ unread: 4, byKind: { 'invitation.received': 4 } });
    const { items } = await listNotifications(g.client, p.userId);

    expect(await markNotificationsRead(g.client, p.userId, { ids: [items[0].id, items[1].id] })).toBe(2);
    expect(await markNotificationsRead(g.client, p.userId, { ids: [items[0].id] })).toBe(0);
    expect((await notificationCounts(g.client, p.userId)).unread).toBe(2);
    await dismissNotification(g.client, p.userId, items[2].id);
    expect((await notificationCounts(g.client, p.userId)).unread).toBe(1);
    expect(await markNotificationsRead(g.client, p.userId, { all: true })).toBe(1);
    expect(await notificationCounts(g.client, p.userId)).toEqual({ unread: 0, byKind: {} });
    expect((await listNotifications(g.client, p.userId)).items.map((n) => n.id)).toEqual([items[0].id, items[1].id, items[3].id]);
  });

  it('a player the game never saw: an empty page, zero counts, nothing marked', async () => {
    const g = await gameClient(s);
    expect(await listNotifications(g.client, 'never-seen')).toEqual({ items: [], nextCursor: null });
    expect(await notificationCounts(g.client, 'never-seen')).toEqual({ unread: 0, byKind: {} });
    expect(await markNotificationsRead(g.client, 'never-seen', { all: true })).toBe(0);
  });

  it('error answers throw GuildhallError: a dismissal of what is not the player’s (404), a cursor of other filters (400)', async () => {
    const g = await gameClient(s);
    const p = await seenPlayer(g);
    await p.invite(3);
    const { items } = await listNotifications(g.client, p.userId);
    const notTheirs = await rejection(dismissNotification(g.client, 'someone-else', items[0].id));
    expect(notTheirs).toBeInstanceOf(GuildhallError);
    expect(notTheirs).toMatchObject({ status: 404, code: 'not_found' });
    const { nextCursor } = await listNotifications(g.client, p.userId, { limit: 1 });
    expect(await rejection(listNotifications(g.client, p.userId, { unread: true, cursor: nextCursor! }))).toMatchObject({ status: 400, code: 'bad_request' });
  });
});
