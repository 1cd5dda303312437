import { open, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { isPlainObject, LedgerProblem, parseApplyErasures, type ErasureEntryDto } from '../erasures/dto/erasure.dto';
import { JsonSyntaxError, lineOfPath, parseJsonText } from './json-lines';
import { usageError, UsageError, type CommandName } from './operator-args';

/** A ledger as the export commands print it: the body the apply commands take, one field a line. */
export const ledgerText = (items: readonly object[]): string => JSON.stringify({ items }, null, 1);

/**
 * Writes `content()` to a file it creates, readable and writable by its owner only: the hashes
 * confirm a guessed player id, and the rest says which keys and operators lost their access. An
 * existing file is refused, never overwritten, because an export from a database restored from an
 * older backup lacks the entries made since, and would replace the one file that still holds them.
 * The name is taken before the ledger is read, so a refusal comes at once; if anything fails after
 * that, the file is removed rather than left half written. `shown` is the name as the operator gave it.
 */
export async function writeNewLedgerFile(path: string, shown: string, command: CommandName, content: () => Promise<string>): Promise<void> {
  let file: FileHandle;
  try {
    file = await open(path, 'wx', 0o600);
  } catch (err) {
    const { code, message } = err as NodeJS.ErrnoException;
    if (code === 'EEXIST') {
      throw new UsageError(`${shown} exists; nothing was written: --out never replaces a file (an export from a restored database may lack entries it holds): name a new one`);
    }
    throw usageError(command, `cannot create ${shown} (${message.split('\n')[0]})`);
  }
  try {
    await file.writeFile(await content());
    await file.sync();
    await file.close();
  } catch (err) {
    await file.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw err;
  }
}

/**
 * An `erasures:export` file, held to the erasure apply route's own rules. A `ledger export` file
 * is refused rather than applied in part: its revocations and operator changes would be skipped.
 */
export function erasureLedger(body: unknown): ErasureEntryDto[] {
  const items: unknown[] = isPlainObject(body) && Array.isArray(body.items) ? body.items : [];
  const at = items.findIndex((item) => isPlainObject(item) && item.kind !== undefined);
  if (at >= 0) throw new LedgerProblem(['items', at, 'kind'], 'marks a file of ledger export, which holds more than erasures: apply it with ledger apply');
  return parseApplyErasures(body).items;
}

/**
 * A ledger file as `exporter` wrote it, checked by `parse`: all or nothing. A refusal names the
 * line of the file, and the field.
 */
export async function readLedgerFile<T>(
  path: string,
  shown: string,
  command: 'ledger apply' | 'erasures:apply',
  parse: (body: unknown) => T[],
): Promise<T[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw usageError(command, `cannot read ${shown} (${(err as Error).message.split('\n')[0]})`);
  }
  const refuse = (line: number, problem: string) => new UsageError(`${shown} line ${line}: ${problem}; nothing was applied`);
  let body: unknown;
  try {
    body = parseJsonText(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw refuse(err.line, `not JSON: expected ${err.expected}`);
    throw usageError(command, `cannot read ${shown} as JSON (${(err as Error).message.split('\n')[0]})`);
  }
  try {
    return parse(body);
  } catch (err) {
    if (err instanceof LedgerProblem) throw refuse(lineOfPath(text, err.path), describe(err, command === 'ledger apply' ? 'ledger export' : 'erasures:export'));
    throw err;
  }
}

function describe({ path, reason }: LedgerProblem, exporter: string): string {
  if (path.length === 0) return `not a ledger: the file must hold one JSON object, { "items": [...] }, as ${exporter} writes it`;
  const last = path[path.length - 1];
  return typeof last === 'string' ? `field ${JSON.stringify(last)} ${reason}` : `${path.join('.')} ${reason}`;
}
