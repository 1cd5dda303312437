import { coalesce, GeneratedStream, groupedJsonArray, jsonArray } from './export-stream';

async function* batchesOf<T>(...batches: T[][]): AsyncGenerator<T[], void, undefined> {
  for (const b of batches) yield b;
}

async function text(source: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const piece of source) out += piece;
  return out;
}

describe('jsonArray', () => {
  it('writes rows across batches as one array, leaving out rows the writer refuses', async () => {
    const sut = jsonArray(batchesOf([1, 2], [], [3, 4]), (n) => (n === 3 ? null : JSON.stringify({ n })));
    expect(JSON.parse(await text(sut))).toEqual([{ n: 1 }, { n: 2 }, { n: 4 }]);
  });

  it('is [] with no rows, or only refused ones', async () => {
    expect(await text(jsonArray(batchesOf<number>(), String))).toBe('[]');
    expect(await text(jsonArray(batchesOf([1]), () => null))).toBe('[]');
  });
});

describe('groupedJsonArray', () => {
  type Row = { id: string; name: string; child: string | null };
  const group = { idOf: (r: Row) => r.id, parent: (r: Row) => ({ id: r.id, name: r.name }), key: 'kids', child: (r: Row) => r.child };

  it('groups consecutive rows per parent, across batch boundaries, with the list as the last field', async () => {
    const rows: Row[][] = [
      [{ id: 'a', name: 'A', child: '1' }, { id: 'a', name: 'A', child: '2' }],
      [{ id: 'a', name: 'A', child: '3' }, { id: 'b', name: 'B', child: null }],
      [{ id: 'c', name: 'C', child: '4' }],
    ];
    const out = await text(groupedJsonArray(batchesOf(...rows), group));
    expect(JSON.parse(out)).toEqual([
      { id: 'a', name: 'A', kids: ['1', '2', '3'] },
      { id: 'b', name: 'B', kids: [] },
      { id: 'c', name: 'C', kids: ['4'] },
    ]);
    expect(Object.keys(JSON.parse(out)[0])).toEqual(['id', 'name', 'kids']);
  });

  it('is [] with no parents; a last parent without children closes', async () => {
    expect(await text(groupedJsonArray(batchesOf<Row>(), group))).toBe('[]');
    expect(JSON.parse(await text(groupedJsonArray(batchesOf([{ id: 'a', name: 'A', child: null }]), group)))).toEqual([{ id: 'a', name: 'A', kids: [] }]);
  });
});

describe('coalesce', () => {
  it('sends the first piece at once, then joins pieces up to the minimum, skipping empty ones', async () => {
    async function* pieces() {
      yield* ['{', '', 'aa', 'bb', 'cc', 'd'];
    }
    const out: string[] = [];
    for await (const chunk of coalesce(pieces(), 4)) out.push(chunk);
    expect(out).toEqual(['{', 'aabb', 'ccd']);
  });
});

describe('GeneratedStream', () => {
  function tracked(pieces: string[], failAt?: number) {
    const calls: (Error | null)[] = [];
    let finallyRan = false;
    async function* source(): AsyncGenerator<string, void, undefined> {
      try {
        for (let i = 0; i < pieces.length; i++) {
          if (i === failAt) throw new Error('read failed');
          yield pieces[i];
        }
      } finally {
        finallyRan = true;
      }
    }
    const sut = new GeneratedStream(source(), async (failure) => {
      calls.push(failure);
    });
    const closed = new Promise((resolve) => sut.once('close', resolve));
    return { sut, calls, closed, finallyRan: () => finallyRan };
  }

  it('streams every piece, then cleans up once, with no failure', async () => {
    const { sut, calls, closed } = tracked(['a', 'b', 'c']);
    const chunks: string[] = [];
    for await (const c of sut) chunks.push(String(c));
    expect(chunks.join('')).toBe('abc');
    await closed;
    expect(calls).toEqual([null]);
  });

  it('cleans up once when destroyed before anything was read', async () => {
    const { sut, calls, closed } = tracked(['a']);
    sut.destroy();
    await closed;
    expect(calls).toEqual([null]);
  });

  it('cleans up once when destroyed mid-stream (the client left), after the source has run its finally blocks', async () => {
    const { sut, calls, closed, finallyRan } = tracked(['a', 'b', 'c', 'd']);
    await new Promise<void>((resolve) => sut.once('data', () => resolve()));
    sut.destroy();
    await closed;
    expect(calls).toEqual([null]);
    expect(finallyRan()).toBe(true);
  });

  it('a failing source destroys the stream with its error, cleaned up with it', async () => {
    const { sut, calls, closed } = tracked(['a', 'b'], 1);
    const err = await new Promise<Error>((resolve) => {
      sut.on('error', resolve);
      sut.resume();
    });
    expect(err.message).toBe('read failed');
    await closed;
    expect(calls).toEqual([err]);
  });
});
