import { createHash } from 'node:crypto';
import { ApiError } from '../common/errors/api-error';
import { instant, integer, oneOf, text, uuid } from '../common/pagination/cursor-fields';
import { cursorShape } from '../common/pagination/cursor-shape';
import { parsePageLimit } from '../common/pagination/page-limit';
import type { SearchGroupsQueryDto } from './dto/group-search.dto';
import { MAX_TAGS, TAG_PATTERN } from './group-row';
import { RANKS, SEARCH_SORTS, type FoundGroup, type GroupSearchQuery, type SearchAfter, type SearchSort, type SearchWord } from './group-search.repository';

/** EXTENSIONS X5: limit 1-100, default 20 (a fixed cap, like the suggestions'). */
export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 100;
/** Words shorter than this match only as written: two or three letters give trigrams too few to tell a typo from another word. */
export const FUZZY_MIN_LENGTH = 4;
/** The most member count a filter may name (a count is a Postgres integer). */
const MAX_COUNT = 2_147_483_647;

const bad = (message: string) => ApiError.badRequest(message);

/** A word: letters (with their marks) and digits; anything else separates words. */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

function count(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > MAX_COUNT) throw bad(`${name} must be an integer from 0 to ${MAX_COUNT}`);
  return Number(raw);
}

/** The search of a game's groups that a query asks for, without its position (see withCursor). */
export type ParsedSearch = Omit<GroupSearchQuery, 'after'> & { cursor?: string };

/** Checks every parameter of GET /v1/groups/search; a bad one is 400 naming it. */
export function parseSearchQuery(gameId: string, dto: SearchGroupsQueryDto): ParsedSearch {
  let words: SearchWord[] = [];
  if (dto.q !== undefined) {
    const length = [...dto.q].length;
    if (length < 1 || length > 120) throw bad('q must be a string of 1-120 characters');
    words = (dto.q.match(WORD) ?? []).map((text) => ({ text, fuzzy: [...text].length >= FUZZY_MIN_LENGTH }));
    if (!words.length) throw bad('q must hold at least one letter or digit');
  }
  if (dto.kind !== undefined && (dto.kind.length < 1 || dto.kind.length > 64)) throw bad('kind must be a string of 1-64 characters');
  let tags: string[] | undefined;
  if (dto.tags !== undefined) {
    const list = dto.tags.split(',');
    if (list.length > MAX_TAGS || !list.every((t) => TAG_PATTERN.test(t))) {
      throw bad(`tags must be a comma-separated list of at most ${MAX_TAGS} tags, each 1-32 characters of a-z, 0-9, ":", "_" and "-"`);
    }
    tags = [...new Set(list)].sort();
  }
  if (dto.open !== undefined && dto.open !== 'true') throw bad('open must be true, or left out');
  const membersAtLeast = count(dto.membersAtLeast, 'membersAtLeast');
  const membersAtMost = count(dto.membersAtMost, 'membersAtMost');
  if (membersAtLeast !== undefined && membersAtMost !== undefined && membersAtLeast > membersAtMost) {
    throw bad('membersAtLeast must not be greater than membersAtMost');
  }
  if (dto.sort !== undefined && !(SEARCH_SORTS as readonly string[]).includes(dto.sort)) throw bad(`sort must be one of ${SEARCH_SORTS.join(', ')}`);
  const sort: SearchSort = dto.sort ?? (words.length ? 'relevance' : 'members');
  if (sort === 'relevance' && !words.length) throw bad('sort=relevance needs q');
  const limit = parsePageLimit(dto.limit, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT);
  return {
    gameId,
    words,
    ...(dto.kind !== undefined && { kind: dto.kind }),
    ...(tags && { tags }),
    ...(dto.open === 'true' && { open: true }),
    ...(membersAtLeast !== undefined && { membersAtLeast }),
    ...(membersAtMost !== undefined && { membersAtMost }),
    sort,
    limit,
    ...(dto.cursor !== undefined && { cursor: dto.cursor }),
  };
}

/**
 * The cursor's scope: the game and everything that decides the order and the set (q, filters,
 * sort; not limit), hashed, so that a cursor of another search is refused with 400.
 */
export function searchScope(s: ParsedSearch): string {
  const what = JSON.stringify([s.words.map((w) => w.text), s.kind ?? null, s.tags ?? null, s.open ?? false, s.membersAtLeast ?? null, s.membersAtMost ?? null, s.sort]);
  return `search:${s.gameId}:${createHash('sha256').update(what).digest('base64url').slice(0, 22)}`;
}

/**
 * The longest name key read back: search_name is a name of at most 120 characters lowercased and
 * unaccented, and unaccent may spell one character as several (a ligature, a symbol).
 */
const NAME_KEY_MAX = 1000;

/** Each sort's cursor: its key in the order, then the group's id. */
const SEARCH_CURSORS = {
  relevance: cursorShape(oneOf(RANKS), uuid),
  members: cursorShape(integer({ min: 0, max: MAX_COUNT }), uuid),
  newest: cursorShape(instant, uuid),
  name: cursorShape(text(NAME_KEY_MAX), uuid),
};

/** The search with its position, decoded from the cursor of the same search. */
export function withCursor(s: ParsedSearch): GroupSearchQuery {
  const { cursor, ...query } = s;
  if (cursor === undefined) return query;
  return { ...query, after: searchAfter(s.sort, cursor, searchScope(s)) };
}

function searchAfter(sort: SearchSort, cursor: string, scope: string): SearchAfter {
  switch (sort) {
    case 'relevance': {
      const [rank, id] = SEARCH_CURSORS.relevance.decode(cursor, scope);
      return { sort, rank, id };
    }
    case 'members': {
      const [count, id] = SEARCH_CURSORS.members.decode(cursor, scope);
      return { sort, count, id };
    }
    case 'newest': {
      const [at, id] = SEARCH_CURSORS.newest.decode(cursor, scope);
      return { sort, at, id };
    }
    case 'name': {
      const [name, id] = SEARCH_CURSORS.name.decode(cursor, scope);
      return { sort, name, id };
    }
  }
}

/** The cursor after a found group: its key in the search's order. */
export function cursorAfter(s: ParsedSearch, g: FoundGroup): string {
  const scope = searchScope(s);
  switch (s.sort) {
    case 'relevance':
      return SEARCH_CURSORS.relevance.encode(scope, [g.rank ?? 0, g.id]);
    case 'members':
      return SEARCH_CURSORS.members.encode(scope, [g.foldedCount, g.id]);
    case 'newest':
      return SEARCH_CURSORS.newest.encode(scope, [g.createdAt, g.id]);
    case 'name':
      return SEARCH_CURSORS.name.encode(scope, [g.searchName, g.id]);
  }
}
