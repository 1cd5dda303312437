import { h, fill, field } from '../dom';
import { when } from '../format';
import type { PageContext } from '../page';
import { go, href } from '../router';
import { follow, type SseMessage } from '../sse';
import type { LiveEvent } from '../types';
import { badge, errorBox, labelled, pageHeader } from '../ui';

/** The most rows kept on screen: older ones drop off the bottom. */
const KEPT = 500;

/**
 * A game's (or one group's) live event stream, newest first, as events commit. Pausing holds new
 * events aside (counted) until resumed; the filter hides rows without dropping them.
 */
export function livePage({ main, params, route, signal }: PageContext): void {
  const groupId = route.query.get('group') ?? '';
  const path = groupId ? `/v1/admin/games/${params.gameId}/groups/${groupId}/events` : `/v1/admin/games/${params.gameId}/events`;
  let paused = false;
  let held: LiveEvent[] = [];
  let filter = '';

  const state = h('span', { class: 'live-state', role: 'status' });
  const problem = h('div');
  const rows = h('ol', { class: 'live', 'aria-label': 'Events, newest first', 'aria-live': 'off' });
  const waiting = h('p', { class: 'state empty' }, 'Waiting for events: they appear here as they happen.');
  const pause = h('button', { type: 'button', 'aria-pressed': 'false', onclick: () => setPaused(!paused) }, 'Pause');
  const filterInput = h('input', {
    type: 'search',
    name: 'filter',
    autocomplete: 'off',
    placeholder: 'member.joined, a user id…',
    oninput: () => {
      filter = filterInput.value.trim().toLowerCase();
      for (const row of Array.from(rows.children) as HTMLElement[]) row.hidden = !matches(row.dataset.text ?? '');
    },
  });
  const scope: HTMLFormElement = h(
    'form',
    {
      class: 'inline filters',
      onsubmit: (event: Event) => {
        event.preventDefault();
        go(href(route.path, { group: field(scope, 'group') }));
      },
    },
    labelled('Group id', h('input', { name: 'group', value: groupId, autocomplete: 'off', size: 38 }), 'empty: every event of the game'),
    h('button', { type: 'submit' }, 'Watch'),
  );

  const matches = (text: string) => !filter || text.includes(filter);

  function setPaused(value: boolean): void {
    paused = value;
    pause.textContent = paused ? 'Resume' : 'Pause';
    pause.setAttribute('aria-pressed', String(paused));
    if (!paused) {
      for (const e of held) show(e);
      held = [];
    }
    showState();
  }

  let connection: 'connecting' | 'live' | 'retrying' = 'connecting';
  function showState(): void {
    const tone = connection === 'live' ? 'ok' : connection === 'retrying' ? 'bad' : 'warn';
    fill(state, badge(connection, tone), paused ? ` paused, ${held.length} new held` : '');
  }

  function show(e: LiveEvent): void {
    waiting.remove();
    const text = JSON.stringify(e).toLowerCase();
    const row = h(
      'li',
      { 'data-type': e.type, 'data-text': text, hidden: !matches(text) },
      h('time', { datetime: e.occurredAt }, when(e.occurredAt)),
      h('strong', { class: 'action' }, e.type),
      h('span', {}, summary(e)),
      h('details', {}, h('summary', {}, 'Event'), h('pre', { class: 'payload' }, JSON.stringify(e, null, 2))),
    );
    rows.prepend(row);
    while (rows.children.length > KEPT) rows.lastElementChild?.remove();
  }

  function receive(m: SseMessage): void {
    let e: LiveEvent;
    try {
      e = JSON.parse(m.data) as LiveEvent;
    } catch {
      return;
    }
    if (paused) {
      held.push(e);
      showState();
    } else show(e);
  }

  main.append(
    pageHeader(groupId ? 'Live: one group' : 'Live: the whole game'),
    scope,
    h('div', { class: 'toolbar' }, state, pause, labelled('Filter', filterInput)),
    problem,
    waiting,
    rows,
  );
  void follow(path, signal, receive, (s, detail) => {
    connection = s;
    showState();
    fill(problem, s === 'retrying' && detail ? errorBox(detail) : null);
  });
}

/** Who and what an event is about, from the fields its type carries. */
function summary(e: LiveEvent): string {
  const parts: string[] = [];
  const member = e.member as { userId?: string } | undefined;
  const group = e.group as { name?: string } | undefined;
  if (member?.userId) parts.push(`user ${member.userId}`);
  if (typeof e.userId === 'string') parts.push(`user ${e.userId}`);
  if (group?.name) parts.push(`group ${group.name}`);
  else if (e.groupId) parts.push(`group ${e.groupId}`);
  return parts.join(' · ');
}
