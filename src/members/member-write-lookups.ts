import type { EntityManager } from 'typeorm';
import { isUuid, uuidv7 } from '../common/ids';
import { sharedKey, type SharedStatement } from '../db/shared-write';
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

/** How many groups CappedGroups keeps, the most recently seen. */
const CAPPED_KEPT = 4096;

/** The groups whose last join lookup showed a member cap, as far as this process has seen. */
class CappedGroups {
  private readonly ids = new Map<string, true>();

  has(groupId: string): boolean {
    return this.ids.has(groupId.toLowerCase());
  }

  saw(row: LookupRow): void {
    this.ids.delete(row.id);
    if (row.maxMembers === null) return;
    this.ids.set(row.id, true);
    if (this.ids.size > CAPPED_KEPT) this.ids.delete(this.ids.keys().next().value!);
  }
}

/** Two joins of a capped group in one statement, each admitted in a snapshot without the other. */
class CappedGroupJoinedTwice extends Error {}

/**
 * A public join's first statement: the group, the ban, the admission, and the activation made
 * alongside; and its keys. Joins of one group by different players touch nothing of each other's
 * but the group's cap: each is admitted in the statement's one snapshot, before the others' rows.
 * So they name their group shared (waves), unless the group is known to have a cap; a statement
 * that finds two joins of a capped group all the same fails, and the batch runs each write again
 * alone (UnitOfWork), which then knows the cap.
 */
export function joinLookups(groups: GroupsRepository): SharedStatement<JoinLookup, LookupRow | null> & { keys(r: JoinLookup): string[] } {
  const capped = new CappedGroups();
  const seen = (rows: (LookupRow | null)[]) => {
    for (const r of rows) if (r) capped.saw(r);
    return rows;
  };
  return {
    keys: (r) => {
      const [group, user] = memberWriteKeys(r);
      return [capped.has(r.groupId) ? group : sharedKey(group), user];
    },
    one: async (m, r) => seen([await row(groups, m, r, { lock: true, banScope: true, admission: true, with: activateAlongside(r.userId, r.checked) })])[0],
    many: async (m, rs) => {
      const rows = seen(
        await groups.findManyWithUser(
          m,
          rs.map((r) => ({ gameId: r.gameId, groupId: r.groupId, externalUserId: r.userId, inputs: [uuidv7(), r.userId, r.checked] })),
          { banScope: true, admission: true, with: ACTIVATE_EACH },
        ),
      );
      const cappedIds = rows.flatMap((r) => (r && r.maxMembers !== null ? [r.id] : []));
      if (new Set(cappedIds).size < cappedIds.length) throw new CappedGroupJoinedTwice('two joins of a capped group in one statement');
      return rows;
    },
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
