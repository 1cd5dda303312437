import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { uuidv7 } from '../common/ids';
import { preparedRows, sqlRows } from '../db/sql';
import { admissionSql, type Refusal } from '../groups/admission';
import type { Alongside, SharedAlongside } from '../groups/groups.repository';
import { holdersSql } from '../permissions/grant-sql';
import { packedSql, unpack } from '../db/packed-row';
import { MEMBER_JSON_PARTS } from './member-json';
import { LOOKUP_MEMBER, MEMBER_COLUMNS, MEMBER_SCALAR_COLUMNS, type MemberRow, type MemberStatus } from './member-row';

export interface MemberChanges {
  metadata?: Record<string, unknown>;
  notesPublic?: string | null;
  notesPrivate?: string | null;
}

const CHANGE_COLUMN: Record<keyof MemberChanges, string> = {
  metadata: 'metadata',
  notesPublic: 'notes_public',
  notesPrivate: 'notes_private',
};

/** What activation returns: the member, and whether a join request of theirs is pending. */
export type ActivatedRow = MemberRow & { joinRequestPending: boolean };

/** A left, kicked or invited row `m` is reused, and a banned one whose ban has lapsed. */
const REUSABLE = `(m.status IN ('left', 'kicked', 'invited') OR (m.status = 'banned' AND m.banned_until IS NOT NULL AND m.banned_until <= now()))`;

const ACTIVATE_CONFLICT = `ON CONFLICT (group_id, user_id) DO UPDATE SET status = 'active', left_at = NULL, banned_until = NULL WHERE ${REUSABLE}`;

/** Whether the member's user has a pending join request for the group (EXTENSIONS X3), which the caller closes. */
const JOIN_REQUEST_PENDING = `EXISTS (SELECT 1 FROM join_requests r WHERE r.group_id = m.group_id AND r.user_id = m.user_id AND r.status = 'pending')
           AS "joinRequestPending"`;

const ACTIVATED_COLUMNS = `${MEMBER_COLUMNS}, ${JOIN_REQUEST_PENDING}`;

/**
 * ACTIVATED_COLUMNS of a row just inserted: a new member id has no role assignment (member_roles
 * names its member), so its grants are none without reading them, a subplan less to run a join.
 */
const FRESH_COLUMNS = `${MEMBER_SCALAR_COLUMNS}, '[]'::jsonb AS "roleGrants", ${JOIN_REQUEST_PENDING}`;

/** A group-banned member: `inForce` is false for a ban set already lapsed. */
export type BannedRow = MemberRow & { inForce: boolean; joinRequestPending: boolean };

/** A ban on an active member ends the membership (DECISIONS §28). */
const BAN_CONFLICT = `ON CONFLICT (group_id, user_id) DO UPDATE SET status = 'banned', banned_until = EXCLUDED.banned_until,
         left_at = CASE WHEN m.status = 'active' THEN now() ELSE m.left_at END`;

const BANNED_COLUMNS = `${MEMBER_COLUMNS}, (m.banned_until IS NULL OR m.banned_until > now()) AS "inForce", ${JOIN_REQUEST_PENDING}`;

/**
 * A public join's activation, made in the group lookup's statement (GroupLookup.liveWithUser):
 * only for a user the game knows, and only when the lookup allows the join (public, not banned,
 * the passcode none or the one checked), so that it writes exactly when the join goes ahead.
 */
export function activateAlongside(externalUserId: string, checkedPasscodeHash: string | null): Alongside {
  return (p) =>
    activation(lookupUserRow(p, externalUserId), publicJoinAllowed(p(checkedPasscodeHash)), '');
}

/** The new member row of a single lookup's user (findWithUser): its id and external id as parameters. */
const lookupUserRow = (p: (value: unknown) => string, externalUserId: string) => ({
  id: p(uuidv7()),
  externalUserId: p(externalUserId),
  missing: `NOT EXISTS (SELECT 1 FROM ${LOOKUP_MEMBER})`,
});

/** Whether the lookup `l` lets a public join go ahead, with `checked` the passcode hash checked outside the transaction. */
const publicJoinAllowed = (checked: string) => `l.visibility = 'public' AND (l."passcodeHash" IS NULL OR l."passcodeHash" = ${checked})`;

/**
 * activateAlongside for the public joins of a shared lookup (GroupsRepository.findManyWithUser): each
 * lookup row `l` carries its join's new member id, external user id and checked passcode hash as
 * `in_id`, `in_external_id` and `in_checked`. No two rows name the same group or user.
 */
