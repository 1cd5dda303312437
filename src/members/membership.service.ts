import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import type { Tx } from '../db/unit-of-work';
import type { GroupRow } from '../groups/group-row';
import { IdentityService } from '../identity/identity.service';
import { JoinRequestCloser } from '../join-requests/join-request-closer';
import { PermissionCache } from '../permissions/permission-cache';
import type { MemberDto } from './dto/member.dto';
import type { MemberRow } from './member-row';
import { toMemberDto } from './member-view';
import { MembersRepository, type ActivatedRow } from './members.repository';

/** How a user became a member: lands on the `member.joined` audit payload. */
export type JoinVia =
  | { via: 'creator' }
  | { via: 'public-join' }
  | { invitationId: string; code: string }
  | { via: 'join-request'; joinRequestId: string };

/**
 * The one path into active membership (SPEC §3 Member status), shared by group creation, public
 * join, invitation accept and join-request approval, so every entry writes the same audit entry
 * and event.
 */
@Injectable()
export class MembershipService {
  constructor(
    private readonly members: MembersRepository,
    private readonly identity: IdentityService,
    private readonly permissionCache: PermissionCache,
    private readonly joinRequests: JoinRequestCloser,
  ) {}

  /** `knownSvcUserId`: the user's internal id when the caller has read it already in this transaction. */
  async activate(
    tx: Tx,
    group: GroupRow,
    externalUserId: string,
    via: JoinVia,
    knownSvcUserId?: string | null,
  ): Promise<{ row: MemberRow; dto: MemberDto }> {
    const svcUserId = knownSvcUserId ?? (await this.identity.resolveOrCreate(tx.manager, group.gameId, externalUserId));
    return this.activated(tx, group, externalUserId, via, svcUserId, await this.members.activate(tx.manager, group.id, svcUserId, externalUserId));
  }

  /**
   * What follows the member row's write, wherever it was made (here, or in the group lookup's
   * statement: activateAlongside): `row` is null when the user was active already.
   */
  async activated(
    tx: Tx,
    group: GroupRow,
    externalUserId: string,
    via: JoinVia,
    svcUserId: string,
    row: ActivatedRow | null,
  ): Promise<{ row: MemberRow; dto: MemberDto }> {
    if (!row) throw new ApiError('already_member', `${externalUserId} is already a member of this group`);
    const dto = toMemberDto(row);
    tx.audit({
      gameId: group.gameId,
      groupId: group.id,
      actorUserId: svcUserId,
      action: 'member.joined',
      targetId: externalUserId,
      payload: { memberId: row.id, ...via },
    });
    tx.emit({ type: 'member.joined', gameId: group.gameId, groupId: group.id, data: { member: dto } });
    // DECISIONS §11: the resolver's first step depends on the member's status.
    this.permissionCache.invalidateOnCommit(tx, group.id);
    // A request pending while the user got in another way has nothing left to decide.
    if (row.joinRequestPending) {
      if ('invitationId' in via) await this.joinRequests.joined(tx, group.id, svcUserId, row.id, 'invitation');
      else if (via.via === 'public-join') await this.joinRequests.joined(tx, group.id, svcUserId, row.id, 'public-join');
    }
    return { row, dto };
  }
}
