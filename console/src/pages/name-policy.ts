import { can } from '../access';
import { api } from '../api';
import { confirmAction } from '../confirm';
import { h } from '../dom';
import { count } from '../format';
import type { GameConfig } from '../types';
import { flash, labelled, load } from '../ui';
import { nameTestBox } from './name-test';

type Lists = GameConfig['config']['moderation']['names'];

/**
 * The game's name policy (EXTENSIONS X10): its blocked and reserved words, one a line, and a box
 * to try a name against them. Shown from the role that may try names; the lists are editable only
 * for the role that may change the game's config, and are saved through its PATCH.
 */
export function namePolicySection(gameId: string, signal: AbortSignal, rerender: () => Promise<void>): HTMLElement | null {
  if (!can('testName')) return null;
  const body = h('div');
  void load(body, async () => {
    const { config } = await api<GameConfig>(`/v1/admin/games/${gameId}/config`, { signal });
    return [listsForm(gameId, config.moderation.names, rerender), nameTestBox(gameId, signal)];
  }, 'Loading the name policy');
  return h(
    'section',
    { 'aria-labelledby': 'name-policy-h' },
    h('h2', { id: 'name-policy-h' }, 'Name policy'),
    h('p', { class: 'muted' }, 'No group name or tag a player sets may contain a blocked or reserved word; operators may use reserved words, not blocked ones.'),
    body,
  );
}

function listsForm(gameId: string, lists: Lists, rerender: () => Promise<void>): HTMLElement {
  const editable = can('updateGameConfig');
  const area = (name: keyof Lists) =>
    h('textarea', { name, rows: 6, spellcheck: 'false', readonly: !editable }, lists[name].join('\n'));
  const blocked = area('blocked');
  const reserved = area('reserved');
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'name-lists',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const next: Lists = { blocked: words(blocked.value), reserved: words(reserved.value) };
        const saved = await confirmAction({
          title: 'Save the name policy?',
          text: `${count(next.blocked.length)} blocked and ${count(next.reserved.length)} reserved words replace the game’s lists. Names already in use stay; new names and renames meet the new lists.`,
          confirm: 'Save the name policy',
          tone: 'primary',
          run: async () => {
            await api(`/v1/admin/games/${gameId}/config`, { method: 'PATCH', body: { config: { moderation: { names: next } } } });
            flash('Saved the name policy.');
          },
        });
        if (saved) await rerender();
      },
    },
    h('div', { class: 'name-lists-row' },
      labelled('Blocked words', blocked, 'One a line; refused to everyone.'),
      labelled('Reserved words', reserved, 'One a line; refused to players, allowed to operators.'),
    ),
    editable && h('div', { class: 'toolbar' }, h('button', { type: 'submit', class: 'primary' }, 'Save the name policy')),
  );
  return form;
}

/** The words of a list as typed: one a line, trimmed, blank lines and repeats left out. */
const words = (text: string): string[] => [...new Set(text.split('\n').map((w) => w.trim()).filter(Boolean))];
