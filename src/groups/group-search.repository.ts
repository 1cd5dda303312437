import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { sqlRows } from '../db/sql';
import { GROUP_COLUMNS, type GroupRow } from './group-row';

export const SEARCH_SORTS = ['relevance', 'members', 'newest', 'name'] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

/**
 * Ranks of the relevance sort (EXTENSIONS X5), best first: the name starts with the query's first
 * word (and holds the others), holds every word, or holds every word up to spelling distance.
 */
export const RANKS = [0, 1, 2] as const;
export type Rank = (typeof RANKS)[number];

/** A word of `q` as the client wrote it; the database normalizes it (svc_search_text). */
export interface SearchWord {
  text: string;
  /** Also matched by spelling distance: words too short for trigrams to tell a typo from another word are not. */
  fuzzy: boolean;
}

/** Where the previous page ended, in the sort's own key. */
export type SearchAfter =
  | { sort: 'relevance'; rank: Rank; id: string }
  | { sort: 'members'; count: number; id: string }
  | { sort: 'newest'; at: string; id: string }
  | { sort: 'name'; name: string; id: string };

export interface GroupSearchQuery {
  gameId: string;
  words: SearchWord[];
  kind?: string;
  tags?: string[];
  open?: boolean;
  membersAtLeast?: number;
  membersAtMost?: number;
  sort: SearchSort;
  after?: SearchAfter;
  limit: number;
}

/** A found group, with the keys of its place in the order (for the next page's cursor). */
export type FoundGroup = GroupRow & { searchName: string; foldedCount: number; rank: Rank | null };

/**
 * The search's one statement (EXTENSIONS X5). Every index it relies on is in migration
 * GroupSearch, partial on findable groups (live, not secret) and led by game_id, so each query
 * reads only the calling game's findable groups, and of those only what the planner's cheapest
 * path needs: a walk of the sort's index filtered row by row when matches are common, or the
 * matches from a GIN index (trigrams, tags) sorted when they are few.
 *
 * The open and member-count filters and the members sort read the folded counter
 * (groups.active_member_count, at most about a second behind; X5 allows 5 s), which an index can
 * hold; memberCount in the answer is exact (memberCountSql), computed for the page's rows only.
 */
@Injectable()
export class GroupSearchRepository {
  async search(m: EntityManager, s: GroupSearchQuery): Promise<FoundGroup[]> {
    const params: unknown[] = [s.gameId, s.limit + 1];
    const p = (value: unknown) => `$${params.push(value)}`;
    // Spelled exactly as the partial indexes' predicate, so the planner can use them.
    const where = [`g.game_id = $1`, `g.soft_deleted_at IS NULL`, `g.visibility <> 'secret'`];
    if (s.kind !== undefined) where.push(`g.kind = ${p(s.kind)}`);
    if (s.tags?.length) where.push(`g.tags @> ${p(s.tags)}::text[]`);
    if (s.open) where.push(`g.visibility = 'public' AND (g.max_members IS NULL OR g.active_member_count < g.max_members)`);
    if (s.membersAtLeast !== undefined) where.push(`g.active_member_count >= ${p(s.membersAtLeast)}`);
    if (s.membersAtMost !== undefined) where.push(`g.active_member_count <= ${p(s.membersAtMost)}`);

    const words = s.words.map((w) => ({ ...w, ref: p(w.text) }));
    const contains = words.map((w) => `g.search_name LIKE svc_search_contains(${w.ref})`);
    // A word found as written, or (a long enough one) within spelling distance of a word of the name.
    const near = words.map((w, i) => (w.fuzzy ? `(${contains[i]} OR g.search_name %> svc_search_text(${w.ref}))` : contains[i]));

    let page: string;
    if (s.sort === 'relevance') {
      if (!words.length) throw new Error('the relevance sort needs words');
      const prefix = `g.search_name LIKE svc_search_prefix(${words[0].ref})`;
      const tiers: Record<Rank, string[]> = {
        0: [prefix, ...contains.slice(1)],
        1: [...contains, `NOT (${prefix})`],
        2: [...near, `NOT (${contains.join(' AND ')})`],
      };
      const after = s.after?.sort === 'relevance' ? s.after : undefined;
      // One CTE a rank, each in id order (groups_search_id, or its matches sorted): a rank is read
      // only while the better ones have not filled the page (a one-time filter on their counts),
      // so a common word never pays for the spelling-distance scan.
      const ctes: string[] = [];
      for (const rank of RANKS) {
        if (after && rank < after.rank) continue;
        const cond = [...where, ...tiers[rank]];
        if (after && rank === after.rank) cond.push(`g.id > ${p(after.id)}::uuid`);
        const before = ctes.map((_, i) => `(SELECT count(*) FROM r${i})`);
        if (before.length) cond.unshift(`${before.join(' + ')} < $2`);
        ctes.push(`SELECT g.id, ${rank} AS rank FROM groups g WHERE ${cond.join(' AND ')} ORDER BY g.id LIMIT $2`);
      }
      page = `${ctes.map((sql, i) => `r${i} AS MATERIALIZED (${sql})`).join(',\n')},
        page AS (${ctes.map((_, i) => `SELECT id, rank FROM r${i}`).join(' UNION ALL ')} ORDER BY rank, id LIMIT $2)`;
    } else {
      const [order, keyset] = ORDER[s.sort];
      const cond = [...where, ...near];
      if (s.after && s.after.sort === s.sort) cond.push(keyset(s.after, p));
      page = `page AS (SELECT g.id, NULL::int AS rank FROM groups g WHERE ${cond.join(' AND ')} ORDER BY ${order} LIMIT $2)`;
    }
    const [order] = s.sort === 'relevance' ? ['p.rank, g.id'] : ORDER[s.sort];
    return sqlRows<FoundGroup>(
      m,
      `WITH ${page}
       SELECT ${GROUP_COLUMNS}, g.search_name AS "searchName", g.active_member_count AS "foldedCount", p.rank
       FROM page p JOIN groups g ON g.id = p.id
       ORDER BY ${order}`,
      params,
    );
  }
}

type Keyset = (after: SearchAfter, p: (value: unknown) => string) => string;

/** Each sort's ORDER BY (its index's order) and the rows after a cursor; ties by id, in the sort's direction. */
const ORDER: Record<Exclude<SearchSort, 'relevance'>, [string, Keyset]> = {
  members: ['g.active_member_count DESC, g.id DESC', (a, p) => a.sort === 'members' ? `(g.active_member_count, g.id) < (${p(a.count)}::int, ${p(a.id)}::uuid)` : 'false'],
  newest: ['g.created_at DESC, g.id DESC', (a, p) => a.sort === 'newest' ? `(g.created_at, g.id) < (${p(a.at)}::timestamptz, ${p(a.id)}::uuid)` : 'false'],
  name: ['g.search_name, g.id', (a, p) => a.sort === 'name' ? `(g.search_name, g.id) > (${p(a.name)}::text, ${p(a.id)}::uuid)` : 'false'],
};
