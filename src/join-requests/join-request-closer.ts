import { Injectable } from '@nestjs/common';
import type { Tx } from '../db/unit-of-work';
import type { JoinRequestRow } from './join-request-row';
import { JoinRequestsRepository, type PendingScope } from './join-requests.repository';

/** Why the service closed a request on its own; lands on the audit payload. */
export type ClosedBecause = 'invitation' | 'public-join' | 'banned' | 'group-deleted';

/**
 * Pending requests the service closes itself, in the transaction of the change that ends them
 * (EXTENSIONS X3): the user joined by another way in (approved, nobody decided), was banned, or
 * the group was deleted (cancelled). Each closure is audited like a decision.
 */
@Injectable()
export class JoinRequestCloser {
  constructor(private readonly requests: JoinRequestsRepository) {}

  /** The user became an active member without an approval: the request has what it asked for. */
  async joined(tx: Tx, groupId: string, svcUserId: string, memberId: string, because: 'invitation' | 'public-join'): Promise<void> {
    const closed = await this.requests.closePending(tx.manager, { groupId, svcUserId }, 'approved');
    this.audit(tx, closed, 'join_request.approved', null, { memberId, closedBecause: because });
  }

  /** A ban in force (game-wide when groupId is null) ends the user's pending requests. */
  async banned(tx: Tx, gameId: string, groupId: string | null, svcUserId: string, actorSvcId: string | null): Promise<void> {
    const scope: PendingScope = groupId ? { groupId, svcUserId } : { gameId, svcUserId };
    const closed = await this.requests.closePending(tx.manager, scope, 'cancelled');
    this.audit(tx, closed, 'join_request.cancelled', actorSvcId, { closedBecause: 'banned' });
  }

  async groupDeleted(tx: Tx, groupId: string): Promise<void> {
    const closed = await this.requests.closePending(tx.manager, { groupId }, 'cancelled');
    this.audit(tx, closed, 'join_request.cancelled', null, { closedBecause: 'group-deleted' });
  }

  private audit(
    tx: Tx,
    closed: JoinRequestRow[],
    action: 'join_request.approved' | 'join_request.cancelled',
    actorUserId: string | null,
    payload: Record<string, unknown> & { closedBecause: ClosedBecause },
  ): void {
    for (const r of closed) {
      tx.audit({ gameId: r.gameId, groupId: r.groupId, actorUserId, action, targetId: r.userId, payload: { joinRequestId: r.id, ...payload } });
    }
  }
}
