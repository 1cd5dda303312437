import { ApiError } from '../common/errors/api-error';
import type { ApiKeyDto } from '../games/dto/api-key.dto';
import type { GamesService } from '../games/games.service';
import { usageError, type OperatorCommand } from './operator-args';

/**
 * Runs one command through the service methods the admin routes call, so its effects are theirs
 * (a revocation is announced to every instance). Returns the text to print.
 */
export async function runOperatorCommand(
  games: GamesService,
  command: Exclude<OperatorCommand, { name: 'help' }>,
): Promise<string> {
  switch (command.name) {
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

/** An unknown id is a bad argument like any other: one line of help, not a 404 envelope. */
async function unknownIsUsage<T>(name: OperatorCommand['name'], problem: string, work: Promise<T>): Promise<T> {
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
