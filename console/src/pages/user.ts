import { can } from '../access';
import { api, apiFile } from '../api';
import { fill, h, type Child } from '../dom';
import { when } from '../format';
import type { PageContext } from '../page';
import { go, href, hrefWith } from '../router';
import type { AdminUser, Ban, CursorPage, Erasure, UserGames, UserMembership, UserNotification } from '../types';
import { badge, cursorPager, empty, errorBox, idCode, labelled, load, loading, pageHeader, table } from '../ui';
import { headline } from './headline';
import { removedTable } from './erasure';
import { gameBanActions } from './user-ban';
import { notificationsQuery, notificationsSection } from './user-notifications';

const MEMBERSHIPS_PAGE = 25;

/** The path of a user's page in the admin API (the id as the game uses it, escaped). */
export const userApiPath = (gameId: string, userId: string): string => `/v1/admin/games/${gameId}/users/${encodeURIComponent(userId)}`;

/** The console route of a user's page. */
export const userHref = (gameId: string, userId: string): string => href(['games', gameId, 'users', userId]);

/**
 * One user of a game: who they are there, their memberships (25 a page), their bans, the size of
 * their friends graph and their notifications (25 a page); Export downloads everything the game
 * holds about them, Erase removes it.
 * Without a user id: `?svcUserId=` opens the page of an internal id (an audit entry's actor), else
 * a form to find a user.
 */
export async function userPage(ctx: PageContext): Promise<void> {
  if (ctx.params.userId) return userView(ctx);
  const svcUserId = ctx.route.query.get('svcUserId');
  if (svcUserId) return internalUser(ctx, svcUserId);
  ctx.main.append(pageHeader('Find a user'), findUserForm(ctx.params.gameId));
}

/** The "Find a user" form: opens the page of the id the game uses. */
export function findUserForm(gameId: string): HTMLElement {
  const input = h('input', { name: 'userId', type: 'search', autocomplete: 'off', spellcheck: 'false', required: true, size: 30, placeholder: 'the user id the game uses' });
  return h(
    'form',
    {
      class: 'inline filters',
      role: 'search',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const userId = input.value.trim();
        if (userId) go(userHref(gameId, userId));
      },
    },
    labelled('Find a user', input),
    h('button', { type: 'submit' }, 'Open'),
  );
}

/** An internal id (as audit entries name their actor): the page of its external id in this game. */
async function internalUser({ main, params, signal }: PageContext, svcUserId: string): Promise<void> {
  const out = h('section', { 'aria-label': 'User' });
  main.append(pageHeader('User'), out);
  await load(out, async () => {
    const { games } = await api<UserGames>(`/v1/users/${encodeURIComponent(svcUserId)}/games`, { signal });
    const here = games.find((g) => g.gameId === params.gameId);
    if (!here) return [empty('This internal id has no user in this game (an erased user has none).'), h('p', {}, 'Internal id ', h('code', {}, svcUserId))];
    // Replace, not push: Back goes to where the link was, not to this hop.
    location.replace(userHref(params.gameId, here.externalUserId));
    return loading('Opening the user');
  }, 'Finding the user');
}

async function userView({ main, params, route, signal, rerender }: PageContext): Promise<void> {
  const { gameId, userId } = params;
  const cursor = route.query.get('cursor') ?? '';
  const page = h('section', { 'aria-label': 'User' });
  main.append(page);
  await load(page, async () => {
    const [user, notifications] = await Promise.all([
      api<AdminUser>(userApiPath(gameId, userId), { query: { limit: MEMBERSHIPS_PAGE, cursor }, signal }),
      api<CursorPage<UserNotification>>(`${userApiPath(gameId, userId)}/notifications`, { query: notificationsQuery(route), signal }),
    ]);
    document.title = `${user.userId} · Guildhall console`;
    const status = h('div', { class: 'user-status', 'aria-live': 'polite' });
    const gone = (erasure: Erasure) => fill(page, ...erasedView(gameId, user, erasure));
    return [
      pageHeader(
        user.userId,
        h('p', { class: 'muted' }, 'Internal id ', idCode(user.svcUserId), ` · first seen ${when(user.firstSeenAt)}`),
        h(
          'div',
          { class: 'toolbar' },
          h('button', { type: 'button', onclick: () => void exportUser(gameId, user.userId, status) }, 'Export'),
          can('eraseUser') && h('button', { type: 'button', class: 'danger', onclick: () => openErase(gameId, user.userId, status, gone) }, 'Erase'),
        ),
        status,
      ),
      headline([
        ['Friends', user.friendsCount],
        ['Requests sent', user.requestsSent],
        ['Requests received', user.requestsReceived],
        ['Blocks', user.blocks],
        ['Blocked by', user.blockedBy],
        ['Group bans in force', user.groupBans],
      ]),
      h('h2', {}, 'Game-wide ban'),
      gameBan(gameId, user.gameBan),
      gameBanActions(gameId, user.userId, user.gameBan, rerender),
      h('h2', {}, 'Memberships'),
      memberships(gameId, user.memberships.items),
      cursorPager(!cursor, hrefWith(route, { cursor: '' }), user.memberships.nextCursor ? hrefWith(route, { cursor: user.memberships.nextCursor }) : null, ['⇤ Newest', 'Older →'], 'Membership pages'),
      notificationsSection(gameId, route, notifications),
      h(
        'p',
        { class: 'links' },
        h('a', { href: href(['games', gameId, 'audit'], { targetId: user.userId.length <= 255 ? user.userId : '' }) }, 'Audit entries about this user'),
        ' · ',
        h('a', { href: href(['games', gameId, 'audit'], { actorUserId: user.svcUserId }) }, 'Audit entries by this user'),
      ),
    ];
  }, 'Loading the user');
}

