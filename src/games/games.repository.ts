import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { sqlRows } from '../db/sql';
import { memberCountSql } from '../groups/group-row';
import { ApiKeyEntity } from './entities/api-key.entity';
import { GameEntity } from './entities/game.entity';

/** A game with the live counts of WireAdminGame. */
export interface GameWithCounts {
  game: GameEntity;
  groupCount: number;
  activeMemberCount: number;
  apiKeyCount: number;
}

interface CountRow {
  id: string;
  group_count: number;
  active_member_count: number;
  api_key_count: number;
}

/** Games and their API keys. */
@Injectable()
export class GamesRepository {
  constructor(private readonly ds: DataSource) {}

  async insertGame(manager: EntityManager, id: string, name: string): Promise<GameEntity> {
    await manager.insert(GameEntity, { id, name, config: {} });
    return manager.findOneByOrFail(GameEntity, { id });
  }

  findGame(id: string, manager: EntityManager = this.ds.manager): Promise<GameEntity | null> {
    return manager.findOneBy(GameEntity, { id });
  }

  /** Newest first (SPEC §4 GET /v1/admin/games), on the games_order index. */
  listGames(limit: number): Promise<GameEntity[]> {
    return this.ds.manager.find(GameEntity, { order: { createdAt: 'DESC', id: 'DESC' }, take: limit });
  }

  /**
   * WireAdminGame counts for many games in one query, at request time: live groups and the active
   * members of live groups (from each group's trigger-kept counter), and keys not revoked.
   */
  async withCounts(games: GameEntity[], manager: EntityManager = this.ds.manager): Promise<GameWithCounts[]> {
    if (!games.length) return [];
    const rows = await sqlRows<CountRow>(
      manager,
      `SELECT g.id, coalesce(c.group_count, 0) AS group_count, coalesce(c.active_member_count, 0) AS active_member_count,
              (SELECT count(*)::int FROM api_keys k WHERE k.game_id = g.id AND k.revoked_at IS NULL) AS api_key_count
       FROM unnest($1::uuid[]) AS g(id)
       LEFT JOIN LATERAL (
         SELECT count(*)::int AS group_count, sum(${memberCountSql('gr')})::int AS active_member_count
         FROM groups gr WHERE gr.game_id = g.id AND gr.soft_deleted_at IS NULL
       ) c ON true`,
      [games.map((g) => g.id)],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return games.map((game) => {
      const c = byId.get(game.id);
      return {
        game,
        groupCount: c?.group_count ?? 0,
        activeMemberCount: c?.active_member_count ?? 0,
        apiKeyCount: c?.api_key_count ?? 0,
      };
    });
  }

  /** The expiry counts from the database's clock, as createdAt does: expiresAt - createdAt = lifetime. */
  async insertKey(
    manager: EntityManager,
    key: Pick<ApiKeyEntity, 'id' | 'gameId' | 'prefix' | 'secretHash' | 'scopes' | 'name'> & { lifetimeSeconds: number | null },
  ): Promise<ApiKeyEntity> {
    await manager.query(
      `INSERT INTO api_keys (id, game_id, prefix, secret_hash, scopes, expires_at, name)
       VALUES ($1, $2, $3, $4, $5, now() + $6::int * interval '1 second', $7)`,
      [key.id, key.gameId, key.prefix, key.secretHash, key.scopes, key.lifetimeSeconds, key.name],
    );
    return manager.findOneByOrFail(ApiKeyEntity, { id: key.id });
  }

  /** Every key of a game, revoked ones included, newest first. */
  listKeys(gameId: string): Promise<ApiKeyEntity[]> {
    return this.ds.manager.find(ApiKeyEntity, { where: { gameId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  /** Sets revokedAt unless already set; true when this call revoked the key. */
  async revokeKey(manager: EntityManager, gameId: string, keyId: string): Promise<boolean> {
    const rows = await sqlRows(
      manager,
      'UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND game_id = $2 AND revoked_at IS NULL RETURNING id',
      [keyId, gameId],
    );
    return rows.length > 0;
  }

  findKey(manager: EntityManager, gameId: string, keyId: string): Promise<ApiKeyEntity | null> {
    return manager.findOneBy(ApiKeyEntity, { id: keyId, gameId });
  }

  /** A key by its id alone, for the operator command, which is not told the game. */
  findKeyById(keyId: string): Promise<ApiKeyEntity | null> {
    return this.ds.manager.findOneBy(ApiKeyEntity, { id: keyId });
  }

  /**
   * Each key's latest use (key id → epoch ms), in one statement. Only ever forward: another
   * instance may have written a later use of the same key first, and that one stands. The filter
   * spares the rows it would not change a new row version; GREATEST keeps the value from going
   * back whatever the plan or the isolation. Sorted by id, so that two instances' writes lock the
   * keys they share in the same order (the unit of work retries a deadlock should one occur).
   */
  async recordKeyUses(manager: EntityManager, uses: ReadonlyMap<string, number>): Promise<void> {
    const ids = [...uses.keys()].sort();
    await manager.query(
      `UPDATE api_keys k SET last_used_at = GREATEST(coalesce(k.last_used_at, '-infinity'), u.at)
       FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at)
       WHERE k.id = u.id AND coalesce(k.last_used_at, '-infinity') < u.at`,
      [ids, ids.map((id) => new Date(uses.get(id)!).toISOString())],
    );
  }

  /** The key with this prefix: the auth hot path's only query, on the unique prefix index. */
  findKeyByPrefix(prefix: string): Promise<ApiKeyEntity | null> {
    return this.ds.manager.findOneBy(ApiKeyEntity, { prefix });
  }
}
