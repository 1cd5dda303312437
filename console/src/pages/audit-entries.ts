import { h, type Child } from '../dom';
import { when } from '../format';
import { href } from '../router';
import type { AuditEntry } from '../types';
import { idCode } from '../ui';

/** Audit entries, newest first, each change shown as its before/after fields. */
export function auditEntries(gameId: string, entries: AuditEntry[], withGroup: boolean): HTMLElement {
  return h(
    'ol',
    { class: 'audit' },
    entries.map((e) =>
      h(
        'li',
        {},
        h(
          'div',
          { class: 'audit-head' },
          h('time', { datetime: e.createdAt }, when(e.createdAt)),
          h('strong', { class: 'action' }, e.action),
          withGroup && e.groupId && h('span', {}, 'in ', h('a', { href: href(['games', gameId, 'groups', e.groupId]) }, e.groupName ?? e.groupId), e.groupSoftDeleted ? ' (deleted)' : ''),
          e.actorUserId && h('span', {}, 'by ', idCode(e.actorUserId)),
          e.targetId && h('span', {}, 'on ', h('code', {}, e.targetId)),
        ),
        payloadView(e.payload),
      ),
    ),
  );
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