function gameBan(gameId: string, ban: Ban | null): HTMLElement {
  if (!ban) return empty('Not banned from this game.');
  return h(
    'dl',
    { class: 'group-settings', 'aria-label': 'Game-wide ban' },
    h('dt', {}, 'Banned'),
    h('dd', {}, badge('banned', 'bad'), ' ', when(ban.bannedAt)),
    h('dt', {}, 'Expires'),
    h('dd', {}, ban.expiresAt ? when(ban.expiresAt) : 'never'),
    h('dt', {}, 'Reason'),
    h('dd', {}, ban.reason ?? '—'),
    h('dt', {}, 'By'),
    h('dd', {}, ban.bannedBy ? h('code', {}, ban.bannedBy) : '—'),
    h('dt', {}, 'All bans'),
    h('dd', {}, h('a', { href: href(['games', gameId, 'bans']) }, 'the game’s bans')),
  );
}

function memberships(gameId: string, items: UserMembership[]): HTMLElement {
  if (items.length === 0) return empty('Not a member of any group of this game.');
  return table('Memberships', [
    {
      label: 'Group',
      // A soft-deleted group has no page (the admin group routes answer 404 for it).
      cell: (m) => (m.groupSoftDeleted ? [m.groupName, ' ', badge('deleted')] : h('a', { href: href(['games', gameId, 'groups', m.groupId]) }, m.groupName)),
    },
    { label: 'Kind', cell: (m) => m.groupKind },
    {
      label: 'Status',
      cell: memberStatus,
    },
    { label: 'Roles', cell: (m) => (m.roles.length ? m.roles.map((r) => badge(r.name)) : '—') },
    { label: 'Joined', cell: (m) => when(m.joinedAt) },
    { label: 'Left', cell: (m) => when(m.leftAt) },
  ], items);
}

/** Downloads the user's export (the admin twin of GET /v1/users/:userId/export) as `<userId>.json`. */
async function exportUser(gameId: string, userId: string, status: HTMLElement): Promise<void> {
  fill(status, loading('Exporting'));
  try {
    const file = await apiFile(`${userApiPath(gameId, userId)}/export`, 'application/json');
    const url = URL.createObjectURL(file);
    const link = h('a', { href: url, download: `${userId}.json`, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    // The download has started from the link; the object URL can go once it has been read.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    fill(status, h('p', { class: 'state done', role: 'status' }, `Exported ${userId}.json`));
  } catch (err) {
    fill(status, errorBox(err));
  }
}

/**
 * The erasure's confirmation: a dialog whose button enables only once the user's id is typed
 * exactly. Erasing cannot be undone, so it is never one click.
 */
function openErase(gameId: string, userId: string, status: HTMLElement, erased: (e: Erasure) => void): void {
  const input = h('input', { name: 'confirm', autocomplete: 'off', spellcheck: 'false' });
  const confirm = h('button', { type: 'submit', class: 'danger', disabled: true }, 'Erase this user');
  const problem = h('div', { 'aria-live': 'polite' });
  input.addEventListener('input', () => {
    confirm.disabled = input.value !== userId;
  });
  const dialog: HTMLDialogElement = h(
    'dialog',
    { class: 'confirm', 'aria-labelledby': 'erase-h' },
    h('h2', { id: 'erase-h' }, 'Erase this user?'),
    h(
      'p',
      {},
      'Everything this game holds about ',
      h('code', {}, userId),
      ' is removed: memberships, friendships, friend requests, blocks, tags, invitations, join requests and bans. Audit entries, events and pending webhook deliveries that name the user name a pseudonym instead. This cannot be undone.',
    ),
    h(
      'form',
      {
        onsubmit: async (event: Event) => {
          event.preventDefault();
          if (input.value !== userId) return;
          confirm.disabled = true;
          fill(problem, loading('Erasing'));
          try {
            const erasure = await api<Erasure>(userApiPath(gameId, userId), { method: 'DELETE' });
            dialog.close();
            fill(status);
            erased(erasure);
          } catch (err) {
            fill(problem, errorBox(err));
            confirm.disabled = input.value !== userId;
          }
        },
      },
      labelled('Type the user id to confirm', input, 'exactly as shown above'),
      problem,
      h('div', { class: 'toolbar' }, h('button', { type: 'button', onclick: () => dialog.close() }, 'Cancel'), confirm),
    ),
  );
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  input.focus();
}

/** The page once the user is erased: the pseudonym and what was removed; the user is gone. */
function erasedView(gameId: string, user: AdminUser, e: Erasure): Child[] {
  return [
    pageHeader(user.userId, h('p', {}, badge('erased', 'bad'))),
    h(
      'div',
      { class: 'card erased', role: 'status' },
      h('p', {}, h('strong', {}, 'This user is gone. '), `The game no longer knows ${e.userId}: the same id from now on is a new user with no past.`),
      h('p', {}, 'Audit entries and events that named them now name the pseudonym ', h('code', { 'data-testid': 'pseudonym' }, e.pseudonym), `. Erased ${when(e.erasedAt)}.`),
    ),
    h('h2', {}, 'Removed'),
    removedTable(e.removed),
    h('p', { class: 'links' }, h('a', { href: href(['games', gameId, 'audit'], { actions: 'user.erased' }) }, 'The erasure in the audit log')),
  ];
}

/** A membership's status, as the user page and a group's member list show it: a ban says until when. */
export function memberStatus(m: { status: string; bannedUntil: string | null }): Child {
  return [
    badge(m.status, m.status === 'active' ? 'ok' : m.status === 'banned' || m.status === 'kicked' ? 'bad' : 'neutral'),
    m.status === 'banned' && [' ', m.bannedUntil ? ['until ', when(m.bannedUntil)] : 'without end'],
  ];
}
