import { ApiError } from '../common/errors/api-error';
import { cursorAfter, parseSearchQuery, searchScope, withCursor } from './group-search-query';
import type { FoundGroup } from './group-search.repository';

const GAME = '01900000-0000-7000-8000-000000000001';
const ID = '01900000-0000-7000-8000-0000000000aa';

const found = (over: Partial<FoundGroup> = {}) =>
  ({ id: ID, searchName: 'knights of dawn', foldedCount: 7, rank: 1, createdAt: new Date('2026-01-02T03:04:05.678Z'), ...over }) as FoundGroup;

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('parseSearchQuery', () => {
  it('sorts by relevance with q and by members without it; limit 20', () => {
    expect(parseSearchQuery(GAME, { q: 'Knights' })).toMatchObject({ sort: 'relevance', limit: 20, words: [{ text: 'Knights', fuzzy: true }] });
    expect(parseSearchQuery(GAME, {})).toMatchObject({ sort: 'members', limit: 20, words: [] });
  });

  it('splits q into words of letters and digits; short words match only as written', () => {
    expect(parseSearchQuery(GAME, { q: "  K'Thar, of-the  Dawn2 " }).words).toEqual([
      { text: 'K', fuzzy: false },
      { text: 'Thar', fuzzy: true },
      { text: 'of', fuzzy: false },
      { text: 'the', fuzzy: false },
      { text: 'Dawn2', fuzzy: true },
    ]);
  });

  it('keeps tags sorted and distinct, so the order they are given in does not change the search', () => {
    const a = parseSearchQuery(GAME, { tags: 'region:eu,lang:en,lang:en' });
    const b = parseSearchQuery(GAME, { tags: 'lang:en,region:eu' });
    expect(a.tags).toEqual(['lang:en', 'region:eu']);
    expect(searchScope(a)).toBe(searchScope(b));
  });

  it.each([
    [{ q: '' }, 'q'],
    [{ q: '…' }, 'q'],
    [{ sort: 'relevance' as const }, 'relevance'],
    [{ membersAtLeast: '3', membersAtMost: '2' }, 'membersAtLeast'],
    [{ membersAtLeast: '99999999999' }, 'membersAtLeast'],
    [{ open: 'yes' }, 'open'],
    [{ tags: 'a,,b' }, 'tags'],
    [{ limit: '101' }, 'limit'],
  ])('refuses %j naming %s', (dto, name) => {
    const err = refusal(() => parseSearchQuery(GAME, dto));
    expect(err).toMatchObject({ code: 'bad_request', status: 400 });
    expect(err.message).toContain(name);
  });
});

describe('search cursors', () => {
  it.each([
    [{ q: 'knights' }, { sort: 'relevance', rank: 1, id: ID }],
    [{}, { sort: 'members', count: 7, id: ID }],
    [{ sort: 'newest' as const }, { sort: 'newest', at: '2026-01-02T03:04:05.678Z', id: ID }],
    [{ sort: 'name' as const, tags: 'pvp' }, { sort: 'name', name: 'knights of dawn', id: ID }],
  ])('the cursor after a row of %j resumes after that row', (dto, after) => {
    const parsed = parseSearchQuery(GAME, dto);
    const cursor = cursorAfter(parsed, found());
    expect(withCursor(parseSearchQuery(GAME, { ...dto, cursor, limit: '5' })).after).toEqual(after);
  });

  it.each([
    ['another q', { q: 'dawn' }],
    ['another sort', { q: 'knights', sort: 'name' as const }],
    ['another filter', { q: 'knights', open: 'true' }],
  ])('refuses a cursor of another search: %s', (_what, dto) => {
    const cursor = cursorAfter(parseSearchQuery(GAME, { q: 'knights' }), found());
    expect(refusal(() => withCursor(parseSearchQuery(GAME, { ...dto, cursor })))).toMatchObject({ code: 'bad_request' });
  });

  it('refuses the same search in another game', () => {
    const cursor = cursorAfter(parseSearchQuery(GAME, {}), found());
    const other = '01900000-0000-7000-8000-0000000000bb';
    expect(refusal(() => withCursor(parseSearchQuery(other, { cursor })))).toMatchObject({ code: 'bad_request' });
  });
});
