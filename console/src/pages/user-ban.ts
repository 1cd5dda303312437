import { can } from '../access';
import { api } from '../api';
import { confirmAction } from '../confirm';
import { h, type Child } from '../dom';
import type { Ban } from '../types';
import { flash } from '../ui';
import { banBody, banFields } from './ban-fields';

/**
 * A user's game-wide ban from their page: Ban when there is none in force, Lift the ban when there
 * is, each after a confirmation, when the operator's role allows it.
 */
export function gameBanActions(gameId: string, userId: string, ban: Ban | null, rerender: () => Promise<void>): Child {
  const path = `/v1/admin/games/${gameId}/bans`;
  const user = h('code', {}, userId);
  if (ban === null && can('banFromGame')) {
    return toolbar(h('button', {
      type: 'button',
      class: 'danger',
      onclick: async () => {
        const done = await confirmAction({
          title: 'Ban from this game?',
          text: [user, ' cannot become a member of any group of the game (join, invitation, join request) until the ban ends or is lifted, and their pending join requests are cancelled. Their current memberships stay: kick or ban them from those groups to end them.'],
          confirm: `Ban ${userId} from the game`,
          fields: banFields(),
          run: async (form) => {
            await api<Ban>(path, { method: 'POST', body: banBody(form, userId) });
            flash(`Banned ${userId} from the game.`);
          },
        });
        if (done) await rerender();
      },
    }, 'Ban from this game'));
  }
  if (ban !== null && can('unbanFromGame')) {
    return toolbar(h('button', {
      type: 'button',
      onclick: async () => {
        const done = await confirmAction({
          title: 'Lift the game-wide ban?',
          text: [user, ' may join the game’s groups again.'],
          confirm: `Lift the ban of ${userId}`,
          run: async () => {
            await api(`${path}/${encodeURIComponent(userId)}`, { method: 'DELETE' });
            flash(`Lifted the game-wide ban of ${userId}.`);
          },
        });
        if (done) await rerender();
      },
    }, 'Lift the ban'));
  }
  return null;
}

const toolbar = (button: HTMLElement): HTMLElement => h('div', { class: 'toolbar' }, button);
