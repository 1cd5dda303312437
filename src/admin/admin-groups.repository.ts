import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { sqlRows } from '../db/sql';
import { memberCountSql, type Visibility } from '../groups/group-row';
import type { MemberStatus } from '../members/member-row';
import {
  ADMIN_GROUP_COLUMNS,
  ADMIN_MEMBER_COLUMNS,
  type AdminGroupRow,
  type AdminMemberRow,
  type CountedPage,
} from './admin-rows';
import type { AdminGroupSort, SortOrder } from './dto/admin-groups.dto';

export interface AdminGroupFilter {
  gameId: string;
  /** An ILIKE pattern on the name. */
  namePattern?: string;
  kind?: string;
  visibility?: Visibility;
  sort: AdminGroupSort;
  order: SortOrder;
  limit: number;
  offset: number;
  /** The page is read only when the total is at most this (the memberCount sort limit). */
  maxTotal?: number;
}

export interface AdminMemberFilter {
  groupId: string;
  status?: MemberStatus;
  /** An ILIKE pattern on the external user id. */
  userPattern?: string;
  limit: number;
  offset: number;
}

/** The sort keys of the admin groups list; ties always fall to id ascending (SPEC §4). */
const GROUP_ORDER: Record<AdminGroupSort, (dir: string) => string> = {
  createdAt: (dir) => `g.created_at ${dir}, g.id ASC`,
  // Case-insensitive, then the exact text; byte order, so the order never depends on the database locale.
  name: (dir) => `lower(g.name) COLLATE "C" ${dir}, g.name COLLATE "C" ${dir}, g.id ASC`,
  memberCount: (dir) => `${memberCountSql('g')} ${dir}, g.id ASC`,
};

type Counted<R> = { total: number } & ({ id: string } & R | { id: null });

/** Splits the `counted LEFT JOIN LATERAL page` shape: one row with a null id when the page is empty. */
function toCounted<R extends { id: string }>(rows: Counted<R>[]): CountedPage<R> {
  return { total: rows[0]?.total ?? 0, rows: rows.filter((r) => r.id !== null).map(({ total: _, ...r }) => r as unknown as R) };
}

/** The offset-based lists of the admin surface: one statement gives the total and the page. */
@Injectable()
export class AdminGroupsRepository {
  /** Live groups of a game, filtered and sorted, on groups_game_order (the game's live groups). */
  async listGroups(m: EntityManager, f: AdminGroupFilter): Promise<CountedPage<AdminGroupRow>> {
    const params: unknown[] = [f.gameId, f.limit, f.offset];
    const add = (value: unknown) => `$${params.push(value)}`;
    const where = ['g.game_id = $1', 'g.soft_deleted_at IS NULL'];
    if (f.namePattern !== undefined) where.push(`g.name ILIKE ${add(f.namePattern)}`);
    if (f.kind !== undefined) where.push(`g.kind = ${add(f.kind)}`);
    if (f.visibility !== undefined) where.push(`g.visibility = ${add(f.visibility)}`);
    const guard = f.maxTotal === undefined ? '' : `WHERE c.total <= ${add(f.maxTotal)}`;
    const dir = f.order === 'asc' ? 'ASC' : 'DESC';
    const rows = await sqlRows<Counted<AdminGroupRow>>(
      m,
      `WITH matching AS (SELECT g.* FROM groups g WHERE ${where.join(' AND ')}),
            counted AS (SELECT count(*)::int AS total FROM matching)
       SELECT c.total, p.* FROM counted c
       LEFT JOIN LATERAL (
         SELECT ${ADMIN_GROUP_COLUMNS} FROM matching g ${guard}
         ORDER BY ${GROUP_ORDER[f.sort](dir)} LIMIT $2 OFFSET $3
       ) p ON true`,
      params,
    );
    return toCounted(rows);
  }

  /** Members of one group, joinedAt descending then id ascending, on members_group_status_order. */
  async listMembers(m: EntityManager, f: AdminMemberFilter): Promise<CountedPage<AdminMemberRow>> {
    const params: unknown[] = [f.groupId, f.limit, f.offset];
    const add = (value: unknown) => `$${params.push(value)}`;
    const where = ['m.group_id = $1'];
    if (f.status !== undefined) where.push(`m.status = ${add(f.status)}`);
    if (f.userPattern !== undefined) where.push(`m.external_user_id ILIKE ${add(f.userPattern)}`);
    const rows = await sqlRows<Counted<AdminMemberRow>>(
      m,
      `WITH matching AS (SELECT m.* FROM members m WHERE ${where.join(' AND ')}),
            counted AS (SELECT count(*)::int AS total FROM matching)
       SELECT c.total, p.* FROM counted c
       LEFT JOIN LATERAL (
         SELECT ${ADMIN_MEMBER_COLUMNS} FROM matching m ORDER BY m.joined_at DESC, m.id ASC LIMIT $2 OFFSET $3
       ) p ON true`,
      params,
    );
    return toCounted(rows);
  }
}
