import { open, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { SvcValidationPipe } from '../common/validation/validation.pipe';
import { ApplyErasuresDto, LedgerProblem, type ErasureEntryDto } from '../erasures/dto/erasure.dto';
import { JsonSyntaxError, lineOfPath, parseJsonText } from './json-lines';
import { usageError, UsageError } from './operator-args';

/** The ledger as erasures:export prints it: the body the apply route takes, one field a line. */
export const ledgerText = (items: readonly ErasureEntryDto[]): string => JSON.stringify({ items }, null, 1);

/**
 * Writes `content()` to a file it creates, readable and writable by its owner only: the hashes
 * confirm a guessed player id. An existing file is refused, never overwritten, because an export
 * from a database restored from an older backup lacks the erasures made since, and would replace
 * the one file that still holds them. The name is taken before the ledger is read, so a refusal
 * comes at once; if anything fails after that, the file is removed rather than left half written.
 * `shown` is the name as the operator gave it.
 */
export async function writeNewLedgerFile(path: string, shown: string, content: () => Promise<string>): Promise<void> {
  let file: FileHandle;
  try {
    file = await open(path, 'wx', 0o600);
  } catch (err) {
    const { code, message } = err as NodeJS.ErrnoException;
    if (code === 'EEXIST') {
      throw new UsageError(`${shown} exists; nothing was written: --out never replaces a file (an export from a restored database may lack erasures it holds): name a new one`);
    }
    throw usageError('erasures:export', `cannot create ${shown} (${message.split('\n')[0]})`);
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
 * A ledger file as erasures:export wrote it, checked by the apply route's own rules: all or
 * nothing. A refusal names the line of the file, and the field.
 */
export async function readLedgerFile(path: string, shown: string): Promise<ErasureEntryDto[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw usageError('erasures:apply', `cannot read ${shown} (${(err as Error).message.split('\n')[0]})`);
  }
  const refuse = (line: number, problem: string) => new UsageError(`${shown} line ${line}: ${problem}; nothing was applied`);
  let body: unknown;
  try {
    body = parseJsonText(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw refuse(err.line, `not JSON: expected ${err.expected}`);
    throw usageError('erasures:apply', `cannot read ${shown} as JSON (${(err as Error).message.split('\n')[0]})`);
  }
  try {
    return ((await new SvcValidationPipe().transform(body, { type: 'body', metatype: ApplyErasuresDto })) as ApplyErasuresDto).items;
  } catch (err) {
    if (err instanceof LedgerProblem) throw refuse(lineOfPath(text, err.path), describe(err));
    throw err;
  }
}

function describe({ path, reason }: LedgerProblem): string {
  if (path.length === 0) return 'not a ledger: the file must hold one JSON object, { "items": [...] }, as erasures:export writes it';
  const last = path[path.length - 1];
  return typeof last === 'string' ? `field ${JSON.stringify(last)} ${reason}` : `${path.join('.')} ${reason}`;
}
