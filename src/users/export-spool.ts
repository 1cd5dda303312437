import { randomBytes } from 'node:crypto';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';

export interface SpoolOptions {
  /** Unread bytes kept in memory; past it, what is written goes to a temporary file. */
  memoryBytes?: number;
  /** The largest piece read back from the file at once. */
  readBytes?: number;
  /** Where the file goes: os.tmpdir() by default, read when the file is made. */
  dir?: string;
}

/** The spool files' names start with this, in the spool's directory. */
export const SPOOL_FILE_PREFIX = 'guildhall-export-';

const MIB = 1024 * 1024;

/** Open files may be unlinked (the name goes at once, the bytes with the last descriptor) everywhere but Windows. */
const UNLINK_WHILE_OPEN = process.platform !== 'win32';

interface SpoolFile {
  handle: FileHandle;
  path: string;
  unlinked: boolean;
}

/**
 * A buffer between a writer that never waits for the reader and a reader that takes its time: an
 * export's document is written at the database's pace while the client reads it at its own. The
 * stream gives back, in order, everything written, starting with the first byte written.
 *
 * Up to `memoryBytes` unread bytes stay in memory; beyond that, writes are appended to a temporary
 * file and read back from it, so memory stays bounded whatever the size of the document. The file
 * is made only when needed, unlinked as soon as it is open where the platform allows it (a crash
 * leaves nothing behind: the bytes go with the process's descriptor), and closed (and unlinked, if
 * not yet) when the stream closes, whichever way: read to the end, failed, or destroyed.
 *
 * The writer's side is {@link put}, {@link complete} and {@link fail} (not `write` and `end`, which
 * would make Node's stream utilities take the spool for a writable stream). A `put` resolves once
 * its bytes can be read (in memory, or written to the file), so the writer waits for the disk,
 * never for the reader; it resolves false once the stream is closed, when nobody will read any more.
 */
export class ExportSpool extends Readable {
  private readonly memoryLimit: number;
  private readonly readLimit: number;
  private readonly dir: string | undefined;

  /** Unread bytes in memory, oldest first: all of them come before any unread byte of the file. */
  private readonly memory: Buffer[] = [];
  private memoryUnread = 0;
  private file: SpoolFile | null = null;
  private opening: Promise<SpoolFile> | null = null;
  /** Bytes handed to the file (written or being written), and bytes of it written and readable. */
  private fileEnd = 0;
  private fileWritten = 0;
  private fileRead = 0;
  /** One write at a time, in order, whoever calls. */
  private writes: Promise<unknown> = Promise.resolve();
  private ended = false;
  private wanted = false;
  private readingFile = false;

  constructor(options: SpoolOptions = {}) {
    super();
    this.memoryLimit = options.memoryBytes ?? MIB;
    this.readLimit = options.readBytes ?? 64 * 1024;
    this.dir = options.dir;
  }

  /** The file's path once one was made (it may already be unlinked); null while everything fit in memory. */
  get spilledTo(): string | null {
    return this.file?.path ?? null;
  }

  /** Appends `data` after everything put before. */
  put(data: string | Buffer): Promise<boolean> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const step = this.writes.then(() => this.append(bytes));
    this.writes = step.catch(() => undefined);
    return step;
  }

  /** Nothing more to put: the reader ends once it has read everything. */
  complete(): void {
    this.ended = true;
    this.pump();
  }

  /** The writer failed: the stream is destroyed with `err` (the reader sees an answer cut short). */
  fail(err: Error): void {
    this.destroy(err);
  }

  override _read(): void {
    this.wanted = true;
    this.pump();
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.memory.length = 0;
    this.memoryUnread = 0;
    // The handle's close waits for a read or write in flight on it. A file that cannot be closed or
    // unlinked any more is past helping; the reader's outcome is what the stream reports.
    void this.removeFile()
      .catch(() => undefined)
      .then(() => callback(err));
  }

  private async append(bytes: Buffer): Promise<boolean> {
    if (this.destroyed) return false;
    if (bytes.length === 0) return true;
    // Into memory only while the file holds nothing unread: order is memory first, then the file.
    if (this.fileEnd === this.fileRead && this.memoryUnread + bytes.length <= this.memoryLimit) {
      this.memory.push(bytes);
      this.memoryUnread += bytes.length;
      this.pump();
      return true;
    }
    try {
      const file = await this.openFile();
      const at = this.fileEnd;
      this.fileEnd += bytes.length;
      for (let done = 0; done < bytes.length; ) {
        if (this.destroyed) return false;
        const { bytesWritten } = await file.handle.write(bytes, done, bytes.length - done, at + done);
        done += bytesWritten;
      }
    } catch (err) {
      // A spool closed meanwhile (its file with it) is no failure of the writer's: nobody reads.
      if (this.destroyed) return false;
      throw err;
    }
    this.fileWritten = this.fileEnd;
    this.pump();
    return !this.destroyed;
  }

  private openFile(): Promise<SpoolFile> {
    this.opening ??= (async () => {
      const path = join(this.dir ?? tmpdir(), `${SPOOL_FILE_PREFIX}${process.pid}-${randomBytes(8).toString('hex')}.json`);
      const handle = await open(path, 'wx+', 0o600);
      const file: SpoolFile = { handle, path, unlinked: false };
      this.file = file;
      if (UNLINK_WHILE_OPEN) {
        await unlink(path);
        file.unlinked = true;
      }
      return file;
    })();
    return this.opening;
  }

  private async removeFile(): Promise<void> {
    // A file being made is waited for, so that it is removed too.
    const file = await this.opening?.catch(() => null);
    if (!file) return;
    await file.handle.close();
    if (!file.unlinked) await unlink(file.path);
  }

  /** Gives the reader what it can have now, while it wants more. */
  private pump(): void {
    while (this.wanted && !this.destroyed) {
      const next = this.memory.shift();
      if (next) {
        this.memoryUnread -= next.length;
        this.wanted = this.push(next);
        continue;
      }
      if (this.fileRead < this.fileWritten) {
        this.readFile();
        return;
      }
      if (this.ended && this.fileEnd === this.fileRead) {
        this.wanted = false;
        this.push(null);
      }
      return;
    }
  }

  private readFile(): void {
    if (this.readingFile || !this.file) return;
    this.readingFile = true;
    const length = Math.min(this.readLimit, this.fileWritten - this.fileRead);
    const buffer = Buffer.allocUnsafe(length);
    this.file.handle.read(buffer, 0, length, this.fileRead).then(
      ({ bytesRead }) => {
        this.readingFile = false;
        if (this.destroyed) return;
        if (bytesRead === 0) return this.destroy(new Error('the export spool file ended early'));
        this.fileRead += bytesRead;
        this.wanted = this.push(buffer.subarray(0, bytesRead));
        this.pump();
      },
      (err: unknown) => {
        this.readingFile = false;
        this.destroy(err instanceof Error ? err : new Error(String(err)));
      },
    );
  }
}
