import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import type { BanScope } from '../bans/ban-checker';
import { isUuid } from '../common/ids';
import { IdentityService } from '../identity/identity.service';
import type { Refusal } from './admission';
import type { GroupHead, GroupRow, LookedUpGroup } from './group-row';
import { GroupsRepository, type FindWithUserOptions, type LookupRow } from './groups.repository';

/** What a member write's lookup found (GroupsRepository.findWithUser): its group, the user and the write made alongside. */
export interface LookedUp {
  group: LookedUpGroup;
  svcUserId: string | null;
  banScope: BanScope | null;
  refusal: Refusal | null;
  alongside: Record<string, unknown> | null;
}

/** The lookup's row as liveWithUser answers it: a group missing or soft-deleted is 404. */
export function liveLookedUp(row: LookupRow | null): LookedUp {
  if (!row || row.softDeletedAt) throw ApiError.notFound('group');
  const { svcUserId, banScope, refusal, alongside, ...group } = row;
  return { group, svcUserId, banScope, refusal, alongside: alongside ?? null };
}

/** A group found, when live: a group missing or soft-deleted is 404. */
function liveOf<G extends GroupHead>(group: G | null): G {
  if (!group || group.softDeletedAt) throw ApiError.notFound('group');
  return group;
}

/**
 * Finds the group a request names. Missing, in another game or soft-deleted all answer the same
 * 404 (SPEC §4 Conventions), so existence never leaks across tenants.
 */
@Injectable()
export class GroupLookup {
  constructor(
    private readonly groups: GroupsRepository,
    private readonly identity: IdentityService,
  ) {}

  async live(m: EntityManager, gameId: string, groupId: string, lock: boolean | 'share' = false): Promise<GroupRow> {
    return liveOf(isUuid(groupId) ? await this.groups.find(m, gameId, groupId, lock) : null);
  }

  /** The same, for a caller that never shows the group's member count (GroupHead: the cheaper read). */
  async liveHead(m: EntityManager, gameId: string, groupId: string, lock: boolean | 'share' = false): Promise<GroupHead> {
    return liveOf(isUuid(groupId) ? await this.groups.findHead(m, gameId, groupId, lock) : null);
  }

  /**
   * A live group and, from the same statement, the internal id of a user (null when unknown to
   * the game) and with `banScope` the ban in force on them: a write's first statement. `with`, the
   * member write (or read) made in that statement too (GroupsRepository.findWithUser), answers as
   * `alongside`; whatever the caller then throws rolls it back with the rest of the transaction.
   * With `admission`, `refusal` says why the user may not be admitted (EXTENSIONS X5).
   */
  async liveWithUser(
    m: EntityManager,
    gameId: string,
    groupId: string,
    externalUserId: string | null,
    { banScope = false, ...options }: Omit<FindWithUserOptions, 'banScope'> & { banScope?: boolean },
  ): Promise<LookedUp> {
    return liveLookedUp(isUuid(groupId) ? await this.groups.findWithUser(m, gameId, groupId, externalUserId, { banScope, ...options }) : null);
  }

  /**
   * A live group as `viewer` may see it: a secret group is 404 unless the viewer is an active
   * member. Without a viewer the caller is the server and sees everything.
   */
  async visible(m: EntityManager, gameId: string, groupId: string, viewer?: string): Promise<GroupRow> {
    const group = await this.live(m, gameId, groupId);
    if (viewer !== undefined && group.visibility === 'secret' && !(await this.isActiveMember(m, group, viewer))) {
      throw ApiError.notFound('group');
    }
    return group;
  }

  async isActiveMember(m: EntityManager, group: GroupRow, externalUserId: string): Promise<boolean> {
    const svcUserId = await this.identity.find(m, group.gameId, externalUserId);
    if (!svcUserId) return false;
    return this.groups.hasActiveMember(m, group.id, svcUserId);
  }
}