export const ACTIVATE_EACH: SharedAlongside = {
  inputs: [
    { name: 'in_id', type: 'uuid' },
    { name: 'in_external_id', type: 'text' },
    { name: 'in_checked', type: 'text' },
  ],
  sql: activation(
    { id: 'l.in_id', externalUserId: 'l.in_external_id', missing: 'NOT EXISTS (SELECT 1 FROM members m WHERE m.group_id = l.id AND m.user_id = l."svcUserId")' },
    publicJoinAllowed('l.in_checked'),
    '',
  ),
};

/** A new group's creator, made its first member in the group's insert (GroupsRepository.insert). */
export function creatorActivationAlongside(externalUserId: string): Alongside {
  return (p) => activation(lookupUserRow(p, externalUserId), 'true', '');
}

/**
 * An invitation accept's activation, made in the group lookup's statement after `redeemed` (see
 * redeemAlongside): its row says whether that counted the accept.
 */
export function invitedActivationAlongside(externalUserId: string): Alongside {
  return (p) =>
    activation(lookupUserRow(p, externalUserId), 'true', ', EXISTS (SELECT 1 FROM redeemed) AS redeemed');
}

/**
 * The activation of the lookup's user: a new row (`row.id`, `row.externalUserId`) when the statement's
 * snapshot holds none (`row.missing`; a plain insert: no speculative insertion to confirm, 48 bytes
 * of WAL a join less), else the row reused as ACTIVATE_CONFLICT says. A row another transaction
 * inserts after the snapshot makes the insert fail on members_group_id_user_id_key; the unit of
 * work runs the whole change again (isRetryableConflict), which then finds that row, as ON CONFLICT
 * would have.
 */
function activation(row: { id: string; externalUserId: string; missing: string }, allowed: string, returning: string): string {
  const admitted = `l."svcUserId" IS NOT NULL AND l."softDeletedAt" IS NULL AND l."banScope" IS NULL AND l.refusal IS NULL AND ${allowed}`;
  const returned = `RETURNING ${ACTIVATED_COLUMNS}${returning}`;
  return `fresh AS (
       INSERT INTO members AS m (id, group_id, user_id, external_user_id, status)
       SELECT ${row.id}, l.id, l."svcUserId", ${row.externalUserId}, 'active' FROM lookup l
       WHERE ${admitted} AND ${row.missing}
       RETURNING ${FRESH_COLUMNS}${returning}),
     reused AS (
       UPDATE members AS m SET status = 'active', left_at = NULL, banned_until = NULL
       FROM lookup l WHERE m.group_id = l.id AND m.user_id = l."svcUserId" AND ${admitted} AND ${REUSABLE}
       ${returned}),
     alongside AS (SELECT * FROM fresh UNION ALL SELECT * FROM reused)`;
}

/** A departure (leave or kick) of an active member, made in the group lookup's statement. */
export function deactivateAlongside(status: 'left' | 'kicked'): Alongside {
  return (p) => departure(p(status));
}

/** deactivateAlongside for the leaves of a shared lookup (GroupsRepository.findManyWithUser). */
export const LEAVE_EACH: SharedAlongside = { inputs: [], sql: departure("'left'") };

function departure(status: string): string {
  return `alongside AS (
       UPDATE members m SET status = ${status}, left_at = now()
       FROM lookup l WHERE m.group_id = l.id AND m.user_id = l."svcUserId" AND m.status = 'active'
       RETURNING ${MEMBER_COLUMNS})`;
}

/** A group ban (as `ban`) of a user the game knows, made in the group lookup's statement. */
export function banAlongside(externalUserId: string, until: Date | null): Alongside {
  return (p) => `alongside AS (
       INSERT INTO members AS m (id, group_id, user_id, external_user_id, status, banned_until)
       SELECT ${p(uuidv7())}, l.id, l."svcUserId", ${p(externalUserId)}, 'banned', ${p(until)}::timestamptz FROM lookup l
       WHERE l."svcUserId" IS NOT NULL AND l."softDeletedAt" IS NULL
       ${BAN_CONFLICT}
       RETURNING ${BANNED_COLUMNS})`;
}

/** The lifting of a group ban (as `unban`), made in the group lookup's statement. */
export function unbanAlongside(): Alongside {
  return () => `alongside AS (
       UPDATE members m SET status = 'left', banned_until = NULL
       FROM lookup l WHERE m.group_id = l.id AND m.user_id = l."svcUserId" AND m.status = 'banned'
       RETURNING ${MEMBER_COLUMNS})`;
}

