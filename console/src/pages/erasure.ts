import { h } from '../dom';
import { count } from '../format';
import { ERASED_COUNTS, type ErasedCounts } from '../types';

/** What an erasure removed, as a sentence: "3 memberships, 1 friendship…" (every count, zeros too). */
export function removedText(removed: Partial<ErasedCounts>): string {
  return ERASED_COUNTS.map(([key, many, one]) => {
    const n = removed[key] ?? 0;
    return `${count(n)} ${n === 1 ? one : many}`;
  }).join(', ');
}

/** What an erasure removed, one figure a row. */
export function removedTable(removed: Partial<ErasedCounts>): HTMLElement {
  return h(
    'dl',
    { class: 'removed' },
    ERASED_COUNTS.map(([key, label]) => h('div', {}, h('dt', {}, label), h('dd', { 'data-count': key }, count(removed[key] ?? 0)))),
  );
}
