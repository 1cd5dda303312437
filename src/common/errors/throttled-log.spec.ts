import { ThrottledLog } from './throttled-log';

describe('ThrottledLog', () => {
  let lines: [string, number][];
  let sut: ThrottledLog<string>;

  beforeEach(() => {
    jest.useFakeTimers();
    lines = [];
    sut = new ThrottledLog((detail, count) => lines.push([detail, count]), 1_000);
  });
  afterEach(() => jest.useRealTimers());

  it('writes the first occurrence at once', () => {
    sut.note('a');

    expect(lines).toEqual([['a', 1]]);
  });

  it('folds the occurrences of the rest of the interval into one line at its end, with the latest detail', () => {
    sut.note('a');
    sut.note('b');
    sut.note('c');
    expect(lines).toEqual([['a', 1]]);

    jest.advanceTimersByTime(1_000);

    expect(lines).toEqual([
      ['a', 1],
      ['c', 2],
    ]);
  });

  it('writes at most one line per interval while occurrences keep coming', () => {
    for (let ms = 0; ms < 10_000; ms += 10) {
      sut.note(`at ${ms}`);
      jest.advanceTimersByTime(10);
    }
    jest.advanceTimersByTime(1_000);

    expect(lines.length).toBeLessThanOrEqual(11);
    expect(lines.reduce((n, [, count]) => n + count, 0)).toBe(1_000);
  });

  it('writes nothing more once occurrences stop, and writes the next one at once', () => {
    sut.note('a');
    jest.advanceTimersByTime(5_000);
    expect(lines).toEqual([['a', 1]]);

    sut.note('b');

    expect(lines).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
  });
});
