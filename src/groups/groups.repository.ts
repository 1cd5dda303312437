import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { banScopeSql, type BanScope } from '../bans/ban-checker';
import type { AdvisoryLock } from '../db/advisory-locks';
import { unpack } from '../db/packed-row';
import { lockBeforeNextStatement, preparedRows, sqlRows, unitOfWorkClient } from '../db/sql';
import { isUuid } from '../common/ids';
import { identityIs } from '../identity/identity.repository';
import { lockUsersForWrite } from '../identity/user-lock';
import { admissionSql, type Refusal } from './admission';
import { groupPageSql } from './group-json';
import { GROUP_COLUMNS, GROUP_HEAD_COLUMNS, LOOKUP_GROUP_COLUMNS, LOOKUP_HEAD_COLUMNS, type GroupHead, type GroupRow, type LookedUpGroup, type Visibility } from './group-row';

export interface NewGroup {
  id: string;
  gameId: string;
  kind: string;
  name: string;
  visibility: Visibility;
  metadata: Record<string, unknown>;
  defaultRoleId: string | null;
  passcodeHash: string | null;
  tags: string[];
  maxMembers: number | null;
}

export interface GroupChanges {
  name?: string;
  visibility?: Visibility;
  metadata?: Record<string, unknown>;
  defaultRoleId?: string | null;
  passcodeHash?: string | null;
  tags?: string[];
  maxMembers?: number | null;
}

export interface GroupListFilter {
  gameId: string;
  /** Only children of this group. */
  parentGroupId?: string;
  /** Secret groups are listed only where this internal user is an active member. */
  viewer?: { userId: string | null };
  after?: { createdAt: string; id: string };
  limit: number;
}

/** Group `id`'s lock: shared for a member write, exclusive for a write to the group itself. */
function lockGroup(id: string, of: 'members' | 'group'): AdvisoryLock[] {
  return [{ group: id, exclusive: of === 'group' }];
}

const COLUMN: Record<keyof GroupChanges, string> = {
  name: 'name',
  visibility: 'visibility',
  metadata: 'metadata',
  defaultRoleId: 'default_role_id',
  passcodeHash: 'passcode_hash',
  tags: 'tags',
  maxMembers: 'max_members',
};

/**
 * What a write does in the group lookup's statement (see findWithUser): the definitions of CTEs
 * that read the lookup's row as `lookup`, one of them `alongside`, the member row written or
 * read. `param` adds a value to the statement's parameters and answers its placeholder.
 */
export type Alongside = (param: (value: unknown) => string) => string;

/**
 * A write made in a shared lookup's statement (findManyWithUser), one for each of its rows: CTEs as
 * Alongside's, that read `lookup` row by row (never as a whole: a CTE that reads every row once,
 * as `SELECT 1 FROM lookup` would, sees the other writes' rows), with each write's own values as
 * the lookup's columns `inputs`.
 */
export interface SharedAlongside {
  inputs: readonly { name: string; type: 'uuid' | 'text' }[];
  sql: string;
}

/** One write's part of a shared lookup: its game, group, user and `inputs`' values, in order. */
export interface SharedLookupRequest {
  gameId: string;
  groupId: string;
  externalUserId: string;
  inputs: readonly unknown[];
}

/** What findWithUser reads and writes besides the group (see there). */
export interface FindWithUserOptions {
  lock: boolean;
  banScope: boolean;
  admission?: boolean;
  with?: Alongside;
  /** Other players the write names (by external id): their locks are taken with the lookup's user's. */
  alsoLocking?: readonly string[];
  /** False for a write that never reads the group's member count, even when its user owns the group (LOOKUP_HEAD_COLUMNS). */
  counted?: boolean;
}

/** A member write's lookup row (findWithUser, findManyWithUser): the group, the user's internal id, ban and refusal, and the write's row. */
export type LookupRow = LookedUpGroup & { svcUserId: string | null; banScope: BanScope | null; refusal: Refusal | null; alongside?: Record<string, unknown> | null };

/** Several writes in the lookup's statement, in order (a later one may read an earlier one's CTE). */
export const alongsideOf =
  (...parts: Alongside[]): Alongside =>
  (param) =>
    parts.map((part) => part(param)).join(', ');

/** The identity `u` of the user named by `externalRef` in game `gameRef`, if the game knows them. */
const identityJoin = (gameRef: string, externalRef: string) => `LEFT JOIN user_identities u ON ${identityIs('u', gameRef, externalRef)}`;

