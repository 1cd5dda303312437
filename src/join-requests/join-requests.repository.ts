import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { uuidv7 } from '../common/ids';
import type { Keyset } from '../common/pagination/keyset';
import { sqlRows } from '../db/sql';
import { JOIN_REQUEST_COLUMNS, type JoinRequestRow, type JoinRequestStatus } from './join-request-row';

export interface NewJoinRequest {
  gameId: string;
  groupId: string;
  svcUserId: string;
  userId: string;
  message: string | null;
}

/** Whose pending requests a closure ends: one user's in a group, a whole group's, or one user's across the game. */
export type PendingScope = { groupId: string; svcUserId?: string } | { gameId: string; svcUserId: string };

type PageOptions = { status?: JoinRequestStatus; after?: Keyset; limit: number };

/** Join requests (EXTENSIONS X3). */
@Injectable()
export class JoinRequestsRepository {
  /** A new pending request; null when the user already has one in the group (join_requests_one_pending). */
  async insertPending(m: EntityManager, r: NewJoinRequest): Promise<JoinRequestRow | null> {
    const [row] = await sqlRows<JoinRequestRow>(
      m,
      `INSERT INTO join_requests AS r (id, game_id, group_id, user_id, external_user_id, message)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (group_id, user_id) WHERE status = 'pending' DO NOTHING
       RETURNING ${JOIN_REQUEST_COLUMNS}`,
      [uuidv7(), r.gameId, r.groupId, r.svcUserId, r.userId, r.message],
    );
    return row ?? null;
  }

  /** A request of this game, with its group's soft-deletion state. */
  async findInGame(m: EntityManager, gameId: string, id: string): Promise<(JoinRequestRow & { groupDeleted: boolean }) | null> {
    const [row] = await sqlRows<JoinRequestRow & { groupDeleted: boolean }>(
      m,
      `SELECT ${JOIN_REQUEST_COLUMNS}, g.soft_deleted_at IS NOT NULL AS "groupDeleted"
       FROM join_requests r JOIN groups g ON g.id = r.group_id
       WHERE r.id = $1 AND r.game_id = $2`,
      [id, gameId],
    );
    return row ?? null;
  }

  /**
   * Moves a pending request to its answer. The condition settles concurrent deciders (two
   * approvals, approve against cancel): exactly one finds it pending; null for the others.
   */
  async decide(m: EntityManager, id: string, status: Exclude<JoinRequestStatus, 'pending'>, decidedBy: string | null): Promise<JoinRequestRow | null> {
    const [row] = await sqlRows<JoinRequestRow>(
      m,
      `UPDATE join_requests r SET status = $2, decided_at = now(), decided_by_user_id = $3
       WHERE r.id = $1 AND r.status = 'pending'
       RETURNING ${JOIN_REQUEST_COLUMNS}`,
      [id, status, decidedBy],
    );
    return row ?? null;
  }

  /** Closes every pending request in `scope` without a decider, on join_requests_one_pending or the list indexes. */
  closePending(m: EntityManager, scope: PendingScope, status: 'approved' | 'cancelled'): Promise<JoinRequestRow[]> {
    const params: unknown[] = [status];
    const where = ["r.status = 'pending'"];
    const add = (column: string, value: string) => {
      params.push(value);
      where.push(`r.${column} = $${params.length}`);
    };
    if ('groupId' in scope) add('group_id', scope.groupId);
    else add('game_id', scope.gameId);
    if (scope.svcUserId !== undefined) add('user_id', scope.svcUserId);
    return sqlRows<JoinRequestRow>(
      m,
      `UPDATE join_requests r SET status = $1, decided_at = now(), decided_by_user_id = NULL
       WHERE ${where.join(' AND ')} RETURNING ${JOIN_REQUEST_COLUMNS}`,
      params,
    );
  }

  /** A group's requests newest first, on join_requests_group_status_order (one status) or join_requests_group_order (all). */
  pageOfGroup(m: EntityManager, groupId: string, opts: PageOptions): Promise<JoinRequestRow[]> {
    return this.page(m, ['r.group_id = $2'], [groupId], opts);
  }

  /** A user's requests in live groups of the game, newest first, on join_requests_user_order. */
  pageOfUser(m: EntityManager, gameId: string, svcUserId: string, opts: PageOptions): Promise<JoinRequestRow[]> {
    return this.page(
      m,
      ['r.game_id = $2', 'r.user_id = $3', 'NOT EXISTS (SELECT 1 FROM groups g WHERE g.id = r.group_id AND g.soft_deleted_at IS NOT NULL)'],
      [gameId, svcUserId],
      opts,
    );
  }

  private page(m: EntityManager, where: string[], scopeParams: unknown[], opts: PageOptions): Promise<JoinRequestRow[]> {
    const params: unknown[] = [opts.limit + 1, ...scopeParams];
    const conditions = [...where];
    if (opts.status) {
      params.push(opts.status);
      conditions.push(`r.status = $${params.length}`);
    }
    if (opts.after) {
      params.push(opts.after.at, opts.after.id);
      conditions.push(`(r.created_at, r.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    return sqlRows<JoinRequestRow>(
      m,
      `SELECT ${JOIN_REQUEST_COLUMNS} FROM join_requests r WHERE ${conditions.join(' AND ')}
       ORDER BY r.created_at DESC, r.id DESC LIMIT $1`,
      params,
    );
  }
}
