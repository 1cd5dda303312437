import { toPage, toPageJson } from './page';

describe('toPageJson', () => {
  const map = (n: number) => ({ n, s: `"${n}"` });
  const cursorOf = (n: number) => `c"${n}`;

  it.each([[[]], [[1]], [[1, 2, 3]], [[1, 2, 3, 4]]])('writes toPage of %j as JSON.stringify does', (rows: number[]) => {
    expect(toPageJson(rows, 3, (n) => JSON.stringify(map(n)), cursorOf)).toBe(JSON.stringify(toPage(rows, 3, map, cursorOf)));
  });
});
