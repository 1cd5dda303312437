import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import type { Tx } from '../db/unit-of-work';
import { refusalError, type Refusal } from '../groups/admission';
import type { LookedUpGroup } from '../groups/group-row';
import { IdentityService } from '../identity/identity.service';
import { JoinRequestCloser } from '../join-requests/join-request-closer';
import { PermissionCache } from '../permissions/permission-cache';
import type { MemberDto } from './dto/member.dto';
import { toMemberDto } from './member-view';
import { alongsideMember, MembersRepository, type ActivatedRow } from './members.repository';

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

  /** Admits the user: 409 group_full or already_in_group_of_kind (EXTENSIONS X5) when the group or the game refuses them. */
  async activate(tx: Tx, group: LookedUpGroup, externalUserId: string, via: JoinVia): Promise<{ row: ActivatedRow; dto: MemberDto }> {
    const svcUserId = await this.identity.resolveOrCreate(tx.manager, group.gameId, externalUserId);
    const { row, refusal } = await this.members.activate(tx.manager, group, svcUserId, externalUserId);
    if (refusal) throw refusalError(refusal);
    return this.activated(tx, group, externalUserId, via, svcUserId, row);
  }

  /**
   * An activation the group's statement made (activateAlongside and the like) for a user the game
   * knows: `alongside` is the row it wrote, null when the user was active already or `refusal` (the
   * lookup's admission check) stopped it. For a user the game has not met (`svcUserId` null), the
   * activation is made here.
   */
  async activateAlongside<R extends ActivatedRow = ActivatedRow>(
    tx: Tx,
    group: LookedUpGroup,
    externalUserId: string,
    via: JoinVia,
    lookedUp: { svcUserId: string | null; refusal: Refusal | null; alongside: Record<string, unknown> | null },
  ): Promise<{ row: R; dto: MemberDto }> {
    if (lookedUp.refusal) throw refusalError(lookedUp.refusal);
    // R adds only optional fields to ActivatedRow, which a row made here lacks.
    if (!lookedUp.svcUserId) return (await this.activate(tx, group, externalUserId, via)) as { row: R; dto: MemberDto };
    const row = lookedUp.alongside ? alongsideMember<R>(lookedUp.alongside) : null;
    return this.activated(tx, group, externalUserId, via, lookedUp.svcUserId, row);
  }

  /** What follows the member row's write, wherever it was made: `row` is null when the user was active already. */
  private async activated<R extends ActivatedRow>(
    tx: Tx,
    group: LookedUpGroup,
    externalUserId: string,
    via: JoinVia,
    svcUserId: string,
    row: R | null,
  ): Promise<{ row: R; dto: MemberDto }> {
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
