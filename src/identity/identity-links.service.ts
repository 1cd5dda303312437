import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import type { ActingOperator } from '../common/auth/operator-roles';
import { recordOperatorAction } from '../operators/operator-audit';
import { UnitOfWork } from '../db/unit-of-work';
import type { IdentityLinkDto } from './dto/identity-link.dto';
import { IdentityLinksRepository } from './identity-links.repository';

/**
 * Links one internal user across games (SPEC §1.3, DECISIONS §6): the friends `network` scope
 * reads friendships through internal ids, so a player known under another external id in a
 * second game is the same person there once linked.
 */
@Injectable()
export class IdentityLinksService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly repo: IdentityLinksRepository,
  ) {}

  /** Creates the mapping; the same link again is a no-op; any other mapping in the way is 409. */
  async link(gameId: string, externalUserId: string, svcUserId: string, by: ActingOperator): Promise<IdentityLinkDto> {
    if (!isUuid(gameId)) throw ApiError.notFound('game');
    if (!isUuid(svcUserId)) throw ApiError.notFound('user');
    return this.uow.run(async (tx) => {
      if (!(await this.repo.gameExists(tx.manager, gameId))) throw ApiError.notFound('game');
      if (!(await this.repo.userExists(tx.manager, svcUserId))) throw ApiError.notFound('user');
      const link = { gameId, externalUserId, svcUserId };
      if (await this.repo.insert(tx.manager, gameId, externalUserId, svcUserId)) {
        tx.audit({ gameId, groupId: null, action: 'game.user.linked', targetId: externalUserId, payload: { externalUserId, svcUserId } });
        await recordOperatorAction(tx.manager, by, { action: 'identity.linked', gameId, targetId: externalUserId, details: { svcUserId } });
        return link;
      }
      const existing = await this.repo.conflicts(tx.manager, gameId, externalUserId, svcUserId);
      if (existing.length === 1 && existing[0].externalUserId === externalUserId && existing[0].svcUserId === svcUserId) return link;
      const taken = existing.find((e) => e.externalUserId === externalUserId);
      throw new ApiError(
        'already_linked',
        taken
          ? 'externalUserId is already anchored to another internal user in this game'
          : 'svcUserId already has another external id in this game',
      );
    });
  }
}
