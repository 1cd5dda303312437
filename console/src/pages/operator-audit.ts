import { can } from '../access';
import { api } from '../api';
import { field, h, type Child } from '../dom';
import { when } from '../format';
import type { PageContext } from '../page';
import { go, href, hrefWith } from '../router';
import { OPERATOR_AUDIT_ACTIONS, type CursorPage, type Operator, type OperatorAuditEntry } from '../types';
import { cursorPager, empty, idCode, labelled, load, pageHeader, select, table } from '../ui';
import { userHref } from './user';

const PAGE = 50;

/** The actions whose target is a user id as the game uses it, and those whose target is a group. */
const USER_TARGET = /^(member\.kicked|group\.ban_|game\.ban_|identity\.linked)/;
const GROUP_TARGET = /^group\.(deleted|restored)$/;

/**
 * What operators (and the root token) changed through the admin routes, and the operator command
 * (`cli`) on the database, newest first, 50 a page, by operator and by action. Every role reads
 * it. The operator filter is a list of names for who may read the operators (owners), an id
 * otherwise; a name in the list filters by its operator.
 */
export async function operatorAuditPage({ main, route, signal }: PageContext): Promise<void> {
  const q = route.query;
  const operatorId = q.get('operatorId') ?? '';
  const action = q.get('action') ?? '';
  const before = q.get('before') ?? '';
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'inline filters',
      role: 'search',
      onsubmit: (event: Event) => {
        event.preventDefault();
        go(href(route.path, { operatorId: field(form, 'operatorId'), action: field(form, 'action') }));
      },
    },
    labelled('Operator', operatorControl(operatorId, signal)),
    labelled('Action', select('action', [['', 'any'], ...OPERATOR_AUDIT_ACTIONS.map((a): [string, string] => [a, a])], action)),
    h('button', { type: 'submit' }, 'Filter'),
    ' ',
    h('a', { href: href(route.path) }, 'Clear'),
  );
  const results = h('section', { 'aria-label': 'Operator audit entries' });
  main.append(pageHeader('Operator audit', h('p', { class: 'muted' }, 'Every change made through the admin routes or the operator command, and who made it.')), form, results);
  await load(results, async () => {
    const page = await api<CursorPage<OperatorAuditEntry>>('/v1/admin/operator-audit', { query: { operatorId, action, before, limit: PAGE }, signal });
    if (page.items.length === 0) return empty(before ? 'No older entries.' : 'No entry matches.');
    return [
      table('Operator audit', [
        { label: 'When', cell: (e) => h('time', { datetime: e.at }, when(e.at)) },
        // Without an id it was the root token or the operator command, whose names are their filters.
        { label: 'Operator', cell: (e) => h('a', { href: hrefWith(route, { operatorId: e.operatorId ?? e.operatorName, before: '' }), title: 'Only this operator' }, e.operatorName) },
        { label: 'Action', cell: (e) => h('code', { class: 'action' }, e.action) },
        { label: 'Game', cell: (e) => (e.gameId ? h('a', { href: href(['games', e.gameId]) }, idCode(e.gameId)) : '—') },
        { label: 'Target', cell: target },
        { label: 'Details', cell: (e) => details(e.details) },
      ], page.items),
      cursorPager(!before, hrefWith(route, { before: '' }), page.nextCursor ? hrefWith(route, { before: page.nextCursor }) : null),
    ];
  }, 'Loading the operator audit');
}

/**
 * Owners pick an operator by name (root and cli included), the names arriving with the operators'
 * list; other roles, who cannot list operators, give an id. A deleted operator keeps their entries: their
 * id stays a choice while it is the filter.
 */
function operatorControl(current: string, signal: AbortSignal): HTMLElement {
  if (can('listOperators')) {
    const builtIn: Array<[string, string]> = [['root', 'root (the admin token)'], ['cli', 'cli (the operator command)']];
    const other = current && !builtIn.some(([value]) => value === current) ? [[current, current] as [string, string]] : [];
    const control = select('operatorId', [['', 'any'], ...builtIn, ...other], current);
    void api<{ items: Operator[] }>('/v1/admin/operators', { signal })
      .then(({ items }) => {
        for (const o of items) {
          const known = [...control.options].find((opt) => opt.value === o.id);
          if (known) known.textContent = o.name;
          else control.append(h('option', { value: o.id }, o.name));
        }
      })
      .catch(() => undefined);
    return control;
  }
  return h('input', { name: 'operatorId', value: current, autocomplete: 'off', spellcheck: 'false', size: 36, placeholder: 'an operator id, root or cli' });
}

function target(e: OperatorAuditEntry): Child {
  if (!e.targetId) return '—';
  const code = h('code', {}, e.targetId);
  if (e.gameId && USER_TARGET.test(e.action)) return h('a', { href: userHref(e.gameId, e.targetId) }, code);
  if (e.gameId && GROUP_TARGET.test(e.action)) return h('a', { href: href(['games', e.gameId, 'groups', e.targetId]) }, code);
  return code;
}

function details(d: Record<string, unknown>): Child {
  const entries = Object.entries(d ?? {});
  if (entries.length === 0) return '—';
  return h('ul', { class: 'plain' }, entries.map(([k, v]) => h('li', {}, h('span', { class: 'muted' }, `${k}: `), typeof v === 'string' ? v : JSON.stringify(v))));
}
