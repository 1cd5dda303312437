import type { GameConfigService } from '../game-config/game-config.service';
import type { FriendsContext } from '../game-config/friends-context';
import { NamePolicies, refuseNames } from './name-policies';
import { compileNameMatcher } from './name-matcher';

/** The config cache stands in as a game's current names object: what the real cache hands out until a change. */
function policiesOver(current: { names: { blocked: string[]; reserved: string[] } }) {
  const configs = {
    forFriends: async () => ({ config: { moderation: { names: current.names } } }) as unknown as FriendsContext,
  } as unknown as GameConfigService;
  return new NamePolicies(configs);
}

describe('NamePolicies', () => {
  it('compiles a policy once, again only when its lists change', async () => {
    const current = { names: { blocked: ['scum'], reserved: ['admin'] } };
    const policies = policiesOver(current);
    const first = await policies.matcherOf('g');
    expect(await policies.matcherOf('g')).toBe(first);
    // The config cache's expiry hands out a new object with the same lists: nothing to compile.
    current.names = { blocked: ['scum'], reserved: ['admin'] };
    expect(await policies.matcherOf('g')).toBe(first);
    current.names = { blocked: ['scum', 'toxic'], reserved: ['admin'] };
    const second = await policies.matcherOf('g');
    expect(second).not.toBe(first);
    expect(second.match('toxic')).toHaveLength(1);
  });

  it('matches nothing for a game without lists', async () => {
    const policies = policiesOver({ names: { blocked: [], reserved: [] } });
    expect((await policies.matcherOf('g')).match('admin')).toEqual([]);
  });
});

describe('refuseNames', () => {
  const matcher = compileNameMatcher({ blocked: ['scum'], reserved: ['admin'] });
  const refusal = (fields: Parameters<typeof refuseNames>[1], lists: Parameters<typeof refuseNames>[2]) => {
    try {
      refuseNames(matcher, fields, lists);
      return null;
    } catch (err) {
      return { code: (err as { code: string }).code, message: (err as Error).message };
    }
  };

  it('names the first field holding a word of the lists given, the name before the tags', () => {
    expect(refusal({ name: 'Admin', tags: ['scum'] }, ['blocked', 'reserved'])).toEqual({
      code: 'name_not_allowed',
      message: 'name contains "admin", a word this game reserves for its operators',
    });
    expect(refusal({ name: 'Admin', tags: ['fine', 'scum'] }, ['blocked'])).toEqual({
      code: 'name_not_allowed',
      message: 'tags[1] contains "scum", a word this game does not allow',
    });
    expect(refusal({ name: 'Admin', tags: ['admin'] }, ['blocked'])).toBeNull();
    expect(refusal({}, ['blocked', 'reserved'])).toBeNull();
  });
});
