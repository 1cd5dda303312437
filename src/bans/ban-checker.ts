import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { sqlRows } from '../db/sql';
import { externalKey } from '../identity/identity.repository';

export type BanScope = 'game' | 'group';

/**
 * Ban enforcement (SPEC §4 Game-wide bans): join, invitation accept and bulk invite. The
 * game-wide ban is checked first, then the group's; expired bans do not count.
 */
@Injectable()
export class BanChecker {
  /** Throws 403 `banned`, naming the broader scope that applies. */
  async assertNotBanned(m: EntityManager, gameId: string, groupId: string, externalUserId: string): Promise<void> {
    const scope = (await this.scopes(m, gameId, groupId, [externalUserId])).get(externalUserId);
    if (scope) throw bannedError(scope);
  }

  /** The ban in force, by external id, for many users at once (one query). */
  async scopes(m: EntityManager, gameId: string, groupId: string, externalUserIds: string[]): Promise<Map<string, BanScope>> {
    if (!externalUserIds.length) return new Map();
    const rows = await sqlRows<{ external_id: string; scope: BanScope }>(
      m,
      `SELECT ui.external_id,
              ${banScopeSql('$1', '$2', 'ui.user_id')} AS scope
       FROM unnest($3::text[]) AS x(external_id)
       JOIN user_identities ui
         ON ui.game_id = $1 AND ${externalKey('ui.external_id')} = ${externalKey('x.external_id')} AND ui.external_id = x.external_id`,
      [gameId, groupId, externalUserIds],
    );
    return new Map(rows.filter((r) => r.scope !== null).map((r) => [r.external_id, r.scope]));
  }
}

/** The ban in force on a user (game-wide first, then the group's) as SQL: 'game', 'group' or null. */
export const banScopeSql = (gameRef: string, groupRef: string, userRef: string): string =>
  `CASE WHEN EXISTS (SELECT 1 FROM game_bans b WHERE b.game_id = ${gameRef} AND b.user_id = ${userRef}
                       AND (b.expires_at IS NULL OR b.expires_at > now())) THEN 'game'
        WHEN EXISTS (SELECT 1 FROM members mb WHERE mb.group_id = ${groupRef} AND mb.user_id = ${userRef} AND mb.status = 'banned'
                       AND (mb.banned_until IS NULL OR mb.banned_until > now())) THEN 'group'
   END`;

export function bannedError(scope: BanScope): ApiError {
  return new ApiError('banned', scope === 'game' ? 'the user is banned from this game' : 'the user is banned from this group');
}