/** Group rows. Every read that serves a client filters by game, and by soft deletion where asked. */
@Injectable()
export class GroupsRepository {
  /**
   * Inserts a group. With `creator`, the creator is its owner (by internal id when the game knows
   * them already; see setOwner), and the same statement reads the group as `lookup` (findWithUser's
   * shape, no ban read) with the creator's internal id, and makes `with`'s write: the creator's
   * membership, a round trip less (or two, for a creator the game knows).
   */
  async insert(
    m: EntityManager,
    g: NewGroup,
    creator?: { externalUserId: string; with: Alongside },
  ): Promise<GroupRow & { svcUserId?: string | null; refusal?: Refusal | null; alongside?: Record<string, unknown> | null }> {
    const params: unknown[] = [g.id, g.gameId, g.kind, g.name, g.visibility, JSON.stringify(g.metadata), g.defaultRoleId, g.passcodeHash, g.tags, g.maxMembers];
    const param = (value: unknown) => `$${params.push(value)}`;
    const insert = (owner: string, counted: string) => `INSERT INTO groups AS g (id, game_id, kind, name, visibility, metadata, default_role_id, passcode_hash, tags, max_members, owner_external_id, owner_user_id, active_member_count)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, ${owner}, ${counted}) RETURNING ${GROUP_COLUMNS}`;
    if (!creator) return (await sqlRows<GroupRow>(m, insert('NULL, NULL', '0'), params))[0];
    const ext = param(creator.externalUserId);
    await lockUsersForWrite(m, g.gameId, [creator.externalUserId]);
    // A creator the game knows becomes a member in this statement, and is counted by the insert
    // (migration CreatorCounted): their membership writes no delta for a fold to update the new row
    // with. The count the admission reads holds them already: the cap one higher. One the game
    // meets only now is counted by their membership, made after the statement, as any member is.
    const admission = admissionSql({ id: 'c.id', gameId: 'c."gameId"', maxMembers: 'c."maxMembers" + 1', kind: 'c.kind' }, 'u.user_id');
    const [row] = await sqlRows<GroupRow & { svcUserId: string | null; refusal: Refusal | null; alongside: Record<string, unknown> | null }>(
      m,
      `WITH u AS MATERIALIZED (SELECT i.user_id FROM user_identities i WHERE ${identityIs('i', '$2', ext)}), created AS (
         ${insert(`${ext}, (SELECT user_id FROM u)`, `CASE WHEN EXISTS (SELECT 1 FROM u) THEN svc_count_creator($1) ELSE 0 END`)}
       ), lookup AS (
         SELECT c.*, u.user_id AS "svcUserId", NULL AS "banScope", ${admission} AS refusal FROM created c LEFT JOIN u ON true
       ), ${creator.with(param)}
       SELECT l.*, to_jsonb(w) AS alongside FROM lookup l LEFT JOIN alongside w ON true`,
      params,
    );
    const { banScope: _none, ...group } = row as typeof row & { banScope: null };
    return group;
  }

  /**
   * The group of this game, soft-deleted or not (null when absent). `lock` takes the locks of a
   * write to the group itself (settings, roles, deletion): the group's lock exclusive (it waits
   * for the member writes in flight and holds new ones back) and its row; `'share'` is a member
   * write's (see findWithUser). Every writer locks the group first, so locks are always taken in
   * the same order.
   */
  async find(m: EntityManager, gameId: string, id: string, lock: boolean | 'share' = false): Promise<GroupRow | null> {
    return this.findWith<GroupRow>(m, GROUP_COLUMNS, gameId, id, lock);
  }

  /** The same, without its member count (GroupHead). */
  async findHead(m: EntityManager, gameId: string, id: string, lock: boolean | 'share' = false): Promise<GroupHead | null> {
    return this.findWith<GroupHead>(m, GROUP_HEAD_COLUMNS, gameId, id, lock);
  }

  private async findWith<T>(m: EntityManager, columns: string, gameId: string, id: string, lock: boolean | 'share'): Promise<T | null> {
    if (lock) await lockBeforeNextStatement(m, lockGroup(id, lock === 'share' ? 'members' : 'group'));
    const [row] = await sqlRows<T>(m, `SELECT ${columns} FROM groups g WHERE g.id = $1 AND g.game_id = $2${lock === true ? ' FOR NO KEY UPDATE' : ''}`, [id, gameId]);
    return row ?? null;
  }