/** The user's member row in any status, read in the group lookup's statement. */
export function memberAlongside(): Alongside {
  return () => `alongside AS (SELECT ${MEMBER_COLUMNS} FROM ${LOOKUP_MEMBER})`;
}

/** The `alongside` member row, as `to_jsonb` gave it back: its times made Dates again. */
export function alongsideMember<R extends MemberRow>(json: Record<string, unknown>): R {
  const row = json as unknown as R;
  return {
    ...row,
    joinedAt: new Date(json.joinedAt as string),
    leftAt: json.leftAt === null ? null : new Date(json.leftAt as string),
    bannedUntil: json.bannedUntil === null ? null : new Date(json.bannedUntil as string),
    timedOutUntil: json.timedOutUntil === null ? null : new Date(json.timedOutUntil as string),
  };
}

/** A member as memberJson writes it, packed. */
const MEMBER_PACKED = packedSql(MEMBER_JSON_PARTS);

/** Member rows. */
@Injectable()
export class MembersRepository {
  /**
   * Makes the user an active member, unless the group's cap or the game's exclusive kinds refuse
   * them (`refusal`, see admissionSql; nothing is written then): a new row, or the reused row of a
   * member who left or was kicked, or whose group ban has lapsed (joinedAt kept, leftAt cleared).
   * `row` is null when the row is active (or banned for good): the caller decides what that means.
   * A concurrent activation of the same user waits on the unique (group_id, user_id) index and
   * then finds the row active. `joinRequestPending`: the user has a pending join request for the
   * group (EXTENSIONS X3), which the caller closes; read here so that a join without one costs no
   * further statement.
   */
  async activate(
    m: EntityManager,
    group: { id: string; gameId: string; maxMembers: number | null; kind: string },
    svcUserId: string,
    externalUserId: string,
  ): Promise<{ row: ActivatedRow | null; refusal: Refusal | null }> {
    const admission = admissionSql({ id: '$2::uuid', gameId: '$5::uuid', maxMembers: '$6::integer', kind: '$7::text' }, '$3::uuid');
    const [result] = await sqlRows<Partial<ActivatedRow> & { refusal: Refusal | null }>(
      m,
      `WITH admission AS (SELECT ${admission} AS refusal), activated AS (
         INSERT INTO members AS m (id, group_id, user_id, external_user_id, status)
         SELECT $1, $2, $3, $4, 'active' FROM admission WHERE refusal IS NULL
         ${ACTIVATE_CONFLICT}
         RETURNING ${ACTIVATED_COLUMNS})
       SELECT a.refusal, x.* FROM admission a LEFT JOIN activated x ON true`,
      [uuidv7(), group.id, svcUserId, externalUserId, group.gameId, group.maxMembers, group.kind],
    );
    const { refusal, ...row } = result;
    return { row: row.id ? (row as ActivatedRow) : null, refusal };
  }

  /**
   * Puts the user under a group ban (DECISIONS §5): a non-member gets a row in status banned; an
   * active member's leftAt is set (DECISIONS §28). `inForce` is false for a ban set already lapsed.
   */
  async ban(
    m: EntityManager,
    groupId: string,
    svcUserId: string,
    externalUserId: string,
    until: Date | null,
  ): Promise<BannedRow> {
    const [row] = await sqlRows<BannedRow>(
      m,
      `INSERT INTO members AS m (id, group_id, user_id, external_user_id, status, banned_until)
       VALUES ($1, $2, $3, $4, 'banned', $5)
       ${BAN_CONFLICT}
       RETURNING ${BANNED_COLUMNS}`,
      [uuidv7(), groupId, svcUserId, externalUserId, until],
    );
    return row;
  }

  async findByUser(m: EntityManager, groupId: string, svcUserId: string, lock = false): Promise<MemberRow | null> {
    const [row] = await sqlRows<MemberRow>(
      m,
      `SELECT ${MEMBER_COLUMNS} FROM members m WHERE m.group_id = $1 AND m.user_id = $2${lock ? ' FOR UPDATE' : ''}`,
      [groupId, svcUserId],
    );
    return row ?? null;
  }

