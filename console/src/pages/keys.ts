import { can } from '../access';
import { api } from '../api';
import { fill, h } from '../dom';
import { when } from '../format';
import type { ApiKey, MintedKey } from '../types';
import { badge, copyButton, empty, errorBox, load, table } from '../ui';

/** A game's API keys: list, and for an admin mint (the key shown once) and revoke. */
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
        { label: 'Created', cell: (k) => when(k.createdAt) },
        { label: 'State', cell: (k) => (k.revokedAt ? badge(`revoked ${when(k.revokedAt)}`, 'bad') : badge('active', 'ok')) },
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

  const mint = h('button', {
    type: 'button',
    class: 'primary',
    onclick: async () => {
      try {
        const key = await api<MintedKey>(path, { method: 'POST', signal });
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
  }, 'Mint a key');

  void refresh();
  return h('section', { 'aria-labelledby': 'keys-h', class: 'block' }, h('div', { class: 'section-head' }, h('h2', { id: 'keys-h' }, 'API keys'), can('mintKey') && mint), minted, list);
}