  /**
   * The group, and in the same statement the internal id of a user named by external id (null
   * when the game has never seen it, or none is named) and, with `banScope`, the ban in force on
   * that user. `lock` is a member write's: the group's lock shared, taken before the statement
   * reads (so it reads what a write to the group committed), in the same round trip. The group
   * cannot change or go meanwhile, but writes to other members of it run side by side: nothing
   * locks its row (the member counter does not write it: see memberCountSql).
   *
   * `with` is the member write (or read) that follows the lookup, made in the same statement: a
   * round trip less. Its snapshot is the lookup's, taken once the lock is held, as a statement
   * after the lookup would take it. Its `alongside` row comes back as `alongside` (null when none).
   * With `admission`, the lookup also answers `refusal`, why the user may not be admitted (see
   * admissionSql), which an activation made alongside respects.
   */
  async findWithUser(
    m: EntityManager,
    gameId: string,
    id: string,
    externalUserId: string | null,
    { lock, banScope, admission = false, with: alongside, alsoLocking = [], counted = true }: FindWithUserOptions,
  ): Promise<(LookedUpGroup & { svcUserId: string | null; banScope: BanScope | null; refusal: Refusal | null; alongside?: Record<string, unknown> | null }) | null> {
    if (lock) await lockBeforeNextStatement(m, lockGroup(id, 'members'));
    await lockUsersForWrite(m, gameId, externalUserId === null ? alsoLocking : [externalUserId, ...alsoLocking]);
    const refusal = admission ? admissionSql({ id: 'g.id', gameId: 'g.game_id', maxMembers: 'g.max_members', kind: 'g.kind' }, 'u.user_id') : 'NULL';
    const lookup = `SELECT ${counted ? LOOKUP_GROUP_COLUMNS : LOOKUP_HEAD_COLUMNS}, u.user_id AS "svcUserId", ${banScope ? banScopeSql('g.game_id', 'g.id', 'u.user_id') : 'NULL'} AS "banScope",
         ${refusal} AS refusal
       FROM groups g
       ${identityJoin('g.game_id', '$3')}
       WHERE g.id = $1 AND g.game_id = $2`;
    const params: unknown[] = [id, gameId, externalUserId];
    const param = (value: unknown) => `$${params.push(value)}`;
    const [row] = await sqlRows<LookedUpGroup & { svcUserId: string | null; banScope: BanScope | null; refusal: Refusal | null; alongside?: Record<string, unknown> | null }>(
      m,
      alongside
        ? `WITH lookup AS (${lookup}), ${alongside(param)}
           SELECT l.*, to_jsonb(w) AS alongside FROM lookup l LEFT JOIN alongside w ON true`
        : lookup,
      params,
    );
    return row ?? null;
  }

