import { api, ApiFailure } from '../api';
import { field, h } from '../dom';
import { count, when } from '../format';
import type { PageContext } from '../page';
import { go, href, hrefWith } from '../router';
import type { AuditEntry, CursorPage, Group, Member, OffsetPage, Role } from '../types';
import { badge, cursorPager, empty, errorBox, idCode, labelled, load, offsetPager, pageHeader, select, table, type Column } from '../ui';
import { auditEntries } from './audit-entries';
import { anyMemberAction, banUserButton, deleteButton, joinRequests, memberActions, restorePanel, type GroupScope } from './group-moderation';
import { renameButton } from './group-rename';
import { memberHref } from './member';
import { memberStatus, userHref } from './user';

const MEMBERS_PAGE = 25;
const TABS: Array<[tab: string, label: string]> = [
  ['members', 'Members'],
  ['roles', 'Roles'],
  ['bans', 'Banned members'],
  ['requests', 'Join requests'],
  ['audit', 'Audit history'],
];

/**
 * One group: its members (paged, by status), roles, banned members, pending join requests and
 * audit history; with the moderation the operator's role allows (group-moderation.ts).
 */
export async function groupPage({ main, params, route, signal, rerender }: PageContext): Promise<void> {
  const base = `/v1/admin/games/${params.gameId}/groups/${params.groupId}`;
  const scope: GroupScope = { gameId: params.gameId, groupId: params.groupId, base, rerender };
  const tab = route.query.get('tab') ?? 'members';
  const head = h('section', { 'aria-label': 'Group' });
  const body = h('section', { id: 'group-tab', 'aria-labelledby': 'group-tab-h' });
  const nav = tabs(route.path, tab);
  main.append(head, nav, body);
  let found = true;
  await load(head, async () => {
    let g: Group;
    try {
      g = await api<Group>(base, { signal });
    } catch (err) {
      // A deleted group is 404 to the admin routes: the page offers to restore it.
      if (!(err instanceof ApiFailure) || err.status !== 404) throw err;
      found = false;
      return [pageHeader('Group not found'), errorBox(err), restorePanel(scope)];
    }
    return [
      pageHeader(
        g.name,
        h('p', { class: 'muted' }, `${g.kind} · `, badge(g.visibility), ` · ${count(g.memberCount)} members · created ${when(g.createdAt)} · id `, idCode(g.id)),
        h('div', { class: 'toolbar' }, renameButton(scope, g), deleteButton(scope, g)),
      ),
      settings(g),
      h('p', {}, h('a', { href: href(['games', params.gameId, 'live'], { group: g.id }) }, 'Watch this group live →')),
    ];
  }, 'Loading the group');
  if (!found) {
    nav.remove();
    return body.remove();
  }
  const label = TABS.find(([t]) => t === tab)?.[1] ?? 'Members';
  body.append(h('h2', { id: 'group-tab-h' }, label));
  const content = h('div');
  body.append(content);
  if (tab === 'roles') return load(content, () => roles(base, signal), 'Loading roles');
  if (tab === 'requests') return load(content, () => joinRequests(scope, route, signal), 'Loading join requests');
  if (tab === 'audit') return load(content, () => audit(base, params.gameId, route, signal), 'Loading the audit history');
  const status = tab === 'bans' ? 'banned' : route.query.get('status') ?? 'active';
  if (tab !== 'bans') body.insertBefore(memberFilters(route, status), content);
  else body.insertBefore(h('div', { class: 'toolbar' }, banUserButton(scope)), content);
  return load(content, () => members(scope, route, status, signal), 'Loading members');
}

/** What players see of the group beyond its name: its owner, its cap and the tags they search by. */
function settings(g: Group): HTMLElement {
  const cap = g.maxMembers === null ? 'no cap' : `${count(g.memberCount)} of ${count(g.maxMembers)}${g.memberCount >= g.maxMembers ? ' (full)' : ''}`;
  return h(
    'dl',
    { class: 'group-settings' },
    h('dt', {}, 'Owner'),
    h('dd', {}, g.ownerUserId === null ? h('span', { class: 'muted' }, 'none') : h('code', {}, g.ownerUserId)),
    h('dt', {}, 'Members'),
    h('dd', {}, cap),
    h('dt', {}, 'Tags'),
    h('dd', {}, g.tags.length ? g.tags.map((t) => badge(t)) : h('span', { class: 'muted' }, 'none')),
  );
}

