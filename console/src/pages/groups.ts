import { api } from '../api';
import { field, h } from '../dom';
import { count, when } from '../format';
import type { PageContext } from '../page';
import { go, href, hrefWith } from '../router';
import type { Group, OffsetPage } from '../types';
import { badge, empty, labelled, load, offsetPager, pageHeader, select, table } from '../ui';

const PAGE = 50;

/** Search a game's live groups by name, kind and visibility; sort; page through. */
export function groupsPage({ main, params, route, signal }: PageContext): void {
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
        go(href(route.path, { q: field(form, 'q'), kind: field(form, 'kind'), visibility: field(form, 'visibility'), sort, order }));
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
  main.append(pageHeader('Groups'), form, results);

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
