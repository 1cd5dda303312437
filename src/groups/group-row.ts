/** A groups row as the repository reads it. */
export interface GroupRow {
  id: string;
  gameId: string;
  kind: string;
  name: string;
  visibility: Visibility;
  metadata: Record<string, unknown>;
  defaultRoleId: string | null;
  passcodeHash: string | null;
  parentGroupId: string | null;
  /** EXTENSIONS X5: what players search by, and the cap on active members (null: none). */
  tags: string[];
  maxMembers: number | null;
  /** EXTENSIONS X6: the owner's external id (what answers show) and internal id (what the rules compare). */
  ownerUserId: string | null;
  ownerSvcUserId: string | null;
  memberCount: number;
  createdAt: Date;
  updatedAt: Date;
  softDeletedAt: Date | null;
}

export const VISIBILITIES = ['public', 'invite-only', 'secret'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/**
 * The active members of group `g`: its folded counter plus the deltas not yet folded into it
 * (migration MemberCountDeltas), both read in the statement's snapshot, so always exact.
 */
export const memberCountSql = (g: string) =>
  `(${g}.active_member_count + coalesce((SELECT sum(d.delta)::int FROM group_member_count_deltas d WHERE d.group_id = ${g}.id), 0))`;

/**
 * The body of a CTE `unfolded (group_id, delta)`: the deltas not yet folded of the groups whose ids
 * `ids` (SQL, a uuid[]) lists, summed in one index scan. A page of groups reads its counts with it
 * rather than with memberCountSql's subquery, which starts a scan for each row: that costs more
 * than the rest of a row, and on a table as small as the deltas PostgreSQL's planner picks a
 * sequential scan whose every start asks the kernel for the table's size.
 */
export const unfoldedDeltasSql = (ids: string) =>
  `SELECT d.group_id, sum(d.delta)::int AS delta FROM group_member_count_deltas d WHERE d.group_id = ANY (${ids}) GROUP BY d.group_id`;

/** A groups row's columns (as `GroupRow`, from `groups g`), its member count as the SQL `memberCount` gives it (none when null). */
const groupColumns = (memberCount: string | null) => `g.id, g.game_id AS "gameId", g.kind, g.name, g.visibility, g.metadata,
  g.default_role_id AS "defaultRoleId", g.passcode_hash AS "passcodeHash", g.parent_group_id AS "parentGroupId",
  g.tags, g.max_members AS "maxMembers", g.owner_external_id AS "ownerUserId", g.owner_user_id AS "ownerSvcUserId",
  ${memberCount === null ? '' : `${memberCount} AS "memberCount", `}g.created_at AS "createdAt", g.updated_at AS "updatedAt",
  g.soft_deleted_at AS "softDeletedAt"`;

export const GROUP_COLUMNS = groupColumns(memberCountSql('g'));

/**
 * A group as a write or a read that never shows its member count reads it: without the sum of the
 * deltas not yet folded, which on a group many players join and leave at once is a scan of
 * hundreds of rows, most of the lookup's work.
 */
export type GroupHead = Omit<GroupRow, 'memberCount'>;

export const GROUP_HEAD_COLUMNS = groupColumns(null);

/** GROUP_COLUMNS for a page of groups, with `unfolded` left-joined (unfoldedDeltasSql). */
export const PAGE_GROUP_COLUMNS = groupColumns('(g.active_member_count + coalesce(unfolded.delta, 0))');

/**
 * A group as a member write's lookup reads it (GroupsRepository.findWithUser): its member count only
 * when the user the lookup names owns it, the one case a member write reads the count (an owner's
 * departure: GroupOwnership.departing). Summing the deltas not yet folded is most of a lookup's work
 * on a group many players join and leave at once (up to a second of them).
 */
export type LookedUpGroup = GroupHead & { memberCount: number | null };

/** LOOKUP_GROUP_COLUMNS's count, with `u` the identity of the user the lookup names. */
export const LOOKUP_GROUP_COLUMNS = groupColumns(`CASE WHEN g.owner_user_id = u.user_id THEN ${memberCountSql('g')} END`);

/** The same for a write that never reads the count, even its owner's (an invitation): null. */
export const LOOKUP_HEAD_COLUMNS = groupColumns('NULL::int');

/** EXTENSIONS X5: a tag is 1-32 of a-z, 0-9, ':', '_' and '-'; a group has at most 10, distinct. */
export const TAG_PATTERN = /^[a-z0-9:_-]{1,32}$/;
export const MAX_TAGS = 10;
export const MAX_MEMBERS_CAP = 100_000;
