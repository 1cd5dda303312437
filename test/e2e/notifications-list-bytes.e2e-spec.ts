import { NOTIFICATION_COLUMNS, type NotificationRow } from '../../src/notifications/notification-row';
import { toNotificationDto } from '../../src/notifications/notification-view';
import { joinOk, postGroup } from '../helpers/groups';
import { seqUid as uid } from '../helpers/ids';
import { notificationsPath } from '../helpers/notifications';
import { rawJson } from '../helpers/raw-json';
import { asAdmin, authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The list writes its JSON itself (notificationJson): its bytes are those JSON.stringify writes of
 * the Notifications the stream reads, with `data` holding what would need escaping, an erased
 * actor, a read one and one unread; on the game route and its admin twin.
 */
describe("a player's notification list, byte for byte", () => {
  let t: TestApp;
  let gameId: string;
  let auth: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp();
    ({ gameId, auth } = await authedGame(t, 'list bytes'));
  });
  afterAll(() => t.close());

  it('answers what JSON.stringify writes of the stream\'s Notifications', async () => {
    const userId = uid('p "\\ 漢');
    const g = await postGroup<{ id: string }>(t, auth, { kind: 'guild', name: 'G', visibility: 'public' });
    await joinOk(t, auth, g.id, userId);
    for (const reason of ['first', 'second']) {
      expect((await t.http.post(`/v1/groups/${g.id}/members/${encodeURIComponent(userId)}/kick`).set(auth).send({ reason })).status).toBe(200);
      await joinOk(t, auth, g.id, userId);
    }
    const tricky = { group: { id: g.id, name: 'a", "b: c, d \\', kind: '\\"\\\\' }, reason: 'tab\tnl\n\u0001 é😀 \u2028', expiresAt: null };
    await t.db.query(
      `UPDATE notifications SET data = $2::jsonb, actor_user_id = NULL, actor_pseudonym = 'erased: "x", \\'
       WHERE id = (SELECT id FROM notifications WHERE game_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1)`,
      [gameId, JSON.stringify(tricky)],
    );
    await t.db.query(`UPDATE notifications SET read_at = now() WHERE id = (SELECT id FROM notifications WHERE game_id = $1 ORDER BY created_at, id LIMIT 1)`, [gameId]);
    const rows = await t.db.query<NotificationRow>(`SELECT ${NOTIFICATION_COLUMNS} FROM notifications n WHERE n.game_id = $1 ORDER BY n.created_at DESC, n.id DESC`, [gameId]);
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.readAt === null)).toEqual([true, false]);
    const items = rows.map(toNotificationDto);

    for (const path of [notificationsPath(userId), `/v1/admin/games/${gameId}/users/${encodeURIComponent(userId)}/notifications`]) {
      const as = path.startsWith('/v1/admin') ? asAdmin : auth;
      const all = await rawJson(t, path, as);
      expect(all).toBe(JSON.stringify({ items, nextCursor: null }));
      const first = await rawJson(t, `${path}?limit=1`, as);
      const { nextCursor } = JSON.parse(first) as { nextCursor: string };
      expect(first).toBe(JSON.stringify({ items: items.slice(0, 1), nextCursor }));
      expect(await rawJson(t, `${path}?limit=1&cursor=${encodeURIComponent(nextCursor)}`, as)).toBe(JSON.stringify({ items: items.slice(1), nextCursor: null }));
    }
  });
});
