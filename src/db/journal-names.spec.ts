import { documentNames, journalNames, loadUnindexedWords, nameHash, requireSameNameHash } from './journal-names';

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

describe('journalNames', () => {
  const audit = { actorUserId: '018F3C5E-6D2B-7C11-8A3B-5F2C9E1D4A7B', targetId: 'kestrel', payload: { via: 'public-join' } };
  const body = { type: 'member.joined', data: { userId: 'kestrel', status: 'active' } };
  const sorted = (strings: string[]) => [...new Set(strings.map(nameHash))].sort((x, y) => x - y);

  it('hashes both parts\' strings, the actor in lower case, once each, ascending', () => {
    expect(journalNames(audit, body)).toEqual(
      sorted(['type', 'member.joined', 'data', 'userId', 'kestrel', 'status', 'active', 'via', 'public-join', '018f3c5e-6d2b-7c11-8a3b-5f2c9e1d4a7b']),
    );
    expect(journalNames(null, null)).toEqual([]);
  });

  it('leaves out the hashes it is given, and nothing else', () => {
    const words = new Set(['type', 'member.joined', 'data', 'userId', 'status', 'active', 'via', 'public-join'].map(nameHash));
    expect(journalNames(audit, body, words)).toEqual(sorted(['kestrel', '018f3c5e-6d2b-7c11-8a3b-5f2c9e1d4a7b']));
    // A player whose id is a listed word loses it too: the readers ask the same list first.
    expect(journalNames({ ...audit, targetId: 'status' }, null, words)).toEqual(sorted(['018f3c5e-6d2b-7c11-8a3b-5f2c9e1d4a7b']));
  });

  it('takes the words to leave out from journal_unindexed_names, by hash', async () => {
    const asked: string[] = [];
    const words = await loadUnindexedWords(async (sql) => {
      asked.push(sql);
      return [{ hash: 7 }, { hash: -3 }];
    });
    expect(asked).toEqual(['SELECT hash FROM journal_unindexed_names']);
    expect(words).toEqual(new Set([7, -3]));
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
