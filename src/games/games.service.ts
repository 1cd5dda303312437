import { Injectable } from '@nestjs/common';
import { mintApiKey } from '../common/auth/api-key-format';
import { DEFAULT_SCOPES } from '../common/auth/api-key-scopes';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import { isUuid, uuidv7 } from '../common/ids';
import { parsePageLimit } from '../common/pagination/page-limit';
import { iso, isoNN } from '../common/time';
import { UnitOfWork } from '../db/unit-of-work';
import { recordAccessRemoval } from '../ledger/access-removal';
import { recordOperatorAction } from '../operators/operator-audit';
import type { ActingOperator } from '../common/auth/operator-roles';
import { API_KEYS_CHANNEL, ApiKeyCache } from './api-key-cache';
import type { AdminGameDto } from './dto/game.dto';
import type { ApiKeyDto, MintApiKeyDto, MintedApiKeyDto, WhoamiDto } from './dto/api-key.dto';
import type { ApiKeyEntity } from './entities/api-key.entity';
import { GamesRepository, type GameWithCounts } from './games.repository';

const ADMIN_GAMES_CAP = 200;

/** Tenancy (SPEC §1.1, §5): games and their API keys, as the operator manages them. */
@Injectable()
export class GamesService {
  constructor(
    private readonly repo: GamesRepository,
    private readonly uow: UnitOfWork,
    private readonly keyCache: ApiKeyCache,
  ) {}

  /** `by`: who is recorded in the operator audit (the dev launcher's demo game has no one). */
  async createGame(name: string, by?: ActingOperator): Promise<AdminGameDto> {
    const game = await this.uow.run(async (tx) => {
      const created = await this.repo.insertGame(tx.manager, uuidv7(), name);
      if (by) await recordOperatorAction(tx.manager, by, { action: 'game.created', gameId: created.id, targetId: created.id, details: { name } });
      return created;
    });
    return toAdminGame({ game, groupCount: 0, activeMemberCount: 0, apiKeyCount: 0 });
  }

  /** Creates a game together with its first key, for the operator command and the dev launcher. */
  async createGameWithKey(name: string, by?: ActingOperator): Promise<{ game: AdminGameDto; key: MintedApiKeyDto }> {
    const game = await this.createGame(name, by);
    const key = await this.mintKey(game.id, {}, by);
    return { game: { ...game, apiKeyCount: 1 }, key };
  }

  async exists(gameId: string): Promise<boolean> {
    return isUuid(gameId) && (await this.repo.findGame(gameId)) !== null;
  }

  async getGame(gameId: string): Promise<AdminGameDto> {
    const game = isUuid(gameId) ? await this.repo.findGame(gameId) : null;
    if (!game) throw ApiError.notFound('game');
    const [counted] = await this.repo.withCounts([game]);
    return toAdminGame(counted);
  }

  async listGames(rawLimit: string | undefined): Promise<{ items: AdminGameDto[] }> {
    const limit = parsePageLimit(rawLimit, 100, ADMIN_GAMES_CAP);
    const games = await this.repo.listGames(limit);
    return { items: (await this.repo.withCounts(games)).map(toAdminGame) };
  }

  async listKeys(gameId: string): Promise<{ items: ApiKeyDto[] }> {
    await this.requireGame(gameId);
    return { items: (await this.repo.listKeys(gameId)).map(toKeyDto) };
  }

  /** Without options, a key as every key was before scopes: full control, never expiring. */
  async mintKey(gameId: string, options: MintApiKeyDto = {}, by?: ActingOperator): Promise<MintedApiKeyDto> {
    await this.requireGame(gameId);
    const minted = mintApiKey();
    const scopes = [...(options.scopes ?? DEFAULT_SCOPES)];
    const row = await this.uow.run(async (tx) => {
      const key = await this.repo.insertKey(tx.manager, {
        id: uuidv7(),
        gameId,
        prefix: minted.prefix,
        secretHash: minted.secretHash,
        scopes,
        lifetimeSeconds: options.expiresIn ?? null,
        name: options.name ?? null,
      });
      if (by) {
        const details = { prefix: key.prefix, name: key.name, scopes, expiresAt: key.expiresAt };
        await recordOperatorAction(tx.manager, by, { action: 'api_key.minted', gameId, targetId: key.id, details });
      }
      return key;
    });
    return { ...toKeyDto(row), key: minted.key };
  }

  /**
   * Idempotent; the original revokedAt is kept. Effective at once on every instance, and in the
   * access ledger, which revokes the key again in a database restored from an older backup.
   */
  async revokeKey(gameId: string, keyId: string, by: ActingOperator): Promise<ApiKeyDto> {
    if (!isUuid(gameId) || !isUuid(keyId)) throw ApiError.notFound('API key');
    const key = await this.uow.run(async (tx) => {
      const changed = await this.repo.revokeKey(tx.manager, gameId, keyId);
      const row = await this.repo.findKey(tx.manager, gameId, keyId);
      if (row && changed) {
        tx.afterCommit(() => this.keyCache.evict(row.prefix));
        tx.notify(API_KEYS_CHANNEL, row.prefix);
        await recordOperatorAction(tx.manager, by, { action: 'api_key.revoked', gameId, targetId: row.id, details: { prefix: row.prefix } });
        await recordAccessRemoval(tx.manager, { kind: 'api_key.revoked', keyId: row.id });
      }
      return row;
    });
    if (!key) {
      await this.requireGame(gameId);
      throw ApiError.notFound('API key');
    }
    return toKeyDto(key);
  }

  /** revokeKey for a key named by its id alone (the operator command's `key:revoke`). */
  async revokeKeyById(keyId: string, by: ActingOperator): Promise<ApiKeyDto> {
    const key = isUuid(keyId) ? await this.repo.findKeyById(keyId) : null;
    if (!key) throw ApiError.notFound('API key');
    return this.revokeKey(key.gameId, key.id, by);
  }

  async whoami(ctx: GameContext): Promise<WhoamiDto> {
    const game = await this.repo.findGame(ctx.gameId);
    if (!game) throw new ApiError('invalid_api_key', 'the game of this key no longer exists');
    return {
      gameId: game.id,
      gameName: game.name,
      keyId: ctx.keyId,
      keyPrefix: ctx.keyPrefix,
      scopes: [...ctx.scopes],
      expiresAt: ctx.expiresAt === null ? null : new Date(ctx.expiresAt).toISOString(),
    };
  }

  /** 404 unless the game exists. */
  async requireGame(gameId: string): Promise<void> {
    if (!isUuid(gameId) || !(await this.repo.findGame(gameId))) throw ApiError.notFound('game');
  }
}

function toAdminGame(c: GameWithCounts): AdminGameDto {
  return {
    id: c.game.id,
    name: c.game.name,
    createdAt: isoNN(c.game.createdAt),
    updatedAt: isoNN(c.game.updatedAt),
    groupCount: c.groupCount,
    activeMemberCount: c.activeMemberCount,
    apiKeyCount: c.apiKeyCount,
  };
}

function toKeyDto(k: ApiKeyEntity): ApiKeyDto {
  return {
    id: k.id,
    gameId: k.gameId,
    prefix: k.prefix,
    createdAt: isoNN(k.createdAt),
    revokedAt: iso(k.revokedAt),
    scopes: k.scopes,
    expiresAt: iso(k.expiresAt),
    name: k.name,
    lastUsedAt: iso(k.lastUsedAt),
  };
}
