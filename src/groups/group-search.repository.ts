import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { sqlRows } from '../db/sql';
import { PAGE_GROUP_COLUMNS, unfoldedDeltasSql, type GroupRow } from './group-row';

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
    let walkRef: string | undefined;
    const walk = () => (walkRef ??= p(WALK_PER_ROW * (s.limit + 1)));
    // Spelled exactly as the partial indexes' predicate, so the planner can use them.
    const scan = [`g.game_id = $1`, `g.soft_deleted_at IS NULL`, `g.visibility <> 'secret'`];
    // Checked on each row the walk reads, beside the index's own predicate: a hidden group is not found.
    scan.push(NOT_HIDDEN_BY_REPORTS);
    const words = s.words;
    const filters: string[] = [];
    if (s.kind !== undefined) filters.push(`g.kind = ${p(s.kind)}`);
    if (s.tags?.length) filters.push(`g.tags @> ${p(s.tags)}::text[]`);
    if (s.open) filters.push(`g.visibility = 'public' AND (g.max_members IS NULL OR g.active_member_count < g.max_members)`);
    if (s.membersAtLeast !== undefined) filters.push(`g.active_member_count >= ${p(s.membersAtLeast)}`);
    if (s.membersAtMost !== undefined) filters.push(`g.active_member_count <= ${p(s.membersAtMost)}`);

    // The words as the names are stored (svc_search_text: lowercase, unaccented), and for each
    // long enough word the words of the game's names within spelling distance of it, fetched first
    // so that the statement below holds them as plain values: the planner estimates its
    // conditions from the column's statistics, and no walked row calls a function.
    const normalized = words.length ? await this.normalize(m, s.gameId, words) : [];
    // Parameters are added when a condition is first spelt: one left unused (a rank the cursor
    // skips) would have no type, which Postgres refuses.
    const lazy = <T>(make: () => T) => {
      let made: T | undefined;
      return () => (made ??= make());
    };
    const contains = lazy(() => normalized.map(({ text }) => `g.search_name LIKE ${p(`%${escapeLike(text)}%`)}`));
    // A word found as written, or a word of the game's names close to it.
    const near = lazy(() =>
      normalized.map(({ near: close }, i) =>
        close.length ? `(${contains()[i]} OR g.search_name LIKE ANY (${p(close.map((w) => `%${escapeLike(w)}%`))}::text[]))` : contains()[i],
      ),
    );

    const ctes: string[] = [];
    const branches: string[] = [];
    if (s.sort === 'relevance') {
      if (!words.length) throw new Error('the relevance sort needs words');
      // The range lets the name index find the names starting with the word (the trigram index
      // cannot anchor a match at the start); LIKE keeps it exact. In "C" order, every name that
      // starts with w lies between w and w followed by the last code point.
      const first = normalized[0].text;
      const prefix = lazy(() => `g.search_name >= ${p(first)} AND g.search_name < ${p(`${first}\u{10FFFF}`)} AND g.search_name LIKE ${p(`${escapeLike(first)}%`)}`);
      const tiers: Record<Rank, () => string[]> = {
        0: () => [prefix(), ...contains().slice(1)],
        1: () => [...contains(), `NOT (${prefix()})`],
        2: () => [...near(), `NOT (${contains().join(' AND ')})`],
      };
      const after = s.after?.sort === 'relevance' ? s.after : undefined;
      // A rank is read only while the better ones have not filled the page (a one-time filter on
      // their counts), so a common word never pays for the spelling-distance scan.
      for (const rank of RANKS) {
        if (after && rank < after.rank) continue;
        const keyset = after && rank === after.rank ? [`g.id > ${p(after.id)}::uuid`] : [];
        const gate = branches.length ? `${branches.map((b) => `(SELECT count(*) FROM ${b})`).join(' + ')} < $2` : undefined;
        branches.push(branch(ctes, `r${rank}`, { scan: [...scan, ...keyset], match: [...filters, ...tiers[rank]()], order: 'g.id', columns: `${rank} AS rank`, gate }, walk));
      }
    } else {
      const [order, keyset] = ORDER[s.sort];
      const after = s.after && s.after.sort === s.sort ? [keyset(s.after, p)] : [];
      branches.push(branch(ctes, 'r', { scan: [...scan, ...after], match: [...filters, ...near()], order, columns: 'NULL::int AS rank' }, walk));
    }
    const [order] = s.sort === 'relevance' ? ['p.rank, g.id'] : ORDER[s.sort];
    return sqlRows<FoundGroup>(
      m,
      `WITH ${ctes.join(',\n')},
       page AS (${branches.map((b) => `SELECT id, rank FROM ${b}`).join(' UNION ALL ')} ORDER BY rank, id LIMIT $2),
       unfolded AS (${unfoldedDeltasSql('ARRAY(SELECT page.id FROM page)')})
       SELECT ${PAGE_GROUP_COLUMNS}, g.search_name AS "searchName", g.active_member_count AS "foldedCount", p.rank
       FROM page p JOIN groups g ON g.id = p.id LEFT JOIN unfolded ON unfolded.group_id = g.id
       ORDER BY ${order}`,
      params,
    );
  }

  /**
   * Each word as svc_search_text (migration GroupSearch) writes names, one definition of a
   * match; and for a fuzzy word, the closest words of the game's names (pg_trgm's word
   * similarity of at least SEARCH_WORD_SIMILARITY), at most NEAR_WORDS.
   *
   * The indexed operator (`%>`) compares with pg_trgm.word_similarity_threshold, whose default
   * (0.6) misses a swapped pair of letters in a 7-letter word ("knigths"). The statement sets it
   * for its own transaction only (set_config's is_local), in a column of the words' subquery, which
   * a volatile column keeps from being merged into the outer query: each word's row sets it before
   * its candidates are read. No session setting is left behind, so a pooler between the service and
   * PostgreSQL (which may hand the next statement another server connection) changes nothing.
   */
  private async normalize(m: EntityManager, gameId: string, words: SearchWord[]): Promise<{ text: string; near: string[] }[]> {
    return sqlRows<{ text: string; near: string[] }>(
      m,
      `SELECT x.t AS text, CASE WHEN x.fuzzy THEN ARRAY(
                SELECT d.word FROM group_search_words d WHERE d.game_id = $3 AND d.word %> x.t AND d.word <> x.t
                ORDER BY x.t <<-> d.word, d.word LIMIT ${NEAR_WORDS}) ELSE '{}' END AS near
       FROM (SELECT svc_search_text(u.w) AS t, u.fuzzy, u.n,
                    set_config('pg_trgm.word_similarity_threshold', $4, true) AS threshold
             FROM unnest($1::text[], $2::boolean[]) WITH ORDINALITY AS u(w, fuzzy, n)) x
       WHERE x.threshold IS NOT NULL
       ORDER BY x.n`,
      [words.map((w) => w.text), words.map((w) => w.fuzzy), gameId, String(SEARCH_WORD_SIMILARITY)],
    );
  }
}

