import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExportSpool } from './export-spool';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'export-spool-spec-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Files of `dir` this process holds open (Linux: a spool unlinked at once shows as "(deleted)"). */
function openFilesIn(where: string): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(where)) out.push(target);
    } catch {
      // closed meanwhile
    }
  }
  return out;
}

/** Nothing of the spool is left: no name in the directory, no descriptor open on it. */
function nothingLeft(): void {
  expect(readdirSync(dir)).toEqual([]);
  expect(openFilesIn(dir)).toEqual([]);
}

const closed = (s: ExportSpool) => new Promise<void>((resolve) => (s.closed ? resolve() : s.once('close', () => resolve())));

/** Piece `i`: `size` bytes that name their number, so any reordering or loss shows. */
const piece = (i: number, size = 1000) => `<${i}>`.padEnd(size, String.fromCharCode(97 + (i % 26)));

/** Reads the spool whole, pausing `delayMs` after each chunk (a slow reader). */
function readAll(s: ExportSpool, delayMs = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    s.on('data', (chunk: Buffer) => {
      parts.push(chunk);
      if (!delayMs) return;
      s.pause();
      setTimeout(() => s.resume(), delayMs);
    });
    s.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    s.on('error', reject);
  });
}

describe('ExportSpool', () => {
  it('gives back everything in order across the memory/file boundary, and spills to a file only past the memory bound', async () => {
    const sut = new ExportSpool({ memoryBytes: 10_000, readBytes: 3_000, dir });
    const pieces = Array.from({ length: 200 }, (_, i) => piece(i, 700 + (i % 5) * 300));
    // The first six pieces, 7,200 bytes, fit in memory.
    for (let i = 0; i < 6; i++) expect(await sut.put(pieces[i])).toBe(true);
    expect(sut.spilledTo).toBeNull();
    for (let i = 6; i < pieces.length; i++) expect(await sut.put(pieces[i])).toBe(true);
    expect(sut.spilledTo).toEqual(expect.stringContaining(dir));
    sut.complete();
    expect(await readAll(sut)).toBe(pieces.join(''));
    await closed(sut);
    nothingLeft();
  });

  it('keeps memory bounded: what does not fit is in the file, and the file is unlinked while open', async () => {
    const sut = new ExportSpool({ memoryBytes: 4_096, dir });
    for (let i = 0; i < 100; i++) await sut.put(piece(i));
    // 100 KB written, nothing read: at most the bound in memory, the rest on disk under no name.
    expect(readdirSync(dir)).toEqual([]);
    expect(openFilesIn(dir)).toEqual([expect.stringMatching(/guildhall-export-.* \(deleted\)$/)]);
    sut.complete();
    expect((await readAll(sut)).length).toBe(100_000);
    await closed(sut);
    nothingLeft();
  });

  it('serves a reader slower than the writer: the writer never waits for it', async () => {
    const sut = new ExportSpool({ memoryBytes: 2_000, readBytes: 1_500, dir });
    const pieces = Array.from({ length: 60 }, (_, i) => piece(i, 500));
    // The reader takes one chunk, then stops until it is let go.
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const got: string[] = [];
    const reading = (async () => {
      for await (const chunk of sut) {
        got.push((chunk as Buffer).toString('utf8'));
        if (got.length === 1) await held;
      }
      return got.join('');
    })();
    // Every piece is taken while the reader is held at its first chunk.
    for (const p of pieces) expect(await sut.put(p)).toBe(true);
    sut.complete();
    expect(got.length).toBeLessThanOrEqual(1);
    letGo();
    expect(await reading).toBe(pieces.join(''));
    await closed(sut);
    nothingLeft();
  });

  it('serves a reader faster than the writer: it waits for more, in memory and from the file', async () => {
    const sut = new ExportSpool({ memoryBytes: 1_500, readBytes: 700, dir });
    const pieces = Array.from({ length: 40 }, (_, i) => piece(i, i % 10 === 0 ? 4_000 : 300));
    const reading = readAll(sut);
    for (const p of pieces) {
      await sut.put(p);
      await sleep(2);
    }
    sut.complete();
    expect(await reading).toBe(pieces.join(''));
    await closed(sut);
    nothingLeft();
  });

  it('starts the answer with the first piece, before the writer is done', async () => {
    const sut = new ExportSpool({ dir });
    const first = new Promise<string>((resolve) => sut.once('data', (c: Buffer) => resolve(c.toString())));
    await sut.put('{"exportedAt":');
    expect(await first).toBe('{"exportedAt":');
    sut.destroy();
    await closed(sut);
  });

  it('ends empty when nothing was put', async () => {
    const sut = new ExportSpool({ dir });
    sut.complete();
    expect(await readAll(sut)).toBe('');
    await closed(sut);
    nothingLeft();
  });

  it("a writer's failure cuts the answer short with its error, and removes the file", async () => {
    const sut = new ExportSpool({ memoryBytes: 1_000, dir });
    for (let i = 0; i < 10; i++) await sut.put(piece(i));
    expect(openFilesIn(dir)).toHaveLength(1);
    const reading = readAll(sut);
    sut.fail(new Error('connection lost'));
    await expect(reading).rejects.toThrow('connection lost');
    await closed(sut);
    nothingLeft();
  });

  it('destroyed mid-way (the client went away): the file goes, and the writer is told nobody reads', async () => {
    const sut = new ExportSpool({ memoryBytes: 1_000, readBytes: 500, dir });
    for (let i = 0; i < 20; i++) await sut.put(piece(i));
    const firstChunk = await new Promise<Buffer>((resolve) => sut.once('data', resolve));
    expect(firstChunk.toString()).toBe(piece(0));
    sut.pause();
    expect(openFilesIn(dir)).toHaveLength(1);
    sut.destroy();
    await closed(sut);
    nothingLeft();
    expect(await sut.put(piece(99))).toBe(false);
    nothingLeft();
  });

  it('destroyed while the file is being made or written: nothing is left either', async () => {
    const sut = new ExportSpool({ memoryBytes: 10, dir });
    const writing = sut.put(piece(1, 100_000));
    sut.destroy();
    expect(await writing).toBe(false);
    await closed(sut);
    nothingLeft();
  });

  it('where an open file cannot be unlinked, it is deleted when the spool closes', async () => {
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    let Spool: typeof ExportSpool | undefined;
    Object.defineProperty(process, 'platform', { value: 'win32' });
    try {
      jest.isolateModules(() => {
        ({ ExportSpool: Spool } = jest.requireActual<typeof import('./export-spool')>('./export-spool'));
      });
    } finally {
      Object.defineProperty(process, 'platform', platform);
    }
    const sut = new Spool!({ memoryBytes: 10, dir });
    await sut.put(piece(1));
    expect(existsSync(sut.spilledTo!)).toBe(true);
    sut.destroy();
    await closed(sut);
    nothingLeft();
  });
});
