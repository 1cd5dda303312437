import type { EntityManager } from 'typeorm';
import { EVERY_KEY, KeysNotHeld, sharedAnswers, sharedKey, waves, type SharedStatement, type SharedWrite } from './shared-write';

const w = (name: string, ...keys: string[]) => ({ name, keys });
const names = (runs: { name: string }[][]) => runs.map((run) => run.map((x) => x.name));

describe('waves', () => {
  it('keeps writes that name nothing in common in one run, in order', () => {
    expect(names(waves([w('a', 'g1', 'u1'), w('b', 'g2', 'u2'), w('c', 'g3', 'u3')]))).toEqual([['a', 'b', 'c']]);
  });

  it('starts a new run at a write naming a key its run holds, and never puts a later write in an earlier run', () => {
    const runs = waves([w('a', 'g1', 'u1'), w('b', 'g2', 'u2'), w('c', 'g1', 'u3'), w('d', 'g4', 'u4'), w('e', 'g5', 'u1')]);
    expect(names(runs)).toEqual([['a', 'b'], ['c', 'd', 'e']]);
  });

  it('gives each write of one key a run of its own', () => {
    expect(names(waves([w('a', 'g'), w('b', 'g'), w('c', 'g')]))).toEqual([['a'], ['b'], ['c']]);
  });

  it('gives a write naming every key a run of its own, in its place', () => {
    const every = { name: 'x', keys: EVERY_KEY };
    const runs = waves([w('a', 'g1'), w('b', 'g2'), every, w('c', 'g3'), { ...every, name: 'y' }, { ...every, name: 'z' }, w('d', 'g1')]);
    expect(names(runs)).toEqual([['a', 'b'], ['x'], ['c'], ['y'], ['z'], ['d']]);
  });

  it('keeps writes naming a key only shared in one run, and cuts at a write naming it plainly, either way round', () => {
    const g = sharedKey('g');
    const runs = waves([w('a', g, 'u1'), w('b', g, 'u2'), w('c', 'g', 'u3'), w('d', g, 'u4'), w('e', 'g2', 'u5'), w('f', g, 'u1')]);
    expect(names(runs)).toEqual([['a', 'b'], ['c'], ['d', 'e', 'f']]);
    expect(names(waves([w('a', g, 'u1'), w('b', g, 'u1')]))).toEqual([['a'], ['b']]);
  });

  it('answers no runs for no writes', () => {
    expect(waves([])).toEqual([]);
  });
});

describe('sharedAnswers', () => {
  const m = {} as EntityManager;
  const calls: string[] = [];
  const kind = (label: string): SharedStatement<number, string> => ({
    one: async (_m, r) => (calls.push(`${label}.one(${r})`), `${label}${r}`),
    many: async (_m, rs) => (calls.push(`${label}.many(${rs.join(',')})`), rs.map((r) => `${label}${r}*`)),
  });
  const write = (statement: SharedStatement<number, string>, request: number): SharedWrite => ({
    statement: statement as SharedStatement<unknown, unknown>,
    request,
    keys: [],
    then: async () => undefined,
  });

  it('sends one statement a kind, `one` for a write alone of its kind, and counts only the shared ones', async () => {
    calls.length = 0;
    const join = kind('j');
    const leave = kind('l');
    const wave = [write(join, 1), write(leave, 2), write(join, 3), write(join, 4)];
    const count = { statements: 0, writes: 0 };
    const answers = await sharedAnswers(m, wave, count);
    expect(calls).toEqual(['j.many(1,3,4)', 'l.one(2)']);
    expect(wave.map((x) => answers.get(x))).toEqual(['j1*', 'l2', 'j3*', 'j4*']);
    expect(count).toEqual({ statements: 1, writes: 3 });
  });

  it('fails a run of several writes when one answer shows its keys named wrongly, and never a write alone', async () => {
    const join = kind('j');
    const held = (ok: boolean): SharedWrite => ({ ...write(join, 5), keysHeld: (answer) => ok && answer === 'j5*' });
    const count = { statements: 0, writes: 0 };
    await expect(sharedAnswers(m, [write(join, 1), held(false)], count)).rejects.toBeInstanceOf(KeysNotHeld);
    await expect(sharedAnswers(m, [write(join, 1), held(true)], count)).resolves.toBeInstanceOf(Map);
    await expect(sharedAnswers(m, [held(false)], count)).resolves.toBeInstanceOf(Map);
  });
});