/**
 * A group is left out while as many distinct reporters as the game's
 * `moderation.hideGroupAtReporters` hold open reports on it (EXTENSIONS X10): one probe of the
 * report tally's primary key per row looked at. The threshold is read once per statement (an
 * uncorrelated subquery); unset, the OR stops at its first arm and no row probes anything.
 */
const HIDE_AT = `(SELECT (gm.config #>> '{moderation,hideGroupAtReporters}')::int FROM games gm WHERE gm.id = $1)`;
const NOT_HIDDEN_BY_REPORTS = `(${HIDE_AT} IS NULL OR NOT EXISTS (
  SELECT 1 FROM report_subjects rs
  WHERE rs.game_id = $1 AND rs.subject_type = 'group' AND rs.subject_key = svc_external_key(g.id::text) AND rs.reporters >= ${HIDE_AT}))`;

/** The word similarity (pg_trgm) at which a word of a search matches a word of a name by spelling distance. */
export const SEARCH_WORD_SIMILARITY = 0.5;

/** The most words of a game's names a misspelt word stands for. */
export const NEAR_WORDS = 20;

/** Text matched literally by LIKE: its wildcards and escape character escaped. */
const escapeLike = (t: string) => t.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Rows walked in the order's index, per row of the page (limit + 1), before the search turns to
 * the matches' own index: a match found in 1 of 200 groups or more fills the page within the walk.
 */
