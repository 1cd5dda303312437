import { can } from '../access';
import { api } from '../api';
import { confirmAction } from '../confirm';
import { field, h, type Child } from '../dom';
import type { FoundGroup, Group } from '../types';
import { flash, labelled } from '../ui';
import type { GroupScope } from './group-moderation';

/**
 * The group's Rename button, when the role may: the admin PATCH, where the game's reserved words
 * are allowed (an official "Staff" guild) and blocked ones are refused with 400 name_not_allowed,
 * which stays in the dialog to correct.
 */
export function renameButton(scope: GroupScope, g: Group): Child {
  if (!can('renameGroup')) return null;
  return h('button', {
    type: 'button',
    onclick: async () => {
      const name = h('input', { name: 'name', required: true, maxlength: 120, autocomplete: 'off', spellcheck: 'false', value: g.name });
      const done = await confirmAction({
        title: 'Rename this group?',
        text: ['Players see the new name at once. The game’s reserved words are allowed here; its blocked words are not.'],
        confirm: 'Rename the group',
        tone: 'primary',
        fields: [labelled('New name', name)],
        run: async (form) => {
          const renamed = await api<FoundGroup>(scope.base, { method: 'PATCH', body: { name: field(form, 'name') } });
          flash(`Renamed ${g.name} to ${renamed.name}.`);
        },
      });
      if (done) await scope.rerender();
    },
  }, 'Rename');
}