  /**
   * findWithUser for several writes in one statement, with the ban scope and admission read and
   * `alongside`'s write made for each (the joins or leaves of a batch, UnitOfWork): the answers in
   * the requests' order, null for a group that is not there (or an id that is not a uuid). No two
   * requests may name the same user, as each row is read in the one snapshot of the statement,
   * before any of their writes; two joins of one group are each admitted before the other's row
   * (the cap: see memberWriteLookups). The locks are findWithUser's, all the groups'
   * first, then the users', each in key order, riding in the statement's round trip; the plan
   * generic (ServiceClient.genericPlanNext).
   */
  async findManyWithUser(
    m: EntityManager,
    requests: readonly SharedLookupRequest[],
    { banScope, admission, with: alongside }: { banScope: boolean; admission: boolean; with: SharedAlongside },
  ): Promise<(LookupRow | null)[]> {
    const asked = requests.map((r, i) => ({ ...r, i })).filter((r) => isUuid(r.groupId));
    const answers: (LookupRow | null)[] = requests.map(() => null);
    if (!asked.length) return answers;
    const sorted = <T>(items: T[], key: (t: T) => string) => [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    await lockBeforeNextStatement(m, sorted([...new Set(asked.map((r) => r.groupId.toLowerCase()))], (g) => g).flatMap((g) => lockGroup(g, 'members')));
    for (const gameId of sorted([...new Set(asked.map((r) => r.gameId))], (g) => g)) {
      await lockUsersForWrite(m, gameId, sorted(asked.filter((r) => r.gameId === gameId).map((r) => r.externalUserId), (u) => u));
    }
    unitOfWorkClient(m)?.genericPlanNext();
    const inputs = alongside.inputs.map((input, k) => ({ ...input, k }));
    const columns = ['in_n', 'in_group_id', 'in_game_id', 'in_user', ...inputs.map((c) => c.name)];
    const types = ['int', 'uuid', 'uuid', 'text', ...inputs.map((c) => c.type)];
    const params: unknown[] = [
      asked.map((r) => r.i),
      asked.map((r) => r.groupId),
      asked.map((r) => r.gameId),
      asked.map((r) => r.externalUserId),
      ...inputs.map((c) => asked.map((r) => r.inputs[c.k])),
    ];
    const rows = await sqlRows<{ in_n: number; alongside: Record<string, unknown> | null } & Record<string, unknown>>(
      m,
      `WITH lookup AS (
         SELECT i.*, ${LOOKUP_GROUP_COLUMNS}, u.user_id AS "svcUserId", ${banScope ? banScopeSql('g.game_id', 'g.id', 'u.user_id') : 'NULL'} AS "banScope",
                ${admission ? admissionSql({ id: 'g.id', gameId: 'g.game_id', maxMembers: 'g.max_members', kind: 'g.kind' }, 'u.user_id') : 'NULL'} AS refusal
         FROM unnest(${types.map((type, k) => `$${k + 1}::${type}[]`).join(', ')}) AS i(${columns.join(', ')})
         JOIN groups g ON g.id = i.in_group_id AND g.game_id = i.in_game_id
         ${identityJoin('g.game_id', 'i.in_user')}
       ), ${alongside.sql}
       SELECT l.*, to_jsonb(w) AS alongside FROM lookup l LEFT JOIN alongside w ON w."groupId" = l.id AND w."svcUserId" = l."svcUserId"`,
      params,
    );
    for (const row of rows) {
      const answer: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(row)) if (!key.startsWith('in_')) answer[key] = value;
      answers[row.in_n] = answer as LookupRow;
    }
    return answers;
  }

  /** Makes a user the group's owner (EXTENSIONS X6), or leaves it without one. */
  async setOwner(m: EntityManager, id: string, owner: { svcUserId: string; externalUserId: string } | null): Promise<GroupRow> {
    const [row] = await sqlRows<GroupRow>(
      m,
      `UPDATE groups g SET owner_user_id = $2, owner_external_id = $3, updated_at = now() WHERE g.id = $1 RETURNING ${GROUP_COLUMNS}`,
      [id, owner?.svcUserId ?? null, owner?.externalUserId ?? null],
    );
    return row;
  }

  async hasActiveMember(m: EntityManager, groupId: string, svcUserId: string): Promise<boolean> {
    const rows = await sqlRows(m, `SELECT 1 FROM members WHERE group_id = $1 AND user_id = $2 AND status = 'active'`, [
      groupId,
      svcUserId,
    ]);
    return rows.length > 0;
  }

