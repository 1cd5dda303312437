import { can } from '../access';
import { api } from '../api';
import { confirmAction } from '../confirm';
import { field, h, type Child } from '../dom';
import { when } from '../format';
import type { GroupMember } from '../types';
import { badge, empty, flash, labelled } from '../ui';
import { reasonBody, reasonField } from './ban-fields';

/**
 * A member's timeout (EXTENSIONS X10) on their page: when the one in force ends, for everyone; for
 * a moderator, Time out (an active member, for a duration) and Lift the timeout when one is in
 * force, each after a confirmation. `path` is the member's admin path.
 */
export function timeoutSection(path: string, member: GroupMember, rerender: () => Promise<void>): Child[] {
  const user = member.userId;
  const buttons: HTMLElement[] = [];
  if (member.status === 'active' && can('timeoutMember')) {
    buttons.push(h('button', {
      type: 'button',
      class: 'danger',
      onclick: async () => {
        const done = await confirmAction({
          title: 'Time out this member?',
          text: [h('code', {}, user), ' stays a member with their roles, but until the timeout ends is denied the permissions the game’s ', h('code', {}, 'moderation.timeoutDeniedPermissions'), ' names. ', member.timedOutUntil ? 'It replaces the timeout in force: it ends the duration from now.' : 'It ends by itself, or when lifted.'],
          confirm: `Time out ${user}`,
          fields: [
            labelled('Duration', h('input', { name: 'duration', required: true, size: 8, autocomplete: 'off', spellcheck: 'false' }), 'a whole number then s, m, h or d: 30m, 2h, 7d (at most 28d)'),
            reasonField(),
          ],
          run: async (form) => {
            const duration = field(form, 'duration');
            await api<GroupMember>(`${path}/timeout`, { method: 'POST', body: { duration, ...reasonBody(form) } });
            flash(`Timed out ${user} for ${duration}.`);
          },
        });
        if (done) await rerender();
      },
    }, 'Time out'));
  }
  if (member.timedOutUntil !== null && can('liftTimeout')) {
    buttons.push(h('button', {
      type: 'button',
      onclick: async () => {
        const done = await confirmAction({
          title: 'Lift this timeout?',
          text: [h('code', {}, user), ' gets back at once the permissions the timeout denied.'],
          confirm: `Lift the timeout of ${user}`,
          tone: 'primary',
          fields: [reasonField()],
          run: async (form) => {
            await api<GroupMember>(`${path}/timeout`, { method: 'DELETE', body: reasonBody(form) });
            flash(`Lifted the timeout of ${user}.`);
          },
        });
        if (done) await rerender();
      },
    }, 'Lift timeout'));
  }
  return [
    h('h2', {}, 'Timeout'),
    member.timedOutUntil
      ? h('p', { 'data-testid': 'timeout' }, badge('timed out', 'warn'), ' until ', when(member.timedOutUntil))
      : empty('No timeout in force.'),
    buttons.length > 0 && h('div', { class: 'toolbar' }, buttons),
  ];
}
