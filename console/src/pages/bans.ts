import { api } from '../api';
import { h } from '../dom';
import { when } from '../format';
import type { PageContext } from '../page';
import { go, href, hrefWith } from '../router';
import type { Ban, CursorPage } from '../types';
import { cursorPager, empty, idCode, labelled, load, pageHeader, table } from '../ui';
import { userHref } from './user';

/** The game-wide bans (a group's banned members are on the group's page). */
export function bansPage({ main, params, route, signal }: PageContext): void {
  const includeExpired = route.query.get('includeExpired') === 'true';
  const cursor = route.query.get('cursor') ?? '';
  const toggle = h('input', {
    type: 'checkbox',
    name: 'includeExpired',
    checked: includeExpired,
    onchange: () => go(href(route.path, { includeExpired: toggle.checked ? 'true' : '' })),
  });
  const list = h('section', { 'aria-label': 'Bans' });
  main.append(pageHeader('Game-wide bans'), h('div', { class: 'inline filters' }, labelled('Include expired bans', toggle)), list);
  void load(list, async () => {
    const page = await api<CursorPage<Ban>>(`/v1/admin/games/${params.gameId}/bans`, { query: { includeExpired: includeExpired || undefined, cursor, limit: 50 }, signal });
    if (page.items.length === 0) return empty('Nobody is banned from this game.');
    return [
      table('Bans', [
        { label: 'User', cell: (b) => h('a', { href: userHref(params.gameId, b.userId) }, h('code', {}, b.userId)) },
        { label: 'Banned', cell: (b) => when(b.bannedAt) },
        { label: 'Expires', cell: (b) => (b.expiresAt ? when(b.expiresAt) : 'never') },
        { label: 'Reason', cell: (b) => b.reason ?? '—' },
        { label: 'By', cell: (b) => idCode(b.bannedBy) },
      ], page.items),
      cursorPager(!cursor, hrefWith(route, { cursor: '' }), page.nextCursor ? hrefWith(route, { cursor: page.nextCursor }) : null),
    ];
  }, 'Loading bans');
}
