import { documentNames, nameHash, requireSameNameHash } from './journal-names';

describe('documentNames', () => {
  it('lists every string value and every object key at any depth, not array indexes or other values', () => {
    const names = documentNames({ a: 'x', n: 1, t: true, z: null, list: ['y', 2, { k: 'v' }], deep: { deeper: { s: 's' } } });
    expect(names.sort()).toEqual(['a', 'deep', 'deeper', 'k', 'list', 'n', 's', 's', 't', 'v', 'x', 'y', 'z']);
  });

  it('sees the document as JSON.stringify writes it: a toJSON value, no dropped property', () => {
    const at = new Date('2026-11-30T20:00:00.000Z');
    const names = documentNames({ at, gone: undefined, fn: () => 1, sym: Symbol('s'), inArray: [undefined, 'kept'] });
    expect(names.sort()).toEqual(['2026-11-30T20:00:00.000Z', 'at', 'inArray', 'kept'].sort());
  });

  it('keeps a string met twice twice, and the empty key and string', () => {
    expect(documentNames({ '': '', a: 'a' })).toEqual(['', '', 'a', 'a']);
  });

  it('has nothing for an empty object, and a string document is its own name', () => {
    expect(documentNames({})).toEqual([]);
    expect(documentNames('alone')).toEqual(['alone']);
  });
});

describe('requireSameNameHash', () => {
  const answering = (hash: (s: string) => number) => async (_sql: string, params: unknown[]) => (params[0] as string[]).map((s) => ({ s, h: hash(s) }));

  it('lets a server that hashes as this build does start', async () => {
    await expect(requireSameNameHash(answering(nameHash))).resolves.toBeUndefined();
  });

  it('refuses one that hashes a probe otherwise, naming it', async () => {
    const other = answering((s) => (s === 'guildhall' ? nameHash(s) ^ 1 : nameHash(s)));
    await expect(requireSameNameHash(other)).rejects.toThrow(/svc_name_hash\("guildhall"\) is .*big-endian/);
  });
});
