import type { EntityManager } from 'typeorm';
import { isUuid, uuidv7 } from '../common/ids';
import { sharedKey, type SharedStatement, type SharedWrite } from '../db/shared-write';
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

/** A member write's shared statement, request, keys and check: all of its SharedWrite but its rest. */
export type LookupWrite<Req> = Omit<SharedWrite<Req, LookupRow | null>, 'then'>;

/** The statement of a kind of member write, and how a write of it names its keys. */
export interface MemberWriteLookups<Req> extends SharedStatement<Req, LookupRow | null> {
  write(r: Req): LookupWrite<Req>;
}

const row = (groups: GroupsRepository, m: EntityManager, r: MemberWriteLookup, options: Parameters<GroupsRepository['findWithUser']>[4]) =>
  isUuid(r.groupId) ? groups.findWithUser(m, r.gameId, r.groupId, r.userId, options) : Promise.resolve(null);

/** How many groups SeenGroups keeps, the most recently seen. */
const GROUPS_KEPT = 4096;

/** What a member write's lookup last showed of a group: whether it has a member cap, and its owner's external id. */
interface Seen {
  capped: boolean;
  owner: string | null;
}

/** The groups as this process's member writes last saw them. */
class SeenGroups {
  private readonly groups = new Map<string, Seen>();

  get(groupId: string): Seen | undefined {
    return this.groups.get(groupId.toLowerCase());
  }

  saw(rows: (LookupRow | null)[]): (LookupRow | null)[] {
    for (const r of rows) {
      if (!r) continue;
      this.groups.delete(r.id);
      this.groups.set(r.id, { capped: r.maxMembers !== null, owner: r.ownerUserId });
      if (this.groups.size > GROUPS_KEPT) this.groups.delete(this.groups.keys().next().value!);
    }
    return rows;
  }
}

/**
 * A member write of `r`, naming its group shared when `shares` (what this process saw of the group
 * lets it), and then held to it: its answer must show the group as seen (`asSeen`), else the batch
 * runs each write again alone (UnitOfWork), which then knows the group as it is.
 */
function memberWrite<Req extends MemberWriteLookup>(
  statement: SharedStatement<Req, LookupRow | null>,
  r: Req,
  shares: boolean,
  asSeen: (row: LookupRow) => boolean,
): LookupWrite<Req> {
  const group = `group:${r.groupId.toLowerCase()}`;
  return {
    statement,
    request: r,
    keys: [shares ? sharedKey(group) : group, `user:${r.gameId}:${r.userId}`],
    ...(shares ? { keysHeld: (found: LookupRow | null) => found === null || asSeen(found) } : {}),
  };
}

/**
 * The first statements of a public join and of a leave: the group, the ban, the admission, and the
 * member change made alongside. Two member writes of one group by different players touch nothing
 * of each other's but the group's cap and, for its owner's leave, its member count: each is read
 * in its statement's one snapshot, before the others' rows. So a join names its group shared unless
 * the group was seen with a cap, and a leave names it shared when the group was seen owned by
 * someone else (waves); a write whose lookup then finds a cap, or its player the owner, fails its
 * batch, which runs each write again alone.
 */
export function memberWriteLookups(groups: GroupsRepository): { join: MemberWriteLookups<JoinLookup>; leave: MemberWriteLookups<MemberWriteLookup> } {
  const seen = new SeenGroups();
  const join: MemberWriteLookups<JoinLookup> = {
    write: (r) => memberWrite(join, r, seen.get(r.groupId)?.capped !== true, (found) => found.maxMembers === null),
    one: async (m, r) => seen.saw([await row(groups, m, r, { lock: true, banScope: true, admission: true, with: activateAlongside(r.userId, r.checked) })])[0],
    many: async (m, rs) =>
      seen.saw(
        await groups.findManyWithUser(
          m,
          rs.map((r) => ({ gameId: r.gameId, groupId: r.groupId, externalUserId: r.userId, inputs: [uuidv7(), r.userId, r.checked] })),
          { banScope: true, admission: true, with: ACTIVATE_EACH },
        ),
      ),
  };
  const leave: MemberWriteLookups<MemberWriteLookup> = {
    write: (r) => {
      const known = seen.get(r.groupId);
      return memberWrite(leave, r, known !== undefined && known.owner !== r.userId, (found) => found.svcUserId === null || found.ownerSvcUserId !== found.svcUserId);
    },
    one: async (m, r) => seen.saw([await row(groups, m, r, { lock: true, banScope: false, with: deactivateAlongside('left') })])[0],
    many: async (m, rs) =>
      seen.saw(
        await groups.findManyWithUser(
          m,
          rs.map((r) => ({ gameId: r.gameId, groupId: r.groupId, externalUserId: r.userId, inputs: [] })),
          { banScope: false, admission: false, with: LEAVE_EACH },
        ),
      ),
  };
  return { join, leave };
}
