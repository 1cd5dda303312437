import type { MigrateCommand } from './migrate-commands';
import { readFile } from 'node:fs/promises';
import { ApiError } from '../common/errors/api-error';
import { SvcValidationPipe } from '../common/validation/validation.pipe';
import { ApplyErasuresDto, type ErasureEntryDto } from '../erasures/dto/erasure.dto';
import type { ErasureLedgerService } from '../erasures/erasure-ledger.service';
import type { ApiKeyDto } from '../games/dto/api-key.dto';
import type { GamesService } from '../games/games.service';
import { usageError, type OperatorCommand } from './operator-args';

/**
 * Runs one command through the service methods the admin routes call, so its effects are theirs
 * (a revocation is announced to every instance). Returns the text to print.
 */
export async function runOperatorCommand(
  { games, ledger }: { games: GamesService; ledger: ErasureLedgerService },
  command: Exclude<OperatorCommand, { name: 'help' } | MigrateCommand>,
): Promise<string> {
  switch (command.name) {
    case 'erasures:export':
      return JSON.stringify({ items: await wholeLedger(ledger, command.since) }, null, 1);
    case 'erasures:apply': {
      const items = await ledgerFile(command.file);
      const { applied, erased } = await ledger.apply(items);
      return `applied ${applied} ledger entr${applied === 1 ? 'y' : 'ies'}; erased ${erased} user${erased === 1 ? '' : 's'} again`;
    }
    case 'game:create': {
      const { game, key } = await games.createGameWithKey(command.gameName);
      return `game ${game.id} "${game.name}"\nAPI key ${key.key}\n(the key is shown only now)`;
    }
    case 'key:mint': {
      const key = await unknownIsUsage(command.name, `no game has the id ${command.gameId}`, games.mintKey(command.gameId));
      return `API key ${key.key}\n(the key is shown only now)`;
    }
    case 'key:list': {
      const { items } = await unknownIsUsage(command.name, `no game has the id ${command.gameId}`, games.listKeys(command.gameId));
      return formatKeys(items);
    }
    case 'key:revoke': {
      const key = await unknownIsUsage(command.name, `no API key has the id ${command.keyId}`, games.revokeKeyById(command.keyId));
      return `API key ${key.id} (${key.prefix}) of game ${key.gameId} is revoked since ${key.revokedAt}`;
    }
  }
}

/** Every ledger entry (from `since`), page by page. */
async function wholeLedger(ledger: ErasureLedgerService, since?: Date): Promise<ErasureEntryDto[]> {
  const items: ErasureEntryDto[] = [];
  let cursor: string | undefined;
  do {
    const page = await ledger.list({ limit: '1000', ...(since ? { since: since.toISOString() } : {}), ...(cursor ? { cursor } : {}) });
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return items;
}

/** A ledger file as erasures:export writes it, checked as the apply route checks its body: all or nothing. */
async function ledgerFile(file: string): Promise<ErasureEntryDto[]> {
  let body: unknown;
  try {
    body = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw usageError('erasures:apply', `cannot read ${JSON.stringify(file)} as JSON (${(err as Error).message.split('\n')[0]})`);
  }
  try {
    const dto = (await new SvcValidationPipe().transform(body, { type: 'body', metatype: ApplyErasuresDto })) as ApplyErasuresDto;
    return dto.items;
  } catch (err) {
    if (err instanceof ApiError) throw usageError('erasures:apply', `${file} is not a ledger: ${err.message}; nothing was applied`);
    throw err;
  }
}

/** An unknown id is a bad argument like any other: one line of help, not a 404 envelope. */
async function unknownIsUsage<T>(name: Exclude<OperatorCommand, MigrateCommand>['name'], problem: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'not_found') throw usageError(name, problem);
    throw err;
  }
}

/** The keys as an aligned table, newest first as the admin listing orders them. */
export function formatKeys(keys: readonly ApiKeyDto[]): string {
  if (!keys.length) return 'no API keys (key:mint <gameId> mints one)';
  const rows = [['ID', 'PREFIX', 'CREATED', 'REVOKED'], ...keys.map((k) => [k.id, k.prefix, k.createdAt, k.revokedAt ?? '-'])];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}
