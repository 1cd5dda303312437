import { can } from '../access';
import { api } from '../api';
import { confirmAction } from '../confirm';
import { field, h, type Child } from '../dom';
import { when } from '../format';
import type { PageContext } from '../page';
import { hrefWith } from '../router';
import type { CursorPage, Group, JoinRequest, Member } from '../types';
import { cursorPager, empty, flash, labelled, table } from '../ui';
import { banBody, banFields, reasonBody, reasonField } from './ban-fields';
import { userHref } from './user';

/**
 * What a moderator does on a group's page, through the admin twins of the game's moderation
 * routes: kick, ban and unban members, decide join requests, delete and restore the group. Each
 * change asks for confirmation first, then redraws the page with a line saying what it did.
 */
export interface GroupScope {
  gameId: string;
  groupId: string;
  /** The group's admin path, /v1/admin/games/:gameId/groups/:groupId. */
  base: string;
  rerender: () => Promise<void>;
}

const code = (text: string) => h('code', {}, text);

/** Whether a member list shows an Actions column: only when the role may act on a member. */
export const anyMemberAction = (): boolean => can('kickMember') || can('banFromGroup') || can('unbanFromGroup');

/** A member's buttons, as far as the role and the member's status allow. */
export function memberActions(scope: GroupScope, m: Member): Child {
  const user = m.externalUserId;
  const path = encodeURIComponent(user);
  const buttons: HTMLElement[] = [];
  if (m.status === 'active' && can('kickMember')) {
    buttons.push(actionButton(`Kick ${user}`, 'Kick', () => confirmAction({
      title: 'Kick this member?',
      text: [code(user), ' stops being an active member of the group. They may join again (a ban keeps them out).'],
      confirm: `Kick ${user}`,
      fields: [reasonField()],
      run: async (form) => {
        await api(`${scope.base}/members/${path}/kick`, { method: 'POST', body: reasonBody(form) });
        flash(`Kicked ${user}.`);
      },
    }), scope));
  }
  if (m.status !== 'banned' && can('banFromGroup')) {
    buttons.push(actionButton(`Ban ${user} from the group`, 'Ban', () => confirmAction({
      title: 'Ban from this group?',
      text: [code(user), ' leaves the group if a member, and cannot join, be invited or ask to join until the ban ends or is lifted.'],
      confirm: `Ban ${user}`,
      fields: banFields(),
      run: async (form) => {
        await api(`${scope.base}/bans`, { method: 'POST', body: banBody(form, user) });
        flash(`Banned ${user} from the group.`);
      },
    }), scope));
  }
  if (m.status === 'banned' && can('unbanFromGroup')) {
    buttons.push(actionButton(`Lift the ban of ${user}`, 'Unban', () => confirmAction({
      title: 'Lift this group ban?',
      text: [code(user), ' becomes a former member (left) and may join, be invited or ask to join again.'],
      confirm: `Unban ${user}`,
      run: async () => {
        await api(`${scope.base}/bans/${path}`, { method: 'DELETE' });
        flash(`Lifted the group ban of ${user}.`);
      },
    }), scope));
  }
  return buttons.length ? h('div', { class: 'row-actions' }, buttons) : '—';
}

/** Ban any user id from the group, member or not (the banned members tab), when the role may. */
export function banUserButton(scope: GroupScope): Child {
  if (!can('banFromGroup')) return null;
  return h('button', {
    type: 'button',
    class: 'danger',
    onclick: async () => {
      const userId = h('input', { name: 'userId', required: true, autocomplete: 'off', spellcheck: 'false' });
      const done = await confirmAction({
        title: 'Ban a user from this group?',
        text: 'The user leaves the group if a member, and cannot join, be invited or ask to join until the ban ends or is lifted.',
        confirm: 'Ban the user',
        fields: [labelled('User id', userId, 'the id the game uses'), ...banFields()],
        run: async (form) => {
          const user = field(form, 'userId');
          await api(`${scope.base}/bans`, { method: 'POST', body: banBody(form, user) });
          flash(`Banned ${user} from the group.`);
        },
      });
      if (done) await scope.rerender();
    },
  }, 'Ban a user');
}

/** A button opening a confirmation; the page redraws once the change is made. */
function actionButton(label: string, text: string, ask: () => Promise<boolean>, scope: GroupScope): HTMLElement {
  return h('button', { type: 'button', class: 'danger', 'aria-label': label, onclick: async () => (await ask()) && scope.rerender() }, text);
}

