import { ApiFailure } from './api';
import { h, fill, type Child } from './dom';
import { shortId } from './format';

export const loading = (what = 'Loading'): HTMLElement => h('p', { class: 'state loading', role: 'status' }, `${what}…`);
export const empty = (text: string): HTMLElement => h('p', { class: 'state empty' }, text);

/** An error as the service's envelope gives it, with the request id to quote when reporting. */
export function errorBox(err: unknown): HTMLElement {
  if (err instanceof ApiFailure) {
    return h(
      'div',
      { class: 'error', role: 'alert' },
      h('p', {}, h('strong', {}, err.status ? `${err.status} ${err.code}` : err.code), ': ', err.message),
      err.requestId && h('p', { class: 'request-id' }, 'Request id ', h('code', {}, err.requestId)),
    );
  }
  return h('div', { class: 'error', role: 'alert' }, h('p', {}, String((err as Error)?.message ?? err)));
}

/**
 * Fills `target` with what `load` builds, showing a loading state first and the error envelope on
 * failure. A load aborted by navigating away leaves the page alone.
 */
export async function load(target: Element, build: () => Promise<Child>, what?: string): Promise<void> {
  fill(target, loading(what));
  target.setAttribute('aria-busy', 'true');
  try {
    const content = await build();
    fill(target, content);
  } catch (err) {
    if ((err as Error).name === 'AbortError') return;
    fill(target, errorBox(err));
  } finally {
    target.removeAttribute('aria-busy');
  }
}

export interface Column<T> {
  label: string;
  cell: (row: T) => Child;
  numeric?: boolean;
}

export function table<T>(caption: string, columns: Column<T>[], rows: T[]): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      h('caption', { class: 'sr-only' }, caption),
      h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', class: c.numeric ? 'num' : undefined }, c.label)))),
      h('tbody', {}, rows.map((row) => h('tr', {}, columns.map((c) => h('td', { class: c.numeric ? 'num' : undefined }, c.cell(row)))))),
    ),
  );
}

/** Previous/next links of an offset-paged list, with where the page sits in the whole. */
export function offsetPager(offset: number, limit: number, shown: number, total: number, hrefAt: (offset: number) => string): HTMLElement {
  const first = total === 0 ? 0 : offset + 1;
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    offset > 0 ? h('a', { href: hrefAt(Math.max(0, offset - limit)), rel: 'prev' }, '← Previous') : h('span', { class: 'muted' }, '← Previous'),
    h('span', { class: 'page-status', role: 'status' }, `${first}–${offset + shown} of ${total}`),
    offset + shown < total ? h('a', { href: hrefAt(offset + limit), rel: 'next' }, 'Next →') : h('span', { class: 'muted' }, 'Next →'),
  );
}

/** A cursor-paged list: back to the first page, or on to the next cursor; `label` tells two lists of a page apart. */
export function cursorPager(onFirst: boolean, firstHref: string, nextHref: string | null, [first, next] = ['⇤ Newest', 'Older →'], label = 'Pages'): HTMLElement {
  return h(
    'nav',
    { class: 'pager', 'aria-label': label },
    onFirst ? h('span', { class: 'muted' }, first) : h('a', { href: firstHref }, first),
    nextHref ? h('a', { href: nextHref, rel: 'next' }, next) : h('span', { class: 'muted' }, next),
  );
}

export const idCode = (id: string | null | undefined): Child => (id ? h('code', { title: id }, shortId(id)) : '—');

export function badge(text: string, tone: 'ok' | 'warn' | 'bad' | 'neutral' = 'neutral'): HTMLElement {
  return h('span', { class: `badge ${tone}` }, text);
}

/** A button that copies `text`, saying so where screen readers hear it. */
export function copyButton(text: string, label = 'Copy'): HTMLElement {
  const said = h('span', { class: 'copied', role: 'status' });
  const button = h('button', {
    type: 'button',
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(text);
        said.textContent = 'Copied';
      } catch {
        said.textContent = 'Copy failed: select the text and copy it';
      }
    },
  }, label);
  return h('span', { class: 'copy' }, button, said);
}

/** A labelled form control. */
export function labelled(label: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  control.id = id;
  const hintId = hint ? `${id}-hint` : undefined;
  if (hintId) control.setAttribute('aria-describedby', hintId);
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hint && h('small', { id: hintId }, hint));
}

export function select(name: string, options: Array<[value: string, label: string]>, current: string): HTMLSelectElement {
  return h('select', { name }, options.map(([value, label]) => h('option', { value, selected: value === current }, label)));
}

export function pageHeader(title: string, ...extra: Child[]): HTMLElement {
  return h('div', { class: 'page-head' }, h('h1', { tabindex: '-1' }, title), ...extra);
}

/** A line to show once, on the next page drawn: what a change just did (the page redraws after it). */
let pending: string | null = null;
export const flash = (text: string): void => {
  pending = text;
};
export function takeFlash(): HTMLElement | null {
  const text = pending;
  pending = null;
  return text === null ? null : h('p', { class: 'flash', role: 'status' }, text);
}
