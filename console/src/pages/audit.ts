import { api } from '../api';
import { h } from '../dom';
import type { PageContext } from '../page';
import { go, href, hrefWith } from '../router';
import { AUDIT_ACTIONS, type AuditEntry, type CursorPage } from '../types';
import { cursorPager, empty, labelled, load, pageHeader } from '../ui';
import { auditEntries } from './audit-entries';

/** Search the game's audit log (soft-deleted groups included) by action, actor, target and time. */
export function auditPage({ main, params, route, signal }: PageContext): void {
  const q = route.query;
  const actions = q.getAll('actions');
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'filters grid',
      role: 'search',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const data = new FormData(form);
        const text = (name: string) => String(data.get(name) ?? '').trim();
        const iso = (name: string) => (text(name) ? new Date(text(name)).toISOString() : '');
        go(href(route.path, { actions: data.getAll('actions').map(String), actorUserId: text('actorUserId'), targetId: text('targetId'), since: iso('since'), until: iso('until') }));
      },
    },
    labelled('Actions', h('select', { name: 'actions', multiple: true, size: 6 }, AUDIT_ACTIONS.map((a) => h('option', { value: a, selected: actions.includes(a) }, a))), 'none selected: every action'),
    labelled('Actor (internal user id)', h('input', { name: 'actorUserId', value: q.get('actorUserId') ?? '', autocomplete: 'off' })),
    labelled('Target id', h('input', { name: 'targetId', value: q.get('targetId') ?? '', autocomplete: 'off' }), 'a user id, role id, group id…'),
    labelled('Since', h('input', { name: 'since', type: 'datetime-local', value: localInput(q.get('since')) })),
    labelled('Until', h('input', { name: 'until', type: 'datetime-local', value: localInput(q.get('until')) })),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Search'), ' ', h('a', { href: href(route.path) }, 'Clear')),
  );
  const results = h('section', { 'aria-label': 'Audit entries' });
  main.append(pageHeader('Audit log'), form, results);
  void load(results, async () => {
    // `before` is the cursor of a later page; the first page ends at the "until" time.
    const before = q.get('before') || q.get('until') || '';
    const page = await api<CursorPage<AuditEntry>>(`/v1/admin/games/${params.gameId}/audit`, {
      query: { actions, actorUserId: q.get('actorUserId') ?? '', targetId: q.get('targetId') ?? '', since: q.get('since') ?? '', before, limit: 50 },
      signal,
    });
    if (page.items.length === 0) return empty('No audit entry matches.');
    return [
      auditEntries(params.gameId, page.items, true),
      cursorPager(!q.get('before'), hrefWith(route, { before: '' }), page.nextCursor ? hrefWith(route, { before: page.nextCursor }) : null),
    ];
  }, 'Searching the audit log');
}

/** An ISO time as the value of a datetime-local input, in the browser's zone. */
function localInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}
