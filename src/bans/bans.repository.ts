import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { uuidv7 } from '../common/ids';
import { sqlRows } from '../db/sql';
import { BAN_COLUMNS, HISTORY_COLUMNS, type BanHistoryRow, type BanRow } from './ban-rows';
import type { Alongside } from '../groups/groups.repository';

export interface BanInput {
  gameId: string;
  svcUserId: string;
  userId: string;
  expiresAt: Date | null;
  reason: string | null;
  bannedBy: string | null;
}

export interface HistoryInput {
  gameId: string;
  svcUserId: string;
  userId: string;
  scope: 'game' | 'group';
  groupId: string | null;
  kind: 'set' | 'lifted';
  reason: string | null;
  expiresAt: Date | null;
  actorUserId: string | null;
}

/**
 * The history entry of a group ban's change made in the group lookup's statement (see
 * GroupsRepository.findWithUser): one row for the member row `alongside`, none when there is none.
 */
export function groupHistoryAlongside(h: Pick<HistoryInput, 'kind' | 'reason' | 'expiresAt' | 'actorUserId'>): Alongside {
  return (p) => `history AS (
       INSERT INTO ban_history (id, game_id, user_id, external_user_id, scope, group_id, kind, reason, expires_at, actor_user_id)
       SELECT ${p(uuidv7())}, l."gameId", w."svcUserId", w."userId", 'group', w."groupId", ${p(h.kind)}, ${p(h.reason)},
              ${p(h.expiresAt)}::timestamptz, ${p(h.actorUserId)}
       FROM alongside w CROSS JOIN lookup l)`;
}

/** Game-wide bans and the append-only ban history of both scopes. */
@Injectable()
export class BansRepository {
  /**
   * Sets a game-wide ban (SPEC §3): a new ban starts now; re-banning an active ban keeps bannedAt;
   * re-banning an expired one starts it afresh. The unique (game, user) index settles races.
   */
  async upsert(m: EntityManager, b: BanInput): Promise<BanRow> {
    const [row] = await sqlRows<BanRow>(
      m,
      `INSERT INTO game_bans AS b (id, game_id, user_id, external_user_id, expires_at, reason, banned_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (game_id, user_id) DO UPDATE SET
         banned_at = CASE WHEN b.expires_at IS NOT NULL AND b.expires_at <= now() THEN now() ELSE b.banned_at END,
         expires_at = EXCLUDED.expires_at, reason = EXCLUDED.reason, banned_by = EXCLUDED.banned_by
       RETURNING ${BAN_COLUMNS}`,
      [uuidv7(), b.gameId, b.svcUserId, b.userId, b.expiresAt, b.reason, b.bannedBy],
    );
    return row;
  }

  async find(m: EntityManager, gameId: string, svcUserId: string, lock = false): Promise<BanRow | null> {
    const [row] = await sqlRows<BanRow>(
      m,
      `SELECT ${BAN_COLUMNS} FROM game_bans b WHERE b.game_id = $1 AND b.user_id = $2${lock ? ' FOR UPDATE' : ''}`,
      [gameId, svcUserId],
    );
    return row ?? null;
  }

  async delete(m: EntityManager, id: string): Promise<void> {
    await m.query('DELETE FROM game_bans WHERE id = $1', [id]);
  }

  /** Keyset page in (bannedAt, id) descending order, on game_bans_order. */
  list(m: EntityManager, gameId: string, opts: { includeExpired: boolean; after?: { at: string; id: string }; limit: number }): Promise<BanRow[]> {
    const params: unknown[] = [gameId, opts.limit + 1];
    const where = ['b.game_id = $1'];
    if (!opts.includeExpired) where.push('(b.expires_at IS NULL OR b.expires_at > now())');
    if (opts.after) {
      params.push(opts.after.at, opts.after.id);
      where.push('(b.banned_at, b.id) < ($3::timestamptz, $4::uuid)');
    }
    return sqlRows<BanRow>(
      m,
      `SELECT ${BAN_COLUMNS} FROM game_bans b WHERE ${where.join(' AND ')} ORDER BY b.banned_at DESC, b.id DESC LIMIT $2`,
      params,
    );
  }

  async addHistory(m: EntityManager, h: HistoryInput): Promise<void> {
    await m.query(
      `INSERT INTO ban_history (id, game_id, user_id, external_user_id, scope, group_id, kind, reason, expires_at, actor_user_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [uuidv7(), h.gameId, h.svcUserId, h.userId, h.scope, h.groupId, h.kind, h.reason, h.expiresAt, h.actorUserId],
    );
  }

  /** A user's history newest first, on ban_history_user_order. */
  history(
    m: EntityManager,
    gameId: string,
    svcUserId: string,
    opts: { scope?: 'game' | 'group'; groupId?: string; after?: { at: string; id: string }; limit: number },
  ): Promise<BanHistoryRow[]> {
    const params: unknown[] = [gameId, svcUserId, opts.limit + 1];
    const where = ['h.game_id = $1', 'h.user_id = $2'];
    if (opts.scope) {
      params.push(opts.scope);
      where.push(`h.scope = $${params.length}`);
    }
    if (opts.groupId) {
      params.push(opts.groupId);
      where.push(`h.group_id = $${params.length}`);
    }
    if (opts.after) {
      params.push(opts.after.at, opts.after.id);
      where.push(`(h.event_at, h.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    return sqlRows<BanHistoryRow>(
      m,
      `SELECT ${HISTORY_COLUMNS} FROM ban_history h WHERE ${where.join(' AND ')} ORDER BY h.event_at DESC, h.id DESC LIMIT $3`,
      params,
    );
  }
}
