import { api } from '../api';
import { field, h } from '../dom';
import { count, when } from '../format';
import type { PageContext } from '../page';
import { go, href, hrefWith } from '../router';
import type { CursorPage, FoundGroup, Group, OffsetPage } from '../types';
import { badge, cursorPager, empty, labelled, load, offsetPager, pageHeader, select, table } from '../ui';

const PAGE = 50;

/**
 * A game's groups. By default, what its players find (GET /v1/groups/search through the admin
 * twin): words of the name, kind, tags, open, four orders, cursor pages. With `all`, every live
 * group, secret ones included (the admin list: visibility filter, offset pages).
 */
export function groupsPage(ctx: PageContext): void {
  if (ctx.route.query.get('all')) allGroups(ctx);
  else searchGroups(ctx);
}

function searchGroups({ main, params, route, signal }: PageContext): void {
  const q = route.query;
  const text = q.get('q') ?? '';
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'inline filters',
      role: 'search',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const open = (form.elements.namedItem('open') as HTMLInputElement).checked;
        go(href(route.path, { q: field(form, 'q'), kind: field(form, 'kind'), tags: field(form, 'tags').replace(/\s+/g, ''), open: open ? 'true' : '', sort: field(form, 'sort') }));
      },
    },
    labelled('Search names', h('input', { name: 'q', type: 'search', value: text, autocomplete: 'off' }), 'every word, any case or accent; typos too'),
    labelled('Kind', h('input', { name: 'kind', value: q.get('kind') ?? '', autocomplete: 'off', size: 10 })),
    labelled('Tags', h('input', { name: 'tags', value: q.get('tags') ?? '', autocomplete: 'off', size: 18, placeholder: 'lang:en,region:eu' }), 'a group carries every one'),
    labelled('Open to join', h('input', { name: 'open', type: 'checkbox', checked: q.get('open') === 'true' })),
    labelled('Sort', select('sort', [['', 'best match, or most members'], ['relevance', 'best match'], ['members', 'most members'], ['newest', 'newest'], ['name', 'name A–Z']], q.get('sort') ?? '')),
    h('button', { type: 'submit' }, 'Search'),
  );
  const results = h('section', { 'aria-label': 'Groups found' });
  main.append(
    pageHeader('Groups', h('a', { href: href(route.path, { all: '1' }) }, 'All groups, secret ones included')),
    h('p', { class: 'muted' }, 'What players of this game find: secret and deleted groups never appear here.'),
    form,
    results,
  );

  const cursor = q.get('cursor') ?? '';
  void load(results, async () => {
    const page = await api<CursorPage<FoundGroup>>(`/v1/admin/games/${params.gameId}/groups/search`, {
      query: { q: text, kind: q.get('kind') ?? '', tags: q.get('tags') ?? '', open: q.get('open') ?? '', sort: q.get('sort') ?? '', limit: PAGE, cursor },
      signal,
    });
    if (page.items.length === 0) return empty(cursor ? 'No more groups.' : 'No group matches.');
    return [
      table('Groups', [
        { label: 'Name', cell: (g) => h('a', { href: href(['games', params.gameId, 'groups', g.id]) }, g.name) },
        { label: 'Kind', cell: (g) => g.kind },
        { label: 'Visibility', cell: (g) => badge(g.visibility) },
        { label: 'Tags', cell: (g) => (g.tags.length ? g.tags.join(' ') : '—') },
        { label: 'Members', numeric: true, cell: (g) => (g.maxMembers === null ? count(g.memberCount) : `${count(g.memberCount)} / ${count(g.maxMembers)}`) },
        { label: 'Created', cell: (g) => when(g.createdAt) },
      ], page.items),
      cursorPager(!cursor, hrefWith(route, { cursor: '' }), page.nextCursor ? hrefWith(route, { cursor: page.nextCursor }) : null, ['⇤ First page', 'Next →']),
    ];
  }, 'Searching groups');
}

/** Every live group by name, kind and visibility (the admin list); sort; page through. */
function allGroups({ main, params, route, signal }: PageContext): void {
  const q = route.query;
  const offset = Number(q.get('offset') ?? 0) || 0;
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'inline filters',
      role: 'search',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const [sort, order] = field(form, 'sort').split(':');
        go(href(route.path, { all: '1', q: field(form, 'q'), kind: field(form, 'kind'), visibility: field(form, 'visibility'), sort, order }));
      },
    },
    labelled('Name contains', h('input', { name: 'q', type: 'search', value: q.get('q') ?? '', autocomplete: 'off' })),
    labelled('Kind', h('input', { name: 'kind', value: q.get('kind') ?? '', autocomplete: 'off', size: 10 })),
    labelled('Visibility', select('visibility', [['', 'any'], ['public', 'public'], ['invite-only', 'invite-only'], ['secret', 'secret']], q.get('visibility') ?? '')),
    labelled('Sort', select('sort', [
      ['createdAt:desc', 'newest first'], ['createdAt:asc', 'oldest first'], ['name:asc', 'name A–Z'], ['name:desc', 'name Z–A'],
      ['memberCount:desc', 'most members'], ['memberCount:asc', 'fewest members'],
    ], `${q.get('sort') ?? 'createdAt'}:${q.get('order') ?? 'desc'}`), 'by members: at most 500 matches'),
    h('button', { type: 'submit' }, 'Search'),
  );
  const results = h('section', { 'aria-label': 'Groups found' });
  main.append(pageHeader('All groups', h('a', { href: href(route.path, {}) }, 'Find groups as players do')), form, results);

  void load(results, async () => {
    const page = await api<OffsetPage<Group>>(`/v1/admin/games/${params.gameId}/groups`, {
      query: { q: q.get('q') ?? '', kind: q.get('kind') ?? '', visibility: q.get('visibility') ?? '', sort: q.get('sort') ?? '', order: q.get('order') ?? '', limit: PAGE, offset },
      signal,
    });
    if (page.total === 0) return empty(q.get('q') || q.get('kind') || q.get('visibility') ? 'No group matches.' : 'This game has no groups yet.');
    return [
      table('Groups', [
        { label: 'Name', cell: (g) => h('a', { href: href(['games', params.gameId, 'groups', g.id]) }, g.name) },
        { label: 'Kind', cell: (g) => g.kind },
        { label: 'Visibility', cell: (g) => badge(g.visibility) },
        { label: 'Members', numeric: true, cell: (g) => count(g.memberCount) },
        { label: 'Created', cell: (g) => when(g.createdAt) },
      ], page.items),
      offsetPager(offset, PAGE, page.items.length, page.total, (o) => hrefWith(route, { offset: o || '' })),
    ];
  }, 'Searching groups');
}
