import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { sqlRows } from '../db/sql';
import { externalKey } from './identity.repository';

export interface IdentityLinkRow {
  gameId: string;
  externalUserId: string;
  svcUserId: string;
}

/** Anchoring an external id of a game to an existing internal user (DECISIONS §6). */
@Injectable()
export class IdentityLinksRepository {
  async gameExists(m: EntityManager, gameId: string): Promise<boolean> {
    return (await sqlRows(m, 'SELECT 1 FROM games WHERE id = $1', [gameId])).length > 0;
  }

  async userExists(m: EntityManager, svcUserId: string): Promise<boolean> {
    return (await sqlRows(m, 'SELECT 1 FROM users WHERE id = $1', [svcUserId])).length > 0;
  }

  /**
   * Inserts the mapping unless either unique key of user_identities is taken: (game, external id)
   * or (internal user, game). A concurrent link waits on the conflicting row and then does nothing.
   * True when this call created the mapping.
   */
  async insert(m: EntityManager, gameId: string, externalUserId: string, svcUserId: string): Promise<boolean> {
    const rows = await sqlRows(
      m,
      `INSERT INTO user_identities (game_id, external_id, user_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1`,
      [gameId, externalUserId, svcUserId],
    );
    return rows.length > 0;
  }

  /** The mappings that block a link: the external id's, and the internal user's in that game. */
  conflicts(m: EntityManager, gameId: string, externalUserId: string, svcUserId: string): Promise<IdentityLinkRow[]> {
    return sqlRows<IdentityLinkRow>(
      m,
      `SELECT game_id AS "gameId", external_id AS "externalUserId", user_id AS "svcUserId"
       FROM user_identities
       WHERE game_id = $1 AND ((${externalKey('external_id')} = ${externalKey('$2')} AND external_id = $2) OR user_id = $3)`,
      [gameId, externalUserId, svcUserId],
    );
  }
}