/** The group's Delete button (soft delete: it stays restorable), when the role may. */
export function deleteButton(scope: GroupScope, g: Group): Child {
  if (!can('deleteGroup')) return null;
  return h('button', {
    type: 'button',
    class: 'danger',
    onclick: async () => {
      const done = await confirmAction({
        title: 'Delete this group?',
        text: ['The group ', h('strong', {}, g.name), ' disappears from the game: its members no longer see it, it is not found, and its page here answers 404. It can be restored for 7 days; after that it is gone for good.'],
        confirm: 'Delete the group',
        run: async () => {
          await api<Group>(scope.base, { method: 'DELETE' });
          flash(`Deleted ${g.name}. Restore it from this page within 7 days.`);
        },
      });
      if (done) await scope.rerender();
    },
  }, 'Delete group');
}

/**
 * A group the admin routes do not find: it may be deleted (and restorable for 7 days) or may never
 * have been. The restore button says so; the service answers 404 for a group it cannot restore.
 */
export function restorePanel(scope: GroupScope): Child {
  if (!can('restoreGroup')) return null;
  return h(
    'div',
    { class: 'card deleted-group' },
    h('p', {}, 'A deleted group answers 404 here. If this one was deleted in the last 7 days, it can be restored with its members, roles and bans as they were.'),
    h('button', {
      type: 'button',
      onclick: async () => {
        const done = await confirmAction({
          title: 'Restore this group?',
          text: ['The group ', code(scope.groupId), ' comes back as it was when deleted: visible, found, with its members, roles and bans.'],
          confirm: 'Restore the group',
          run: async () => {
            const g = await api<Group>(`${scope.base}/restore`, { method: 'POST' });
            flash(`Restored ${g.name}.`);
          },
        });
        if (done) await scope.rerender();
      },
    }, 'Restore group'),
  );
}

/** The group's pending join requests, newest first, with Approve and Decline when the role may. */
export async function joinRequests(scope: GroupScope, route: PageContext['route'], signal: AbortSignal): Promise<Child> {
  const cursor = route.query.get('cursor') ?? '';
  const page = await api<CursorPage<JoinRequest>>(`${scope.base}/join-requests`, { query: { status: 'pending', limit: 50, cursor }, signal });
  if (page.items.length === 0) return empty(cursor ? 'No more pending join requests.' : 'No pending join requests.');
  const decides = can('approveJoinRequest') || can('declineJoinRequest');
  return [
    table('Join requests', [
      { label: 'User', cell: (r) => h('a', { href: userHref(scope.gameId, r.userId) }, code(r.userId)) },
      { label: 'Message', cell: (r) => r.message ?? '—' },
      { label: 'Asked', cell: (r) => when(r.createdAt) },
      ...(decides ? [{ label: 'Actions', cell: (r: JoinRequest) => requestActions(scope, r) }] : []),
    ], page.items),
    cursorPager(!cursor, hrefWith(route, { cursor: '' }), page.nextCursor ? hrefWith(route, { cursor: page.nextCursor }) : null),
  ];
}

function requestActions(scope: GroupScope, r: JoinRequest): HTMLElement {
  const path = `/v1/admin/games/${scope.gameId}/join-requests/${encodeURIComponent(r.id)}`;
  return h(
    'div',
    { class: 'row-actions' },
    can('approveJoinRequest') && h('button', {
      type: 'button',
      'aria-label': `Approve ${r.userId}`,
      onclick: async () => (await confirmAction({
        title: 'Approve this join request?',
        text: [code(r.userId), ' becomes an active member of the group now.'],
        confirm: `Approve ${r.userId}`,
        run: async () => {
          await api(`${path}/approve`, { method: 'POST' });
          flash(`Approved ${r.userId}: now a member.`);
        },
      })) && scope.rerender(),
    }, 'Approve'),
    can('declineJoinRequest') && h('button', {
      type: 'button',
      class: 'danger',
      'aria-label': `Decline ${r.userId}`,
      onclick: async () => (await confirmAction({
        title: 'Decline this join request?',
        text: [code(r.userId), ' does not join; they may ask again.'],
        confirm: `Decline ${r.userId}`,
        fields: [reasonField()],
        run: async (form) => {
          await api(`${path}/decline`, { method: 'POST', body: reasonBody(form) });
          flash(`Declined the request of ${r.userId}.`);
        },
      })) && scope.rerender(),
    }, 'Decline'),
  );
}
