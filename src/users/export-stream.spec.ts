import { coalesce, groupedJsonArray, jsonArray } from './export-stream';

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
