import { h } from '../dom';
import { count } from '../format';

/** A row of headline figures. */
export function headline(figures: Array<[label: string, value: number | string]>): HTMLElement {
  return h(
    'dl',
    { class: 'headline' },
    figures.map(([label, value]) => h('div', {}, h('dt', {}, label), h('dd', {}, typeof value === 'number' ? count(value) : value))),
  );
}
