import { ROLES, operator, setOperator } from '../access';
import { api } from '../api';
import { confirmAction } from '../confirm';
import { field, fill, h } from '../dom';
import { when } from '../format';
import type { PageContext } from '../page';
import { href } from '../router';
import type { CreatedOperator, Operator, OperatorRole } from '../types';
import { badge, copyButton, empty, flash, labelled, load, pageHeader, select, table } from '../ui';

const PATH = '/v1/admin/operators';

/** What each role adds to the one before it, as the service's operator-roles.ts has it. */
const ROLE_MEANS: Record<OperatorRole, string> = {
  viewer: 'reads everything',
  moderator: 'also bans, kicks, decides join requests, deletes and restores groups, erases users',
  admin: 'also manages games, API keys, game config, identity links and erasure replays',
  owner: 'also manages operators',
};

/**
 * The operators (owners and the root token only): add one (its token shown once), change a role,
 * delete one, each after a confirmation. Changes redraw the list in place, so the token just shown
 * stays on the page until the operator leaves it.
 */
export function operatorsPage({ main, signal, rerender }: PageContext): void {
  const minted = h('div', { 'aria-live': 'polite' });
  const status = h('div', { 'aria-live': 'polite' });
  const changed: Changed = async (text, who) => {
    // Changing one's own role (or deleting oneself) changes what the console may show: ask again.
    if (who && who.id === operator()?.id) {
      setOperator(null);
      flash(text);
      return rerender();
    }
    fill(status, h('p', { class: 'flash' }, text));
    await refresh();
  };
  const list = h('section', { 'aria-label': 'Operators' });
  const refresh = () => load(list, async () => {
    const { items } = await api<{ items: Operator[] }>(PATH, { signal });
    if (items.length === 0) return empty('No operators yet: only the root token signs in.');
    const me = operator()?.id ?? null;
    return table('Operators', [
      { label: 'Name', cell: (o) => [o.name, o.id === me && [' ', badge('you')]] },
      { label: 'Role', cell: (o) => badge(o.role) },
      { label: 'Added', cell: (o) => when(o.createdAt) },
      { label: 'Last used', cell: (o) => when(o.lastUsedAt) },
      { label: 'Actions', cell: (o) => h('div', { class: 'row-actions' }, roleButton(o, changed), deleteButton(o, changed)) },
    ], items);
  }, 'Loading operators');

  const add = h('button', {
    type: 'button',
    class: 'primary',
    onclick: async () => {
      let created: CreatedOperator | null = null;
      await confirmAction({
        title: 'Add an operator',
        text: 'A named token for one person or tool. The token is shown once, after this; whoever holds it may do what the role allows until you delete the operator.',
        confirm: 'Add the operator',
        tone: 'primary',
        fields: [
          labelled('Name', h('input', { name: 'name', required: true, maxlength: 100, autocomplete: 'off' }), 'who holds the token: it names them in the operator audit'),
          labelled('Role', select('role', ROLES.map((r) => [r, `${r}: ${ROLE_MEANS[r]}`]), 'viewer')),
        ],
        run: async (form) => {
          created = await api<CreatedOperator>(PATH, { method: 'POST', body: { name: field(form, 'name'), role: field(form, 'role') } });
        },
      });
      if (!created) return;
      fill(minted, tokenOnce(created));
      await changed(`Added ${(created as CreatedOperator).name}.`);
    },
  }, 'Add an operator');

  main.append(
    pageHeader('Operators', h('p', { class: 'muted' }, 'Who may use the admin routes, and within which role. ', h('a', { href: href(['operator-audit']) }, 'What they changed →'))),
    h('div', { class: 'toolbar' }, add),
    minted,
    status,
    list,
  );
  void refresh();
}

function tokenOnce(o: CreatedOperator): HTMLElement {
  return h(
    'div',
    { class: 'minted card', role: 'alert' },
    h('p', {}, h('strong', {}, `Copy the token of ${o.name} now: `), 'it is shown only once and cannot be read again. Hand it over as you would a password.'),
    h('p', { class: 'key-line' }, h('code', { class: 'secret', 'data-testid': 'operator-token' }, o.token), copyButton(o.token, 'Copy token')),
  );
}

/** After a change: says what it did and redraws the list. */
type Changed = (text: string, who?: Operator) => Promise<void>;

function roleButton(o: Operator, changed: Changed): HTMLElement {
  return h('button', {
    type: 'button',
    'aria-label': `Change the role of ${o.name}`,
    onclick: async () => {
      let role = o.role;
      const done = await confirmAction({
        title: `Change the role of ${o.name}?`,
        text: ['Now ', badge(o.role), '. The new role holds from their next request.'],
        confirm: 'Change the role',
        tone: 'primary',
        fields: [labelled('New role', select('role', ROLES.map((r) => [r, `${r}: ${ROLE_MEANS[r]}`]), o.role))],
        run: async (form) => {
          ({ role } = await api<Operator>(`${PATH}/${encodeURIComponent(o.id)}`, { method: 'PATCH', body: { role: field(form, 'role') } }));
        },
      });
      if (done) await changed(`${o.name} is now ${role}.`, o);
    },
  }, 'Change role');
}

function deleteButton(o: Operator, changed: Changed): HTMLElement {
  return h('button', {
    type: 'button',
    class: 'danger',
    'aria-label': `Delete ${o.name}`,
    onclick: async () => {
      const done = await confirmAction({
        title: `Delete ${o.name}?`,
        text: 'Their token stops working at once. What they did stays in the operator audit under their name.',
        confirm: `Delete ${o.name}`,
        run: async () => {
          await api(`${PATH}/${encodeURIComponent(o.id)}`, { method: 'DELETE' });
        },
      });
      if (done) await changed(`Deleted ${o.name}.`, o);
    },
  }, 'Delete');
}
