import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Keyset } from '../common/pagination/keyset';
import { sqlRows } from '../db/sql';
import { externalKey } from '../identity/identity.repository';
import type { AdminUserMembershipRow, AdminUserRow } from './admin-rows';

/** The friends graph rows of a user in one game, counted on the user_relationships indexes. */
const relationships = (column: 'user_id' | 'other_id', type: string) =>
  `(SELECT count(*) FROM user_relationships r WHERE r.${column} = ui.user_id AND r.game_id = ui.game_id AND r.type = '${type}')::int`;

/** The operator's page of one user in one game (GET /v1/admin/games/:gameId/users/:externalUserId). */
@Injectable()
export class AdminUsersRepository {
  /**
   * The user's identity in the game (user_identities_external), the counts of their friends graph
   * (user_relationships_friends, _outbound, _inbound), their group bans in force (members_user_order)
   * and their game ban row (game_bans_user_unique); null when the game has never seen the id.
   */
  async find(m: EntityManager, gameId: string, externalUserId: string): Promise<AdminUserRow | null> {
    const [row] = await sqlRows<AdminUserRow>(
      m,
      `SELECT ui.user_id AS "svcUserId", ui.external_id AS "userId", ui.created_at AS "firstSeenAt",
              (SELECT count(*) FROM members mb JOIN groups g ON g.id = mb.group_id
                WHERE mb.user_id = ui.user_id AND g.game_id = ui.game_id AND mb.status = 'banned'
                  AND (mb.banned_until IS NULL OR mb.banned_until > now()))::int AS "groupBans",
              ${relationships('user_id', 'friend')} AS "friendsCount",
              ${relationships('user_id', 'request')} AS "requestsSent",
              ${relationships('other_id', 'request')} AS "requestsReceived",
              ${relationships('user_id', 'blocked')} AS "blocks",
              ${relationships('other_id', 'blocked')} AS "blockedBy",
              b.id AS "banId", b.external_user_id AS "banUserId", b.banned_at AS "banBannedAt", b.expires_at AS "banExpiresAt",
              b.reason AS "banReason", b.banned_by AS "banBannedBy", coalesce(b.expires_at <= now(), false) AS "banExpired"
       FROM user_identities ui
       LEFT JOIN game_bans b ON b.game_id = ui.game_id AND b.user_id = ui.user_id
       WHERE ui.game_id = $1 AND ${externalKey('ui.external_id')} = ${externalKey('$2')} AND ui.external_id = $2`,
      [gameId, externalUserId],
    );
    return row ?? null;
  }

  /**
   * A page of the user's memberships in groups of the game (any status, soft-deleted groups
   * included), joinedAt then id descending: a walk down members_user_order, `limit + 1` rows.
   */
  memberships(m: EntityManager, gameId: string, svcUserId: string, after: Keyset | undefined, limit: number): Promise<AdminUserMembershipRow[]> {
    const params: unknown[] = [svcUserId, gameId, limit + 1];
    const keyset = after ? `AND (mb.joined_at, mb.id) < ($${params.push(after.at)}::timestamptz, $${params.push(after.id)}::uuid)` : '';
    return sqlRows<AdminUserMembershipRow>(
      m,
      `SELECT mb.id AS "memberId", mb.group_id AS "groupId", g.name AS "groupName", g.kind AS "groupKind",
              g.soft_deleted_at IS NOT NULL AS "groupSoftDeleted", mb.status, mb.joined_at AS "joinedAt",
              mb.left_at AS "leftAt", mb.banned_until AS "bannedUntil",
              coalesce((SELECT json_agg(json_build_object('id', r.id, 'name', r.name, 'priority', r.priority, 'color', r.color,
                                                          'isDefault', r.is_default) ORDER BY r.priority DESC, r.id DESC)
                        FROM member_roles mr JOIN roles r ON r.id = mr.role_id WHERE mr.member_id = mb.id), '[]'::json) AS roles
       FROM members mb JOIN groups g ON g.id = mb.group_id
       WHERE mb.user_id = $1 AND g.game_id = $2 ${keyset}
       ORDER BY mb.joined_at DESC, mb.id DESC
       LIMIT $3`,
      params,
    );
  }
}
