import type { EntityManager } from 'typeorm';
import { isUuid, uuidv7 } from '../common/ids';
import type { SharedStatement } from '../db/shared-write';
import type { GroupsRepository, LookupRow } from '../groups/groups.repository';
import { ACTIVATE_EACH, activateAlongside, deactivateAlongside, LEAVE_EACH } from './members.repository';

/** One member write's lookup: the group and player it names. */
export interface MemberWriteLookup {
  gameId: string;
  groupId: string;
  userId: string;
}

/** A public join's: with the passcode hash checked outside the transaction, if any. */
export type JoinLookup = MemberWriteLookup & { checked: string | null };

/** What two member writes of one shared lookup may not both name: the group, the player. */
export const memberWriteKeys = (r: MemberWriteLookup): string[] => [`group:${r.groupId.toLowerCase()}`, `user:${r.gameId}:${r.userId}`];

const row = (groups: GroupsRepository, m: EntityManager, r: MemberWriteLookup, options: Parameters<GroupsRepository['findWithUser']>[4]) =>
  isUuid(r.groupId) ? groups.findWithUser(m, r.gameId, r.groupId, r.userId, options) : Promise.resolve(null);

/** A public join's first statement: the group, the ban, the admission, and the activation made alongside. */
export function joinLookups(groups: GroupsRepository): SharedStatement<JoinLookup, LookupRow | null> {
  return {
    one: (m, r) => row(groups, m, r, { lock: true, banScope: true, admission: true, with: activateAlongside(r.userId, r.checked) }),
    many: (m, rs) =>
      groups.findManyWithUser(
        m,
        rs.map((r) => ({ gameId: r.gameId, groupId: r.groupId, externalUserId: r.userId, inputs: [uuidv7(), r.userId, r.checked] })),
        { banScope: true, admission: true, with: ACTIVATE_EACH },
      ),
  };
}

/** A leave's first statement: the group and the departure made alongside. */
export function leaveLookups(groups: GroupsRepository): SharedStatement<MemberWriteLookup, LookupRow | null> {
  return {
    one: (m, r) => row(groups, m, r, { lock: true, banScope: false, with: deactivateAlongside('left') }),
    many: (m, rs) =>
      groups.findManyWithUser(
        m,
        rs.map((r) => ({ gameId: r.gameId, groupId: r.groupId, externalUserId: r.userId, inputs: [] })),
        { banScope: false, admission: false, with: LEAVE_EACH },
      ),
  };
}
