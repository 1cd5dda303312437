import { h, type Child } from '../dom';
import { when } from '../format';
import { href, hrefWith, type Route } from '../router';
import type { CursorPage, UserNotification } from '../types';
import { badge, cursorPager, empty, table } from '../ui';

/** Notifications shown a page on the user page. */
export const NOTIFICATIONS_PAGE = 25;

/** The route's query names of the notifications' page and filter (the memberships page by `cursor`). */
const CURSOR = 'notificationsCursor';
const FILTER = 'notifications';

/** The query of GET …/users/:externalUserId/notifications that the route asks for. */
export function notificationsQuery(route: Route): Record<string, string | number> {
  return {
    limit: NOTIFICATIONS_PAGE,
    cursor: route.query.get(CURSOR) ?? '',
    unread: route.query.get(FILTER) === 'unread' ? 'true' : '',
  };
}

/**
 * The player's notifications (EXTENSIONS X9), newest first, 25 a page: kind, group, who caused it,
 * when, and whether the player has read it. An operator only reads them: read state is the player's.
 */
export function notificationsSection(gameId: string, route: Route, page: CursorPage<UserNotification>): Child[] {
  const unreadOnly = route.query.get(FILTER) === 'unread';
  // A filter change starts from the newest page: a cursor belongs to its filter.
  const filter = h(
    'p',
    { class: 'links' },
    unreadOnly ? h('a', { href: hrefWith(route, { [FILTER]: '', [CURSOR]: '' }) }, 'All') : h('strong', { 'aria-current': 'true' }, 'All'),
    ' · ',
    unreadOnly ? h('strong', { 'aria-current': 'true' }, 'Unread') : h('a', { href: hrefWith(route, { [FILTER]: 'unread', [CURSOR]: '' }) }, 'Unread'),
  );
  const onFirst = !route.query.get(CURSOR);
  return [
    h('h2', {}, 'Notifications'),
    filter,
    page.items.length
      ? table('Notifications', [
          { label: 'Kind', cell: (n) => h('code', {}, n.kind) },
          { label: 'Group', cell: (n) => (n.groupId ? h('a', { href: href(['games', gameId, 'groups', n.groupId]) }, n.data.group?.name ?? n.groupId) : '—') },
          { label: 'By', cell: (n) => (n.actorUserId ? h('a', { href: href(['games', gameId, 'users', n.actorUserId]) }, n.actorUserId) : '—') },
          { label: 'Created', cell: (n) => when(n.createdAt) },
          { label: 'Read', cell: (n) => (n.readAt ? ['read ', when(n.readAt)] : badge('unread', 'warn')) },
        ], page.items)
      : empty(unreadOnly ? 'No unread notifications.' : onFirst ? 'No notifications.' : 'No older notifications.'),
    (!onFirst || page.nextCursor) &&
      cursorPager(onFirst, hrefWith(route, { [CURSOR]: '' }), page.nextCursor ? hrefWith(route, { [CURSOR]: page.nextCursor }) : null, undefined, 'Notification pages'),
  ];
}
