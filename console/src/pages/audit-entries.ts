import { h, type Child } from '../dom';
import { when } from '../format';
import { href } from '../router';
import type { AuditEntry, ErasedCounts } from '../types';
import { idCode } from '../ui';
import { removedText } from './erasure';
import { userHref } from './user';

/**
 * The actions whose targetId is a user id as the game uses it (a member, a banned or linked user,
 * a join request's or a targeted invitation's user, a new owner): their target links to the user's
 * page. Not `user.erased`, whose target is the pseudonym of a user who is gone.
 */
const USER_TARGET = /^(member\.|game\.user\.|join_request\.|permission\.override\.)|^(group\.owner_changed|invitation\.revoked)$/;

/** A user's erasure (its action joins the API document's list with the erasure routes). */
const isErasure = (e: AuditEntry): boolean => (e.action as string) === 'user.erased';

/** Audit entries, newest first, each change shown as its before/after fields. */
export function auditEntries(gameId: string, entries: AuditEntry[], withGroup: boolean): HTMLElement {
  return h(
    'ol',
    { class: 'audit' },
    entries.map((e) =>
      h(
        'li',
        { 'data-action': e.action },
        h(
          'div',
          { class: 'audit-head' },
          h('time', { datetime: e.createdAt }, when(e.createdAt)),
          h('strong', { class: 'action' }, e.action),
          withGroup && e.groupId && h('span', {}, 'in ', h('a', { href: href(['games', gameId, 'groups', e.groupId]) }, e.groupName ?? e.groupId), e.groupSoftDeleted ? ' (deleted)' : ''),
          // The actor is an internal id: its page is found through the games it has an id in.
          e.actorUserId && h('span', {}, 'by ', h('a', { href: href(['games', gameId, 'users'], { svcUserId: e.actorUserId }) }, idCode(e.actorUserId))),
          e.targetId && h('span', {}, isErasure(e) ? 'pseudonym ' : 'on ', target(gameId, e.action, e.targetId)),
        ),
        isErasure(e) ? erasure(e.payload) : payloadView(e.payload),
      ),
    ),
  );
}

function target(gameId: string, action: string, targetId: string): HTMLElement {
  const code = h('code', {}, targetId);
  return USER_TARGET.test(action) ? h('a', { href: userHref(gameId, targetId) }, code) : code;
}

/** A user's erasure (EXTENSIONS X7): what it removed, in words. */
function erasure(payload: Record<string, unknown> | null): Child {
  const removed = payload?.removed;
  if (!removed || typeof removed !== 'object') return payloadView(payload);
  return h('p', { class: 'erasure' }, 'User erased; removed ', removedText(removed as Partial<ErasedCounts>), '.');
}

function payloadView(payload: Record<string, unknown> | null): Child {
  if (!payload || Object.keys(payload).length === 0) return null;
  const before = payload.before as Record<string, unknown> | undefined;
  const after = payload.after as Record<string, unknown> | undefined;
  if (before || after) {
    const fields = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
    const rest = Object.fromEntries(Object.entries(payload).filter(([k]) => k !== 'before' && k !== 'after'));
    return [
      h(
        'table',
        { class: 'diff' },
        h('caption', { class: 'sr-only' }, 'Changed fields'),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Field'), h('th', { scope: 'col' }, 'Before'), h('th', { scope: 'col' }, 'After'))),
        h('tbody', {}, fields.map((f) => h('tr', {}, h('th', { scope: 'row' }, f), h('td', {}, h('del', {}, show(before?.[f]))), h('td', {}, h('ins', {}, show(after?.[f])))))),
      ),
      Object.keys(rest).length > 0 && h('pre', { class: 'payload' }, JSON.stringify(rest, null, 2)),
    ];
  }
  return h('pre', { class: 'payload' }, JSON.stringify(payload, null, 2));
}

const show = (v: unknown) => (v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));
