// The notification read rows (EXTENSIONS X9): a player with 1,000 notifications, all unread, seeded
// straight through SQL; their unread counts and the first page of their list, each a read row (so
// its SQL alone is measured after it, as for the other lists).
import { GAME_ID, groupUuid, userUuid } from './seed.mjs';

/** The notifications a player may hold at most (the sweep trims the rest): the rows' player holds as many. */
export const NOTIFICATIONS_HELD = 1000;

/** Kinds written to the player, in turn; the group ones carry a group, the friends ones none. */
const KINDS = ['invitation.received', 'member.roles_changed', 'join_request.approved', 'member.kicked', 'friend.request.received', 'group.ownership_received'];

/**
 * Seeds the player's notifications, checks the service answers them, and returns
 * `{ rowsFor(base), pageParams }` as readScenarios does. `q` is a client of the database, `api`
 * calls the server with the game's key `key`.
 */
export async function notificationReadScenarios({ q, api, sizes, key }) {
  // Outside the 1,000 players of the notification streams' row (the last seeded users).
  const n = sizes.users > 2 * NOTIFICATIONS_HELD ? sizes.users - NOTIFICATIONS_HELD - 1 : Math.floor(sizes.users / 2);
  const userId = `p${n}`;
  // One a minute back from now, newest first in created_at; a third caused by another player.
  await q.query(
    `INSERT INTO notifications (id, game_id, user_id, kind, group_id, actor_user_id, data, created_at)
     SELECT svc_uuidv7(), $1, $2, k.kind, CASE WHEN k.kind LIKE 'friend.%' THEN NULL ELSE $3::uuid END,
            CASE WHEN i % 3 = 0 THEN $4::uuid END,
            CASE WHEN k.kind LIKE 'friend.%' THEN jsonb_build_object('requestId', NULL, 'status', 'accepted')
                 ELSE jsonb_build_object('group', jsonb_build_object('id', $3::uuid, 'name', 'bench group', 'kind', 'guild')) END,
            now() - i * interval '1 minute'
     FROM generate_series(0, $5::int - 1) i, LATERAL (SELECT ($6::text[])[1 + i % cardinality($6::text[])] AS kind) k`,
    [GAME_ID, userUuid(n), groupUuid(1), userUuid(n + 1), NOTIFICATIONS_HELD, KINDS],
  );
  // Vacuumed, as the seed leaves every table: the rows that read these measure settled pages from
  // their first run (see permission-scenarios.mjs).
  await q.query('VACUUM (ANALYZE) notifications');
  const base = `/v1/users/${userId}/notifications`;
  const counts = await api('GET', `${base}/counts`, undefined, 200);
  if (counts.unread !== NOTIFICATIONS_HELD) throw new Error(`notification counts: unexpected ${JSON.stringify(counts)}`);
  const page = await api('GET', base, undefined, 200);
  if (page.items.length !== 50 || !page.nextCursor) throw new Error(`notification list: unexpected page of ${page.items.length}`);

  const headers = { authorization: `Bearer ${key}` };
  const held = NOTIFICATIONS_HELD.toLocaleString('en-US');
  const rowsFor = (at) => [
    {
      key: 'notificationCounts',
      name: `Notification counts of a player with ${held} notifications, all unread (\`GET …/notifications/counts\`)`,
      target: { url: `${at}${base}/counts`, headers },
    },
    {
      key: 'notificationsFirst',
      name: `Notification list of the same player, first page (50 of ${held}, newest first)`,
      target: { url: `${at}${base}`, headers },
    },
  ];
  const params = { gameId: GAME_ID, userId };
  return { rowsFor, pageParams: { notificationCounts: params, notificationsFirst: params } };
}
