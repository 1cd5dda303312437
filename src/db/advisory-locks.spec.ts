import { advisoryLockValues } from './advisory-locks';

describe('advisoryLockValues', () => {
  it('spells the keys, the groups and the modes as three array literals, in the order given', () => {
    const group = '01a211ce-3ad1-7000-8000-000000000001';
    expect(
      advisoryLockValues([
        { group, exclusive: false },
        { key: 42n, exclusive: false },
        { key: '-9223372036854775808', exclusive: true },
      ]),
    ).toEqual([`{NULL,42,-9223372036854775808}`, `{${group},NULL,NULL}`, '{f,f,t}']);
  });

  it('refuses what is not a key or a group id, so that nothing else is ever spelled into a literal', () => {
    expect(() => advisoryLockValues([{ key: '1,2', exclusive: true }])).toThrow('not a lock key');
    expect(() => advisoryLockValues([{ key: '12345678901234567890', exclusive: true }])).toThrow('not a lock key');
    expect(() => advisoryLockValues([{ group: "x'}", exclusive: false }])).toThrow('not a group id');
  });
});
