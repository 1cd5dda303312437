import { Injectable } from '@nestjs/common';
import type { Tx } from '../db/unit-of-work';
import { recordOperatorAction } from '../operators/operator-audit';
import type { ActingOperator } from '../common/auth/operator-roles';
import { UnitOfWork } from '../db/unit-of-work';
import { IdentityRepository } from '../identity/identity.repository';
import { lockUserForErasure } from '../identity/user-lock';
import { PermissionCache } from '../permissions/permission-cache';
import type { UserErasureDto } from './dto/user-erasure.dto';
import { formatSignal, NOTIFICATIONS_CHANNEL } from '../notifications/notification-channel';
import { notifiedGroup } from '../notifications/notification-data';
import { newPseudonym } from './pseudonym';
import { UserErasureRepository, type RemovedCounts, type Subject } from './user-erasure.repository';

/**
 * Erases a player from one game (EXTENSIONS X7), in one transaction. The user's write lock comes
 * first: writes naming them finish before, or start after. The history is rewritten first (the long
 * part, which locks only the rewritten rows), the user's rows go next, the groups they owned change
 * hands last, just before the commit, so writes to those groups wait for the erasure as briefly as
 * can be. A second pass over the history takes what a write that touched the removed rows (a kick,
 * say) committed meanwhile.
 */
@Injectable()
export class UserErasureService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly identities: IdentityRepository,
    private readonly repo: UserErasureRepository,
    private readonly permissions: PermissionCache,
  ) {}

  /** The erasure route: the game is the caller's, or one the admin route checked. */
  /** `by`: the operator of the admin twin, recorded (under the pseudonym) in the operator audit. */
  erase(gameId: string, externalUserId: string, by?: ActingOperator): Promise<UserErasureDto> {
    return this.uow.run(async (tx) => {
      const erased = await this.eraseIn(tx, gameId, externalUserId, { record: true });
      if (by) await recordOperatorAction(tx.manager, by, { action: 'user.erased', gameId, targetId: erased.pseudonym, details: { removed: erased.removed } });
      return erased;
    });
  }

  /**
   * The erasure inside `tx`. `record: false` re-applies a ledger entry (after a restore): the
   * ledger has it already.
   */
  async eraseIn(tx: Tx, gameId: string, externalUserId: string, { record }: { record: boolean }): Promise<UserErasureDto> {
    const m = tx.manager;
    await lockUserForErasure(m, gameId, externalUserId);
    const svcUserId = await this.identities.find(m, gameId, externalUserId);
    const s: Subject = { gameId, externalUserId, svcUserId, pseudonym: newPseudonym() };

    await this.repo.pseudonymiseHistory(m, s);
    const friends = await this.repo.removeFriends(m, s);
    const invitations = await this.repo.removeInvitations(m, s);
    const joinRequests = await this.repo.removeJoinRequests(m, s);
    const gameBans = await this.repo.removeGameBans(m, s);
    const members = await this.repo.removeMemberships(m, s);
    await this.repo.pseudonymiseHistory(m, s);
    await this.repo.removeNotifications(m, s);
    // Every instance drops the player's unread counts (and the internal id they were kept under) with the commit.
    if (s.svcUserId) tx.notify(NOTIFICATIONS_CHANNEL, formatSignal({ t: 'removed', g: gameId, u: s.svcUserId }));
    await this.repo.pseudonymiseReports(m, s);
    const owned = await this.repo.handOnOwnership(m, s);
    await this.repo.removeSuggestions(m, s);
    await this.repo.forgetIdentity(m, s);
    for (const groupId of new Set([...members.groupIds, ...owned.map((g) => g.id)])) this.permissions.invalidateOnCommit(tx, groupId);
    // The heir is made the group's owner (EXTENSIONS X9), by no one the game can name.
    for (const g of owned) {
      if (g.heirSvcUserId) tx.notifyPlayer({ gameId, kind: 'group.ownership_received', svcUserId: g.heirSvcUserId, groupId: g.id, data: { group: notifiedGroup(g) } });
    }

    const erasedAt = record ? await this.repo.record(m, s) : new Date();
    const removed: RemovedCounts = { memberships: members.memberships, ...friends, invitations, joinRequests, bans: gameBans + members.groupBans };
    tx.audit({ gameId, groupId: null, action: 'user.erased', targetId: s.pseudonym, payload: { removed } });
    tx.emit({ type: 'user.erased', gameId, data: { userId: externalUserId, erasedAt: erasedAt.toISOString() } });
    return { userId: externalUserId, pseudonym: s.pseudonym, erasedAt: erasedAt.toISOString(), removed };
  }
}
