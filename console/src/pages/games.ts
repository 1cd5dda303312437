import { can } from '../access';
import { api } from '../api';
import { append, field, fill, h } from '../dom';
import { count, when } from '../format';
import type { PageContext } from '../page';
import { go, href } from '../router';
import type { Game, Stats } from '../types';
import { empty, errorBox, idCode, labelled, load, pageHeader, table } from '../ui';
import { headline } from './headline';

/** Every game, the service's totals, and for an admin a form to create a game. */
export function gamesPage({ main, signal }: PageContext): void {
  const totals = h('section', { 'aria-label': 'Totals' });
  const list = h('section', { 'aria-labelledby': 'games-h' });
  append(main, [pageHeader('Games'), totals, can('createGame') && createForm(signal), h('h2', { id: 'games-h' }, 'All games'), list]);

  void load(totals, async () => {
    const s = await api<Stats>('/v1/admin/stats', { signal });
    return headline([
      ['Games', s.totalGames],
      ['Groups', s.totalGroups],
      ['Active members', s.totalActiveMembers],
      ['Audit entries, last 24 h', s.totalAuditEntriesLast24h],
    ]);
  });
  void load(list, async () => {
    const { items } = await api<{ items: Game[] }>('/v1/admin/games', { query: { limit: 200 }, signal });
    if (items.length === 0) return empty(can('createGame') ? 'No games yet: create the first one above.' : 'No games yet.');
    return table('Games', [
      { label: 'Name', cell: (g) => h('a', { href: href(['games', g.id]) }, g.name) },
      { label: 'Id', cell: (g) => idCode(g.id) },
      { label: 'Groups', numeric: true, cell: (g) => count(g.groupCount) },
      { label: 'Active members', numeric: true, cell: (g) => count(g.activeMemberCount) },
      { label: 'API keys', numeric: true, cell: (g) => count(g.apiKeyCount) },
      { label: 'Created', cell: (g) => when(g.createdAt) },
    ], items);
  }, 'Loading games');
}

function createForm(signal: AbortSignal): HTMLElement {
  const problem = h('div', { 'aria-live': 'polite' });
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'inline card',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        fill(problem);
        try {
          const game = await api<Game>('/v1/admin/games', { method: 'POST', body: { name: field(form, 'name') }, signal });
          go(href(['games', game.id]));
        } catch (err) {
          fill(problem, errorBox(err));
        }
      },
    },
    labelled('New game name', h('input', { name: 'name', required: true, maxlength: 200, autocomplete: 'off' })),
    h('button', { type: 'submit', class: 'primary' }, 'Create game'),
    problem,
  );
  return form;
}
