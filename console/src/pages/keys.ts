import { can } from '../access';
import { api } from '../api';
import { field, fill, h } from '../dom';
import { when } from '../format';
import type { ApiKey, MintedKey } from '../types';
import { badge, copyButton, empty, errorBox, labelled, load, select, table } from '../ui';

/** What a key may do, as the mint form offers it and the list shows it. */
const ACCESS: Array<[value: string, label: string]> = [
  ['read,write', 'Read and write'],
  ['read', 'Read only (GET)'],
];

/** How long a new key works, in seconds ('' = never). */
const LIFETIMES: Array<[value: string, label: string]> = [
  ['', 'Never expires'],
  [String(86_400), 'Expires in 1 day'],
  [String(30 * 86_400), 'Expires in 30 days'],
  [String(90 * 86_400), 'Expires in 90 days'],
  [String(365 * 86_400), 'Expires in 1 year'],
];

const scopesCell = (k: ApiKey) => (k.scopes.includes('write') ? badge('read, write', 'neutral') : badge('read only', 'warn'));

const expired = (k: ApiKey) => k.expiresAt !== null && Date.parse(k.expiresAt) <= Date.now();

function stateCell(k: ApiKey): HTMLElement {
  if (k.revokedAt) return badge(`revoked ${when(k.revokedAt)}`, 'bad');
  if (expired(k)) return badge('expired', 'bad');
  return badge('active', 'ok');
}

/** A game's API keys: list, and for an admin mint (with its scopes and expiry; the key shown once) and revoke. */
export function keysSection(gameId: string, signal: AbortSignal): HTMLElement {
  const path = `/v1/admin/games/${gameId}/api-keys`;
  const minted = h('div', { 'aria-live': 'polite' });
  const list = h('div');
  const refresh = () =>
    load(list, async () => {
      const { items } = await api<{ items: ApiKey[] }>(path, { signal });
      if (items.length === 0) return empty(can('mintKey') ? 'No API keys: mint one to let a game backend call the service.' : 'No API keys.');
      return table('API keys', [
        { label: 'Prefix', cell: (k) => h('code', {}, k.prefix) },
        { label: 'Scopes', cell: scopesCell },
        { label: 'Created', cell: (k) => when(k.createdAt) },
        { label: 'Expires', cell: (k) => (k.expiresAt ? when(k.expiresAt) : 'never') },
        { label: 'State', cell: stateCell },
        ...(can('revokeKey') ? [{ label: 'Actions', cell: (k: ApiKey) => (k.revokedAt ? '' : revokeButton(k)) }] : []),
      ], items);
    }, 'Loading keys');

  const revokeButton = (key: ApiKey) =>
    h('button', {
      type: 'button',
      class: 'danger',
      'aria-label': `Revoke key ${key.prefix}`,
      onclick: async () => {
        if (!confirm(`Revoke ${key.prefix}? Requests with it will be refused at once.`)) return;
        try {
          await api(`${path}/${key.id}/revoke`, { method: 'POST', signal });
          fill(minted);
          await refresh();
        } catch (err) {
          fill(minted, errorBox(err));
        }
      },
    }, 'Revoke');

  const mint: HTMLFormElement = h(
    'form',
    {
      class: 'inline card',
      'aria-label': 'Mint a key',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const lifetime = field(mint, 'expiresIn');
        const body = { scopes: field(mint, 'scopes').split(','), ...(lifetime ? { expiresIn: Number(lifetime) } : {}) };
        try {
          const key = await api<MintedKey>(path, { method: 'POST', body, signal });
          fill(
            minted,
            h(
              'div',
              { class: 'minted card', role: 'alert' },
              h('p', {}, h('strong', {}, 'Copy this key now: '), 'it is shown only once and cannot be read again.'),
              h('p', { class: 'key-line' }, h('code', { class: 'secret', 'data-testid': 'minted-key' }, key.key), copyButton(key.key, 'Copy key')),
            ),
          );
          await refresh();
        } catch (err) {
          fill(minted, errorBox(err));
        }
      },
    },
    labelled('Access', select('scopes', ACCESS, 'read,write'), 'a read-only key is refused every change (403)'),
    labelled('Expiry', select('expiresIn', LIFETIMES, '')),
    h('button', { type: 'submit', class: 'primary' }, 'Mint a key'),
  );

  void refresh();
  return h('section', { 'aria-labelledby': 'keys-h', class: 'block' }, h('h2', { id: 'keys-h' }, 'API keys'), can('mintKey') && mint, minted, list);
}