  /**
   * Keyset page in (createdAt, id) descending order, on groups_game_order or groups_children_order,
   * each group's fields as groupJson writes them (GROUP_JSON_PARTS, packed: one text a row).
   */
  async listJson(ds: DataSource, f: GroupListFilter): Promise<string[][]> {
    const params: unknown[] = [f.gameId];
    const where = ['g.game_id = $1', 'g.soft_deleted_at IS NULL'];
    let variant = '';
    if (f.parentGroupId) {
      params.push(f.parentGroupId);
      where.push(`g.parent_group_id = $${params.length}`);
      variant += 'p';
    }
    if (f.viewer) {
      if (f.viewer.userId) {
        params.push(f.viewer.userId);
        where.push(`(g.visibility <> 'secret' OR EXISTS (
          SELECT 1 FROM members m WHERE m.group_id = g.id AND m.user_id = $${params.length} AND m.status = 'active'))`);
        variant += 'v';
      } else {
        where.push(`g.visibility <> 'secret'`);
        variant += 's';
      }
    }
    if (f.after) {
      params.push(f.after.createdAt, f.after.id);
      where.push(`(g.created_at, g.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
      variant += 'a';
    }
    const rows = await preparedRows<{ r: string }>(
      ds,
      `groups_json_page_${variant}${f.limit + 1}`,
      // The limit written in (an integer, see parsePageLimit): as a parameter, PostgreSQL prices the
      // generic plan as if a tenth of the game's groups were read, so it planned every call afresh,
      // which cost more than reading the page (PostgreSQL's CPU a request: 0.81 ms, 0.39 without).
      groupPageSql({ from: `FROM groups g WHERE ${where.join(' AND ')}`, order: 'g.created_at DESC, g.id DESC', limit: String(f.limit + 1) }),
      params,
    );
    return rows.map(({ r }) => unpack(r));
  }

  async update(m: EntityManager, id: string, changes: GroupChanges): Promise<GroupRow> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    for (const [key, value] of Object.entries(changes) as [keyof GroupChanges, unknown][]) {
      params.push(key === 'metadata' ? JSON.stringify(value) : value);
      sets.push(`${COLUMN[key]} = $${params.length}`);
    }
    const [row] = await sqlRows<GroupRow>(
      m,
      `UPDATE groups g SET ${sets.join(', ')}, updated_at = now() WHERE g.id = $1 RETURNING ${GROUP_COLUMNS}`,
      params,
    );
    return row;
  }

  async setSoftDeleted(m: EntityManager, id: string, at: 'now' | null): Promise<GroupRow> {
    const [row] = await sqlRows<GroupRow>(
      m,
      `UPDATE groups g SET soft_deleted_at = ${at === 'now' ? 'now()' : 'NULL'} WHERE g.id = $1 RETURNING ${GROUP_COLUMNS}`,
      [id],
    );
    return row;
  }

  async setParent(m: EntityManager, id: string, parentGroupId: string | null): Promise<GroupRow> {
    const [row] = await sqlRows<GroupRow>(
      m,
      `UPDATE groups g SET parent_group_id = $2, updated_at = now() WHERE g.id = $1 RETURNING ${GROUP_COLUMNS}`,
      [id, parentGroupId],
    );
    return row;
  }

  /**
   * The ancestors of a group, nearest first, at most `depth` of them (SPEC §1.5: walk depth 100).
   * One recursive query; stops early on a cycle already present in the data.
   */
  async ancestors(m: EntityManager, id: string, depth: number): Promise<string[]> {
    const rows = await sqlRows<{ id: string }>(
      m,
      `WITH RECURSIVE chain(id, depth, path) AS (
         SELECT g.parent_group_id, 1, ARRAY[g.id] FROM groups g WHERE g.id = $1 AND g.parent_group_id IS NOT NULL
         UNION ALL
         SELECT g.parent_group_id, c.depth + 1, c.path || g.id
         FROM chain c JOIN groups g ON g.id = c.id
         WHERE g.parent_group_id IS NOT NULL AND c.depth < $2 AND NOT g.id = ANY(c.path)
       )
       SELECT id FROM chain ORDER BY depth`,
      [id, depth],
    );
    return rows.map((r) => r.id);
  }

  /** Removes the group and, by cascade, its members, invitations and audit history. */
  async hardDelete(m: EntityManager, id: string): Promise<void> {
    await m.query(withoutHistory('DELETE FROM groups WHERE id = $1 RETURNING id'), [id]);
  }

  /** Removes groups soft-deleted before the cutoff; returns how many. */
  async purgeSoftDeleted(m: EntityManager, olderThanDays: number): Promise<number> {
    const rows = await sqlRows(m, withoutHistory(`DELETE FROM groups WHERE soft_deleted_at < now() - make_interval(days => $1) RETURNING id`), [
      olderThanDays,
    ]);
    return rows.length;
  }
}

/**
 * `deleteGroups` (a DELETE of groups returning their ids), and their audit history out of the
 * journal: a row whose event is kept loses its audit part and stays in the feed, any other goes. (A
 * row with an audit part that has lost its event has its audit part still: journal_group_audit finds
 * both kinds.)
 */
function withoutHistory(deleteGroups: string): string {
  return `WITH gone AS (${deleteGroups}),
    stripped AS (
      UPDATE journal j SET action = NULL, actor_user_id = NULL, actor_pseudonym = NULL, target_id = NULL, payload = NULL
      WHERE j.group_id IN (SELECT id FROM gone) AND j.action IS NOT NULL AND j.body IS NOT NULL
    ), dropped AS (
      DELETE FROM journal j WHERE j.group_id IN (SELECT id FROM gone) AND j.action IS NOT NULL AND j.body IS NULL
    )
    SELECT 1 FROM gone`;
}