  /** A member by id within a game, with its group's soft-deletion state. */
  async findInGame(m: EntityManager, gameId: string, id: string): Promise<(MemberRow & { groupDeleted: boolean }) | null> {
    const [row] = await sqlRows<MemberRow & { groupDeleted: boolean }>(
      m,
      `SELECT ${MEMBER_COLUMNS}, g.soft_deleted_at IS NOT NULL AS "groupDeleted"
       FROM members m JOIN groups g ON g.id = m.group_id
       WHERE m.id = $1 AND g.game_id = $2`,
      [id, gameId],
    );
    return row ?? null;
  }

  async update(m: EntityManager, id: string, changes: MemberChanges): Promise<MemberRow> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    for (const [key, value] of Object.entries(changes) as [keyof MemberChanges, unknown][]) {
      params.push(key === 'metadata' ? JSON.stringify(value) : value);
      sets.push(`${CHANGE_COLUMN[key]} = $${params.length}`);
    }
    const [row] = await sqlRows<MemberRow>(m, `UPDATE members m SET ${sets.join(', ')} WHERE m.id = $1 RETURNING ${MEMBER_COLUMNS}`, params);
    return row;
  }

  /**
   * A page of a live group's members (of this game), newest first on members_group_joined, in ONE
   * statement with the group check; null when the group is missing, deleted or of another game.
   * With `permission`, only the members allowed it now, found through the grants (holdersSql). Each
   * member comes as the fields memberJson writes.
   */
  async pageOfLiveGroup(
    ds: DataSource,
    gameId: string,
    groupId: string,
    opts: { status?: MemberStatus; permission?: string; timeoutDenies?: boolean; after?: { joinedAt: string; id: string }; limit: number },
  ): Promise<string[][] | null> {
    const params: unknown[] = [groupId, gameId];
    const where = ['f.found'];
    if (opts.status) {
      params.push(opts.status);
      where.push(`m.status = $${params.length}`);
    }
    let after: [string, string] | null = null;
    if (opts.after) {
      params.push(opts.after.joinedAt, opts.after.id);
      after = [`$${params.length - 1}`, `$${params.length}`];
    }
    let page: string;
    if (opts.permission !== undefined) {
      params.push(opts.permission);
      // The limit written in (an integer, see parsePageLimit): as a parameter, PostgreSQL prices the
      // merge's generic plan as if every holder were read, so it plans every call afresh, and
      // planning costs more than the page.
      const holders = holdersSql({ groupId: '$1', permission: `$${params.length}`, limit: String(opts.limit + 1), after, timeoutDenies: opts.timeoutDenies === true });
      page = `SELECT ${MEMBER_PACKED} AS r FROM (${holders}) h JOIN members m ON m.id = h.member_id
         WHERE ${where.join(' AND ')} ORDER BY h.joined DESC, h.member_id DESC`;
    } else {
      if (after) where.push(`(m.joined_at, m.id) < (${after[0]}::timestamptz, ${after[1]}::uuid)`);
      params.push(opts.limit + 1);
      page = `SELECT ${MEMBER_PACKED} AS r FROM members m WHERE m.group_id = $1 AND ${where.join(' AND ')}
         ORDER BY m.joined_at DESC, m.id DESC LIMIT $${params.length}`;
    }
    const rows = await preparedRows<{ found: boolean; r: string | null }>(
      ds,
      `members_json_page_${opts.status ? 's' : ''}${opts.permission !== undefined ? `p${opts.limit + 1}` : ''}${opts.timeoutDenies ? 't' : ''}${opts.after ? 'a' : ''}`,
      `SELECT f.found, p.*
       FROM (SELECT EXISTS (SELECT 1 FROM groups g WHERE g.id = $1 AND g.game_id = $2 AND g.soft_deleted_at IS NULL) AS found) f
       LEFT JOIN LATERAL (${page}) p ON true`,
      params,
    );
    if (!rows[0]?.found) return null;
    return rows[0].r === null ? [] : rows.map((x) => unpack(x.r as string));
  }

  /** The user's memberships in live groups, joinedAt descending, at most `limit`. */
  listForUser(m: EntityManager, svcUserId: string, gameId: string, limit: number): Promise<MemberRow[]> {
    return sqlRows<MemberRow>(
      m,
      `SELECT ${MEMBER_COLUMNS} FROM members m JOIN groups g ON g.id = m.group_id
       WHERE m.user_id = $1 AND g.game_id = $2 AND g.soft_deleted_at IS NULL
       ORDER BY m.joined_at DESC, m.id DESC LIMIT $3`,
      [svcUserId, gameId, limit],
    );
  }
}