export const WALK_PER_ROW = 200;

/**
 * The CTEs of one ordered read of `limit + 1` matches (scan: what the order's index walks; match:
 * the conditions a row must meet), and the name of the one that holds them. The planner's guess
 * of how many names hold a word (LIKE '%word%') is rough, so the choice between walking the
 * order's index and sorting the matches of the trigram index is made here, by trying: first a
 * walk of at most WALK_PER_ROW * (limit + 1) rows in the order's index; when it holds a full
 * page, those are the first matches (any other lies further along); else the matches come from
 * the cheapest index the planner sees, sorted (they are few: the walk found less than a page).
 * Either way no query reads every group of a game, and a rare word costs only its own matches.
 */
function branch(
  ctes: string[],
  name: string,
  b: { scan: string[]; match: string[]; order: string; columns: string; gate?: string },
  walk: () => string,
): string {
  const gate = b.gate ? [b.gate] : [];
  if (!b.match.length) {
    const read = `SELECT g.id, ${b.columns} FROM groups g WHERE ${[...b.scan, ...b.match].join(' AND ')} ORDER BY ${b.order} LIMIT $2`;
    ctes.push(`${name} AS MATERIALIZED (${gate.length ? `SELECT * FROM (${read}) i WHERE ${gate.join(' AND ')}` : read})`);
    return name;
  }
  ctes.push(
    `${name}w AS MATERIALIZED (SELECT g.id, ${b.columns} FROM (
       SELECT ${WALKED} FROM groups g WHERE ${[...gate, ...b.scan].join(' AND ')} ORDER BY ${b.order} LIMIT ${walk()}
       ) g WHERE ${b.match.join(' AND ')} ORDER BY ${b.order} LIMIT $2)`,
    // The gate stays outside the LIMIT sub-select (no condition is pushed into one): a one-time
    // filter above the index read, which then never starts (nor a parallel plan its workers).
    `${name} AS MATERIALIZED (
       SELECT id, rank FROM ${name}w WHERE (SELECT count(*) FROM ${name}w) = $2
       UNION ALL
       SELECT * FROM (SELECT g.id, ${b.columns} FROM groups g WHERE ${[...b.scan, ...b.match].join(' AND ')} ORDER BY ${b.order} LIMIT $2) i
       WHERE ${[...gate, `(SELECT count(*) FROM ${name}w) < $2`].join(' AND ')})`,
  );
  return name;
}

/** What the conditions and orders of a search read of a walked row. */
const WALKED = 'g.id, g.search_name, g.kind, g.tags, g.visibility, g.max_members, g.active_member_count, g.created_at';

type Keyset = (after: SearchAfter, p: (value: unknown) => string) => string;

/** Each sort's ORDER BY (its index's order) and the rows after a cursor; ties by id, in the sort's direction. */
const ORDER: Record<Exclude<SearchSort, 'relevance'>, [string, Keyset]> = {
  members: ['g.active_member_count DESC, g.id DESC', (a, p) => a.sort === 'members' ? `(g.active_member_count, g.id) < (${p(a.count)}::int, ${p(a.id)}::uuid)` : 'false'],
  newest: ['g.created_at DESC, g.id DESC', (a, p) => a.sort === 'newest' ? `(g.created_at, g.id) < (${p(a.at)}::timestamptz, ${p(a.id)}::uuid)` : 'false'],
  name: ['g.search_name, g.id', (a, p) => a.sort === 'name' ? `(g.search_name, g.id) > (${p(a.name)}::text, ${p(a.id)}::uuid)` : 'false'],
};