function tabs(path: string[], current: string): HTMLElement {
  return h('nav', { class: 'tabs', 'aria-label': 'Group sections' }, h('ul', {}, TABS.map(([tab, label]) => h('li', {}, h('a', { href: href(path, { tab }), 'aria-current': tab === current ? 'page' : undefined }, label)))));
}

function memberFilters(route: PageContext['route'], status: string): HTMLElement {
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'inline filters',
      role: 'search',
      onsubmit: (event: Event) => {
        event.preventDefault();
        go(href(route.path, { tab: 'members', status: field(form, 'status'), q: field(form, 'q') }));
      },
    },
    labelled('Status', select('status', ['active', 'invited', 'left', 'kicked', 'banned'].map((s) => [s, s]), status)),
    labelled('User id contains', h('input', { name: 'q', type: 'search', value: route.query.get('q') ?? '', autocomplete: 'off' })),
    h('button', { type: 'submit' }, 'Filter'),
  );
  return form;
}

async function members(scope: GroupScope, route: PageContext['route'], status: string, signal: AbortSignal) {
  const { base, gameId } = scope;
  const offset = Number(route.query.get('offset') ?? 0) || 0;
  const page = await api<OffsetPage<Member>>(`${base}/members`, { query: { status, q: route.query.get('q') ?? '', limit: MEMBERS_PAGE, offset }, signal });
  if (page.total === 0) return empty(status === 'banned' ? 'Nobody is banned from this group.' : `No ${status} members.`);
  return [
    table('Members', [
      { label: 'User', cell: (m) => h('a', { href: userHref(gameId, m.externalUserId) }, h('code', {}, m.externalUserId)) },
      { label: 'Internal id', cell: (m) => idCode(m.svcUserId) },
      {
        label: 'Status',
        cell: memberStatus,
      },
      { label: 'Roles', cell: (m) => (m.roles.length ? m.roles.map((r) => badge(r.name)) : '—') },
      { label: 'Permissions', cell: (m) => h('a', { href: memberHref(gameId, scope.groupId, m.externalUserId), 'aria-label': `Permissions of ${m.externalUserId}` }, 'Permissions') },
      { label: 'Joined', cell: (m) => when(m.joinedAt) },
      { label: 'Left', cell: (m) => when(m.leftAt) },
      ...(anyMemberAction() ? [{ label: 'Actions', cell: (m: Member) => memberActions(scope, m) } satisfies Column<Member>] : []),
    ], page.items),
    offsetPager(offset, MEMBERS_PAGE, page.items.length, page.total, (o) => hrefWith(route, { offset: o || '' })),
  ];
}

async function roles(base: string, signal: AbortSignal) {
  const items = await api<Role[]>(`${base}/roles`, { signal });
  if (items.length === 0) return empty('This group has no roles.');
  return table('Roles', [
    { label: 'Name', cell: (r) => [r.name, r.isDefault && [' ', badge('default')]] },
    { label: 'Priority', numeric: true, cell: (r) => String(r.priority) },
    { label: 'Permissions', cell: (r) => (r.permissions.length ? h('ul', { class: 'plain' }, r.permissions.map((p) => h('li', {}, h('code', {}, p)))) : '—') },
    { label: 'Created', cell: (r) => when(r.createdAt) },
  ], items);
}

async function audit(base: string, gameId: string, route: PageContext['route'], signal: AbortSignal) {
  const before = route.query.get('before') ?? '';
  const page = await api<CursorPage<AuditEntry>>(`${base}/audit`, { query: { limit: 50, before }, signal });
  if (page.items.length === 0) return empty('No audit entries.');
  return [
    auditEntries(gameId, page.items, false),
    cursorPager(!before, hrefWith(route, { before: '' }), page.nextCursor ? hrefWith(route, { before: page.nextCursor }) : null),
  ];
}
