import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { sqlRows } from '../db/sql';
import type { StoredConfig } from './game-config';

export interface GameConfigRow {
  id: string;
  config: StoredConfig;
  networkId: string | null;
}

export interface ScopedConfigRow extends GameConfigRow {
  /**
   * The games whose friendships this game reads (SPEC §2 scope rule): every game of its network
   * whose own stored scope is `network` (itself included) when it is in network scope, else none.
   */
  networkGameIds: string[];
}

/** The `config` and `network_id` columns of games. */
@Injectable()
export class GameConfigRepository {
  async find(m: EntityManager, gameId: string, lock = false): Promise<GameConfigRow | null> {
    const [row] = await sqlRows<GameConfigRow>(
      m,
      `SELECT g.id, g.config, g.network_id AS "networkId" FROM games g WHERE g.id = $1${lock ? ' FOR UPDATE' : ''}`,
      [gameId],
    );
    return row ?? null;
  }

  /** The config with the network games, in one query on the games_network index. */
  async findScoped(m: EntityManager, gameId: string): Promise<ScopedConfigRow | null> {
    const [row] = await sqlRows<ScopedConfigRow>(
      m,
      `SELECT g.id, g.config, g.network_id AS "networkId",
         CASE WHEN g.network_id IS NOT NULL AND g.config #>> '{friends,scope}' = 'network'
           THEN ARRAY(SELECT n.id FROM games n
                      WHERE n.network_id = g.network_id AND n.config #>> '{friends,scope}' = 'network' ORDER BY n.id)
           ELSE ARRAY[]::uuid[] END AS "networkGameIds"
       FROM games g WHERE g.id = $1`,
      [gameId],
    );
    return row ?? null;
  }

  async update(m: EntityManager, gameId: string, config: StoredConfig, networkId: string | null): Promise<void> {
    await m.query('UPDATE games SET config = $2, network_id = $3, updated_at = now() WHERE id = $1', [
      gameId,
      JSON.stringify(config),
      networkId,
    ]);
  }
}
