import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { sqlRows } from '../db/sql';

/**
 * The indexed form of an external id (unique per game on user_identities_external): ids have no
 * length cap, so the index holds their SHA-256. Queries by external id compare this, then the id.
 */
export const externalKey = (expr: string): string => `svc_external_key(${expr})`;

/** Whether the identity row `u` is the one of external id `externalRef` in game `gameRef`, by the index's key then the id. */
export const identityIs = (u: string, gameRef: string, externalRef: string): string =>
  `${u}.game_id = ${gameRef} AND ${externalKey(`${u}.external_id`)} = ${externalKey(externalRef)} AND ${u}.external_id = ${externalRef}`;

/**
 * A scalar subquery for the internal id of an external id in a game (null when the game has never
 * seen it), for reads that fold the identity lookup into their own statement.
 */
export const internalIdSql = (gameRef: string, externalRef: string): string =>
  `(SELECT ui.user_id FROM user_identities ui
    WHERE ${identityIs('ui', gameRef, externalRef)})`;

/** Identity anchors (SPEC §1.3-4): internal users and their unique per-game external ids. */
@Injectable()
export class IdentityRepository {
  /** The internal id of an external id in a game, or null. Read paths never create identities. */
  async find(manager: EntityManager, gameId: string, externalId: string): Promise<string | null> {
    const rows = await sqlRows<{ user_id: string }>(
      manager,
      `SELECT user_id FROM user_identities WHERE game_id = $1 AND ${externalKey('external_id')} = ${externalKey('$2')} AND external_id = $2`,
      [gameId, externalId],
    );
    return rows[0]?.user_id ?? null;
  }

  /** The internal ids of two external ids in a game (null for one never seen), in one statement. */
  async findTwo(manager: EntityManager, gameId: string, a: string, b: string): Promise<[string | null, string | null]> {
    const [row] = await sqlRows<{ a: string | null; b: string | null }>(
      manager,
      `SELECT ${internalIdSql('$1', '$2')} AS a, ${internalIdSql('$1', '$3')} AS b`,
      [gameId, a, b],
    );
    return [row.a, row.b];
  }

  /**
   * Inserts the user and its mapping unless the mapping exists. A concurrent creator makes the
   * insert a no-op (`ON CONFLICT DO NOTHING` waits for it to commit); then no row comes back.
   */
  async insert(manager: EntityManager, gameId: string, externalId: string, userId: string): Promise<string | null> {
    const rows = await sqlRows<{ user_id: string }>(
      manager,
      `WITH u AS (INSERT INTO users (id) VALUES ($3) RETURNING id)
       INSERT INTO user_identities (game_id, external_id, user_id)
       SELECT $1, $2, id FROM u
       ON CONFLICT (game_id, ${externalKey('external_id')}) DO NOTHING
       RETURNING user_id`,
      [gameId, externalId, userId],
    );
    return rows[0]?.user_id ?? null;
  }

  /** Removes the user row a lost creation race inserted without its mapping. */
  async deleteUser(manager: EntityManager, userId: string): Promise<void> {
    await manager.query('DELETE FROM users WHERE id = $1', [userId]);
  }
}
