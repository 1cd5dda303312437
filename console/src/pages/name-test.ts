import { api } from '../api';
import { fill, h, type Child } from '../dom';
import type { NameMatch, NamesTest } from '../types';
import { badge, errorBox, labelled } from '../ui';

/** How long typing pauses before the text is tried: one call a pause, not one a key. */
const PAUSE_MS = 250;

/**
 * A box to try a name against the game's saved name policy (POST names/test) as the operator
 * types: the words found are highlighted in the text, each with its list.
 */
export function nameTestBox(gameId: string, signal: AbortSignal): HTMLElement {
  const out = h('div', { class: 'name-test-result', 'aria-live': 'polite', 'data-testid': 'name-test-result' });
  const input = h('input', { name: 'text', type: 'text', maxlength: 120, autocomplete: 'off', placeholder: 'The 0fficial 4dm1n Squad' });
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Only the latest text's answer is drawn: an earlier call still on its way is cancelled.
  let inFlight: AbortController | null = null;
  const tryText = async (text: string) => {
    inFlight?.abort();
    if (signal.aborted || !text.trim()) return fill(out);
    const mine = new AbortController();
    inFlight = mine;
    const stop = () => mine.abort();
    signal.addEventListener('abort', stop, { once: true });
    try {
      const answer = await api<NamesTest>(`/v1/admin/games/${gameId}/names/test`, { method: 'POST', body: { text }, signal: mine.signal });
      fill(out, result(text, answer));
    } catch (err) {
      if ((err as Error).name !== 'AbortError') fill(out, errorBox(err));
    } finally {
      signal.removeEventListener('abort', stop);
    }
  };
  input.addEventListener('input', () => {
    clearTimeout(timer);
    // The answer to an earlier text would mislead while the new one is on its way.
    inFlight?.abort();
    fill(out);
    timer = setTimeout(() => void tryText(input.value), PAUSE_MS);
  });
  return h(
    'div',
    { class: 'name-test' },
    labelled('Try a name', input, 'Against the saved lists, as a player’s group create would meet them.'),
    out,
  );
}

function result(text: string, { allowed, matches }: NamesTest): Child {
  if (allowed) return h('p', {}, badge('allowed', 'ok'), ' No blocked or reserved word in this name.');
  return [
    h('p', {}, badge('not allowed', 'bad'), ' A player could not use this name.'),
    h('p', { class: 'name-marked' }, marked(text, matches)),
    h('ul', { class: 'plain' }, matches.map((m) => h('li', {}, h('code', {}, text.slice(m.start, m.end)), ' matches ', h('code', {}, m.word), ' ', badge(m.list, m.list === 'blocked' ? 'bad' : 'warn')))),
  ];
}

/** The text with each match in a <mark> naming its list; where matches overlap, the first one marks. */
function marked(text: string, matches: NameMatch[]): Child[] {
  const parts: Child[] = [];
  let at = 0;
  for (const m of [...matches].sort((a, b) => a.start - b.start)) {
    if (m.end <= at) continue;
    const start = Math.max(m.start, at);
    if (start > at) parts.push(text.slice(at, start));
    parts.push(h('mark', { class: m.list, title: `${m.word} (${m.list})` }, text.slice(start, m.end)));
    at = m.end;
  }
  parts.push(text.slice(at));
  return parts;
}
