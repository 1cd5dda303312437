import type { MigrateCommand } from './migrate-commands';
import { resolve } from 'node:path';
import type { ActingOperator } from '../common/auth/operator-roles';
import { ApiError } from '../common/errors/api-error';
import type { ErasureEntryDto } from '../erasures/dto/erasure.dto';
import type { ErasureLedgerService } from '../erasures/erasure-ledger.service';
import type { ApiKeyDto, MintedApiKeyDto } from '../games/dto/api-key.dto';
import type { GamesService } from '../games/games.service';
import { parseLedger } from '../ledger/ledger-entry';
import type { LedgerApplied, LedgerService } from '../ledger/ledger.service';
import { erasureLedger, ledgerText, readLedgerFile, writeNewLedgerFile } from './ledger-file';
import { usageError, type CommandName, type OperatorCommand } from './operator-args';

export interface OperatorContext {
  games: GamesService;
  erasures: ErasureLedgerService;
  ledger: LedgerService;
  /** Recorded in the operator audit with each change: `cli`, with the OS user and host. */
  by: ActingOperator;
  /** Where a relative file name starts. */
  cwd: string;
}

/**
 * Runs one command through the service methods the admin routes call, so its effects are theirs
 * (a revocation is announced to every instance, a change is in the operator audit). Returns the
 * text to print.
 */
export async function runOperatorCommand(
  { games, erasures, ledger, by, cwd }: OperatorContext,
  command: Exclude<OperatorCommand, { name: 'help' } | MigrateCommand>,
): Promise<string> {
  switch (command.name) {
    case 'ledger export':
      return exportLedger(command, cwd, () => ledger.list(command.since));
    case 'ledger apply': {
      const entries = await readLedgerFile(resolve(cwd, command.file), command.file, command.name, parseLedger);
      return describeApplied(await ledger.apply(entries, by));
    }
    case 'erasures:export':
      return exportLedger(command, cwd, () => wholeErasureLedger(erasures, command.since));
    case 'erasures:apply': {
      const items = await readLedgerFile(resolve(cwd, command.file), command.file, command.name, erasureLedger);
      const { applied, erased } = await erasures.apply(items, by);
      return `applied ${count(applied, 'ledger entry', 'ledger entries')}; erased ${count(erased, 'user', 'users')} again`;
    }
    case 'game:create': {
      const { game, key } = await games.createGameWithKey(command.gameName, by);
      return `game ${game.id} "${game.name}"\n${formatMinted(key)}`;
    }
    case 'key:mint': {
      const key = await unknownIsUsage(command.name, `no game has the id ${command.gameId}`, games.mintKey(command.gameId, command.options, by));
      return formatMinted(key);
    }
    case 'key:list': {
      const { items } = await unknownIsUsage(command.name, `no game has the id ${command.gameId}`, games.listKeys(command.gameId));
      return formatKeys(items);
    }
    case 'key:revoke': {
      const key = await unknownIsUsage(command.name, `no API key has the id ${command.keyId}`, games.revokeKeyById(command.keyId, by));
      return `API key ${key.id} (${key.prefix}) of game ${key.gameId} is revoked since ${key.revokedAt}`;
    }
  }
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The ledger to standard output, or to a new file (`--out`) with one line saying how many entries. */
async function exportLedger({ name, out }: { name: CommandName; out?: string }, cwd: string, entries: () => Promise<object[]>): Promise<string> {
  if (out === undefined) return ledgerText(await entries());
  let written = 0;
  await writeNewLedgerFile(resolve(cwd, out), out, name, async () => {
    const items = await entries();
    written = items.length;
    return `${ledgerText(items)}\n`;
  });
  return `wrote ${count(written, 'ledger entry', 'ledger entries')} to ${out}`;
}

/** What an apply changed, each kind on its own: an idempotent second apply reads all zeros. */
function describeApplied(r: LedgerApplied): string {
  return [
    `applied ${count(r.applied, 'ledger entry', 'ledger entries')}`,
    `erased ${count(r.erased, 'user', 'users')} again`,
    `revoked ${count(r.keysRevoked, 'API key', 'API keys')} again`,
    `deleted ${count(r.operatorsDeleted, 'operator', 'operators')} again`,
    `lowered ${count(r.rolesLowered, "operator's role", "operators' roles")}`,
  ].join('; ');
}

/** Every erasure (from `since`), page by page. */
async function wholeErasureLedger(ledger: ErasureLedgerService, since?: Date): Promise<ErasureEntryDto[]> {
  const items: ErasureEntryDto[] = [];
  let cursor: string | undefined;
  do {
    const page = await ledger.list({ limit: '1000', ...(since ? { since: since.toISOString() } : {}), ...(cursor ? { cursor } : {}) });
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return items;
}

/** An unknown id is a bad argument like any other: one line of help, not a 404 envelope. */
async function unknownIsUsage<T>(name: 'key:mint' | 'key:list' | 'key:revoke', problem: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'not_found') throw usageError(name, problem);
    throw err;
  }
}

const scopesOf = (k: ApiKeyDto) => k.scopes.join(',');

/** A new key: the secret once, then what `key:list` and `key:revoke` know it by. */
export function formatMinted(k: MintedApiKeyDto): string {
  return [
    `API key ${k.key}`,
    `id       ${k.id}`,
    ...(k.name === null ? [] : [`name     ${k.name}`]),
    `scopes   ${scopesOf(k)}`,
    `expires  ${k.expiresAt ?? 'never'}`,
    '(the key is shown only now)',
  ].join('\n');
}

/**
 * The keys as an aligned table, newest first as the admin listing orders them. LAST USED is `-`
 * until a use is written, which is up to a minute after it.
 */
export function formatKeys(keys: readonly ApiKeyDto[]): string {
  if (!keys.length) return 'no API keys (key:mint <gameId> mints one)';
  const rows = [
    ['ID', 'PREFIX', 'NAME', 'SCOPES', 'CREATED', 'LAST USED', 'EXPIRES', 'REVOKED'],
    ...keys.map((k) => [k.id, k.prefix, k.name ?? '-', scopesOf(k), k.createdAt, k.lastUsedAt ?? '-', k.expiresAt ?? 'never', k.revokedAt ?? '-']),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}
