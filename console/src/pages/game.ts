import { api } from '../api';
import { h } from '../dom';
import { count, when } from '../format';
import type { PageContext } from '../page';
import type { Game } from '../types';
import { idCode, load, pageHeader } from '../ui';
import { analyticsSection } from './analytics';
import { headline } from './headline';
import { keysSection } from './keys';
import { namePolicySection } from './name-policy';
import { findUserForm } from './user';

/** One game: its headline numbers, its API keys, its name policy and its five analytics. */
export async function gamePage(ctx: PageContext): Promise<void> {
  const { main, params, signal, rerender } = ctx;
  const head = h('section', { 'aria-label': 'Game' });
  main.append(head);
  await load(head, async () => {
    const game = await api<Game>(`/v1/admin/games/${params.gameId}`, { signal });
    document.title = `${game.name} · Guildhall console`;
    return [
      pageHeader(game.name, h('p', { class: 'muted' }, 'Game ', idCode(game.id), ` · created ${when(game.createdAt)}`)),
      headline([
        ['Live groups', game.groupCount],
        ['Active members', game.activeMemberCount],
        ['API keys', count(game.apiKeyCount)],
      ]),
    ];
  }, 'Loading the game');
  main.append(findUserForm(params.gameId), keysSection(params.gameId, signal));
  const names = namePolicySection(params.gameId, signal, rerender);
  if (names) main.append(names);
  main.append(analyticsSection(ctx));
}
