import { api } from '../api';
import { fill, h, type Child } from '../dom';
import { when } from '../format';
import type { PageContext } from '../page';
import { href, hrefWith } from '../router';
import type { CursorPage, Delivery, DeliveryDetail, Webhook } from '../types';
import { badge, cursorPager, empty, errorBox, idCode, labelled, load, pageHeader, select, table } from '../ui';

/** Deliveries read to judge an endpoint's health: its most recent ones. */
const HEALTH_SAMPLE = 50;

/** A game's webhook endpoints with their health; one endpoint's delivery log with every attempt. */
export function webhooksPage(ctx: PageContext): void {
  if (ctx.params.id) return deliveryLog(ctx);
  const { main, params, signal } = ctx;
  const list = h('section', { 'aria-label': 'Endpoints' });
  main.append(pageHeader('Webhooks'), list);
  void load(list, async () => {
    const { items } = await api<CursorPage<Webhook>>(`/v1/admin/games/${params.gameId}/webhooks`, { query: { limit: 100 }, signal });
    if (items.length === 0) return empty('No webhook endpoints: a game backend adds them with POST /v1/webhooks.');
    return table('Webhook endpoints', [
      { label: 'URL', cell: (w) => h('a', { href: href(['games', params.gameId, 'webhooks', w.id]) }, w.url) },
      { label: 'Format', cell: (w) => w.format },
      { label: 'Events', cell: (w) => (w.events.length ? w.events.join(', ') : 'all') },
      { label: 'Health', cell: (w) => health(params.gameId, w, signal) },
      { label: 'Created', cell: (w) => when(w.createdAt) },
    ], items);
  }, 'Loading endpoints');
}

/** An endpoint's health from its recent deliveries: how many failed, and the last answer. */
function health(gameId: string, w: Webhook, signal: AbortSignal): HTMLElement {
  const cell = h('span', {}, w.disabledAt ? badge(`disabled ${when(w.disabledAt)}`, 'bad') : '…');
  if (w.disabledAt) return cell;
  void api<CursorPage<Delivery>>(`/v1/admin/games/${gameId}/webhooks/${w.id}/deliveries`, { query: { limit: HEALTH_SAMPLE }, signal })
    .then(({ items }) => {
      if (items.length === 0) return fill(cell, badge('no deliveries yet'));
      const failed = items.filter((d) => d.status === 'failed').length;
      const retrying = items.filter((d) => d.status === 'pending' && d.attempts > 0).length;
      const tone = failed > 0 ? 'bad' : retrying > 0 ? 'warn' : 'ok';
      const word = tone === 'ok' ? 'healthy' : tone === 'warn' ? 'retrying' : 'failing';
      fill(cell, badge(word, tone), ` ${items.length - failed - retrying} ok, ${retrying} retrying, ${failed} failed of the last ${items.length}`);
    })
    .catch((err: unknown) => {
      if ((err as Error).name !== 'AbortError') fill(cell, errorBox(err));
    });
  return cell;
}

function deliveryLog({ main, params, route, signal }: PageContext): void {
  const base = `/v1/admin/games/${params.gameId}/webhooks/${params.id}/deliveries`;
  const status = route.query.get('status') ?? '';
  const cursor = route.query.get('cursor') ?? '';
  const form: HTMLFormElement = h(
    'form',
    { class: 'inline filters' },
    labelled('Status', select('status', [['', 'any'], ['pending', 'pending'], ['delivered', 'delivered'], ['failed', 'failed']], status)),
  );
  form.addEventListener('change', () => (location.hash = href(route.path, { status: (form.elements.namedItem('status') as HTMLSelectElement).value }).slice(1)));
  const list = h('section', { 'aria-label': 'Deliveries' });
  main.append(pageHeader('Delivery log', h('p', {}, h('a', { href: href(['games', params.gameId, 'webhooks']) }, '← All endpoints'), ' · endpoint ', idCode(params.id))), form, list);
  void load(list, async () => {
    const page = await api<CursorPage<Delivery>>(base, { query: { status, cursor, limit: 50 }, signal });
    if (page.items.length === 0) return empty(status ? `No ${status} deliveries.` : 'No deliveries yet.');
    return [
      h('ol', { class: 'deliveries' }, page.items.map((d) => deliveryItem(base, d, signal))),
      cursorPager(!cursor, hrefWith(route, { cursor: '' }), page.nextCursor ? hrefWith(route, { cursor: page.nextCursor }) : null),
    ];
  }, 'Loading deliveries');
}

/** A delivery; opening it reads its attempts. */
function deliveryItem(base: string, d: Delivery, signal: AbortSignal): HTMLElement {
  const attempts = h('div');
  const details = h(
    'details',
    {},
    h(
      'summary',
      {},
      badge(d.status, d.status === 'delivered' ? 'ok' : d.status === 'failed' ? 'bad' : 'warn'),
      ` ${d.eventType ?? 'event'} · ${d.attempts} attempt${d.attempts === 1 ? '' : 's'} · ${when(d.createdAt)}`,
      d.lastStatusCode !== null ? ` · last answer ${d.lastStatusCode}` : '',
    ),
    attempts,
  );
  details.addEventListener('toggle', () => {
    if (!details.open || attempts.childElementCount > 0) return;
    void load(attempts, async () => {
      const detail = await api<DeliveryDetail>(`${base}/${d.id}`, { signal });
      const rows: Child[] = [
        h('p', { class: 'muted' }, 'Event ', h('code', {}, detail.eventId), detail.nextAttemptAt ? ` · next attempt ${when(detail.nextAttemptAt)}` : ''),
      ];
      if (detail.attemptLog.length === 0) return [...rows, empty('Not attempted yet.')];
      return [
        ...rows,
        table('Attempts', [
          { label: '#', numeric: true, cell: (a) => String(a.number) },
          { label: 'At', cell: (a) => when(a.at) },
          { label: 'Answer', cell: (a) => (a.statusCode === null ? '—' : String(a.statusCode)) },
          { label: 'Error', cell: (a) => a.error ?? '—' },
          { label: 'Took', numeric: true, cell: (a) => `${a.durationMs} ms` },
        ], detail.attemptLog),
      ];
    }, 'Loading attempts');
  });
  return h('li', {}, details);
}
