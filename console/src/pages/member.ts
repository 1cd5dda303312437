import { can } from '../access';
import { api } from '../api';
import { field, h } from '../dom';
import { when } from '../format';
import type { PageContext } from '../page';
import { href } from '../router';
import type { EffectivePermissions, Group, GroupMember, Role } from '../types';
import { badge, empty, errorBox, flash, labelled, load, pageHeader, select, table } from '../ui';
import { timeoutSection } from './member-timeout';
import { memberStatus, userHref } from './user';

/** The console route of a member's page. */
export const memberHref = (gameId: string, groupId: string, userId: string): string => href(['games', gameId, 'groups', groupId, 'members', userId]);

/**
 * One member of a group: what they may do there and why. Their roles with each assignment's
 * expiry, every permission they are allowed now with where it comes from (a role or an override)
 * and until when, and for a moderator a form to give a role, for good or for a time; and their
 * timeout, with Time out and Lift timeout for a moderator (member-timeout.ts).
 */
export async function memberPage({ main, params, signal, rerender }: PageContext): Promise<void> {
  const { gameId, groupId, userId } = params;
  const base = `/v1/admin/games/${gameId}/groups/${groupId}`;
  const page = h('section', { 'aria-label': 'Member' });
  main.append(page);
  await load(page, async () => {
    const path = `${base}/members/${encodeURIComponent(userId)}`;
    const [group, member, roles, effective] = await Promise.all([
      api<Group>(base, { signal }),
      api<GroupMember>(path, { signal }),
      api<Role[]>(`${base}/roles`, { signal }),
      api<EffectivePermissions>(`${path}/permissions`, { signal }),
    ]);
    document.title = `${userId} in ${group.name} · Guildhall console`;
    const roleName = (id: string | null) => roles.find((r) => r.id === id)?.name ?? id ?? '';
    return [
      pageHeader(
        `${userId} in ${group.name}`,
        h(
          'p',
          { class: 'muted' },
          memberStatus({ status: member.status, bannedUntil: member.bannedUntil }),
          member.timedOutUntil && [' ', badge('timed out', 'warn')],
          ` · joined ${when(member.joinedAt)} · `,
          h('a', { href: href(['games', gameId, 'groups', groupId]) }, 'the group'),
          ' · ',
          h('a', { href: userHref(gameId, userId) }, 'the user'),
        ),
      ),
      h('h2', {}, 'Roles'),
      member.roleGrants.length
        ? table('Roles', [
            { label: 'Role', cell: (g) => badge(roleName(g.roleId)) },
            { label: 'Expires', cell: (g) => (g.expiresAt ? when(g.expiresAt) : 'never') },
          ], member.roleGrants)
        : empty('No roles.'),
      can('assignRole') && roles.length > 0 && roleForm(path, roles, rerender),
      timeoutSection(path, member, rerender),
      h('h2', {}, 'Effective permissions'),
      effective.permissions.length
        ? table('Effective permissions', [
            { label: 'Permission', cell: (p) => h('code', {}, p.permission) },
            { label: 'From', cell: (p) => (p.source === 'role' ? ['role ', badge(roleName(p.viaRoleId))] : badge('override', 'warn')) },
            { label: 'Expires', cell: (p) => (p.expiresAt ? when(p.expiresAt) : 'never') },
          ], effective.permissions)
        : empty(member.status === 'active' ? 'Allowed nothing: no role or override grants a permission.' : 'Allowed nothing: only an active member holds permissions.'),
    ];
  }, 'Loading the member');
}

/** Gives a role, for good or until an expiry; giving it again replaces the expiry. */
function roleForm(path: string, roles: Role[], rerender: () => Promise<void>): HTMLElement {
  const outcome = h('div', { 'aria-live': 'polite' });
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'inline filters',
      'aria-label': 'Give a role',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const roleId = field(form, 'roleId');
        const expiresIn = field(form, 'expiresIn').trim();
        try {
          await api(`${path}/roles/${roleId}`, { method: 'POST', body: expiresIn ? { expiresIn } : {} });
          flash(`Gave ${roles.find((r) => r.id === roleId)?.name ?? 'the role'}${expiresIn ? ` for ${expiresIn}` : ' for good'}.`);
          await rerender();
        } catch (err) {
          outcome.replaceChildren(errorBox(err));
        }
      },
    },
    labelled('Role', select('roleId', roles.map((r) => [r.id, r.name]), roles[0].id)),
    labelled('Expires in', h('input', { name: 'expiresIn', type: 'text', size: 8, autocomplete: 'off', placeholder: 'never' }), 'e.g. 30m, 2h, 7d (at most 365d); empty: for good'),
    h('button', { type: 'submit' }, 'Give the role'),
  );
  return h('div', {}, form, outcome);
}
