import { ApiError } from '../common/errors/api-error';
import { diffConfig, mergeConfig, resolveConfig, validateConfig, type GameConfig } from './game-config';

/** The error `fn` throws, or a failure when it returns. */
function thrownBy(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected a throw');
}

const DEFAULTS: GameConfig = {
  friends: {
    enabled: true,
    scope: 'per-game',
    requestsRequired: true,
    maxFriends: 1000,
    maxPendingRequests: 100,
    tags: { enabled: true, maxPerUser: 20 },
    discovery: { enabled: true, minMutuals: 2 },
    visibility: { allowed: ['private', 'friends-only'], default: 'private' },
  },
  blocks: { enabled: true },
  groups: { exclusiveKinds: [] },
  moderation: { names: { blocked: [], reserved: [] }, timeoutDeniedPermissions: [], hideGroupAtReporters: null },
};

describe('resolveConfig', () => {
  it('applies every default of SPEC §2 to an empty stored config', () => {
    expect(resolveConfig({})).toEqual(DEFAULTS);
  });

  it('keeps stored values and fills the rest', () => {
    const sut = resolveConfig({ friends: { maxFriends: 5, tags: { maxPerUser: 3 } } });

    expect(sut.friends.maxFriends).toBe(5);
    expect(sut.friends.tags).toEqual({ enabled: true, maxPerUser: 3 });
    expect(sut.friends.maxPendingRequests).toBe(100);
    expect(sut.blocks.enabled).toBe(true);
  });

  it('ignores stored keys it does not know', () => {
    expect(resolveConfig({ legacy: 1, friends: { old: true } })).toEqual(DEFAULTS);
  });

  it('returns copies: mutating the result does not touch the defaults', () => {
    resolveConfig({}).friends.visibility.allowed.push('public');

    expect(resolveConfig({}).friends.visibility.allowed).toEqual(['private', 'friends-only']);
  });
});

describe('mergeConfig', () => {
  it('merges branch by branch: keys of earlier patches survive', () => {
    const once = mergeConfig({}, { friends: { maxFriends: 5 } });
    const twice = mergeConfig(once, { friends: { requestsRequired: false, tags: { maxPerUser: 4 } } });

    expect(twice).toEqual({ friends: { maxFriends: 5, requestsRequired: false, tags: { maxPerUser: 4 } } });
  });

  it('leaves the stored config untouched (returns a new object)', () => {
    const stored = { friends: { maxFriends: 5 } };

    mergeConfig(stored, { friends: { maxFriends: 6 } });

    expect(stored).toEqual({ friends: { maxFriends: 5 } });
  });

  it('null for a top-level branch removes it, so its defaults apply again', () => {
    const sut = mergeConfig({ friends: { maxFriends: 5 }, blocks: { enabled: false } }, { friends: null });

    expect(sut).toEqual({ blocks: { enabled: false } });
  });

  it('null for a nested branch or a key resets only that part', () => {
    const stored = { friends: { maxFriends: 5, tags: { maxPerUser: 3, enabled: false } } };

    expect(mergeConfig(stored, { friends: { tags: null } })).toEqual({ friends: { maxFriends: 5 } });
    expect(mergeConfig(stored, { friends: { maxFriends: null } })).toEqual({ friends: { tags: { maxPerUser: 3, enabled: false } } });
  });

  it('drops a branch emptied by resets', () => {
    expect(mergeConfig({ blocks: { enabled: false } }, { blocks: { enabled: null } })).toEqual({});
  });

  it('replaces arrays wholesale', () => {
    const stored = { friends: { visibility: { allowed: ['private', 'friends-only', 'public'] } } };

    expect(mergeConfig(stored, { friends: { visibility: { allowed: ['private'] } } })).toEqual({
      friends: { visibility: { allowed: ['private'] } },
    });
  });

  it.each<[string, unknown, RegExp]>([
    ['an unknown top-level key', { chat: { enabled: true } }, /^config has unknown keys: chat; known keys are friends, blocks, groups, moderation$/],
    [
      'an unknown nested key',
      { friends: { tags: { colour: 'x' } } },
      /^config has unknown keys: friends\.tags\.colour; known keys are friends\.tags\.enabled, friends\.tags\.maxPerUser$/,
    ],
    ['a non-object branch', { friends: true }, /^config\.friends must be an object or null$/],
    ['a non-object nested branch', { friends: { discovery: 3 } }, /^config\.friends\.discovery must be an object or null$/],
  ])('refuses %s with a message naming the path', (_case, patch, message) => {
    const err = thrownBy(() => mergeConfig({}, patch));

    expect(err.code).toBe('bad_request');
    expect(err.message).toMatch(message);
  });

  // Parsed as a request body is: JSON.parse makes `__proto__` an own key, unlike an object literal.
  it.each<[string, string]>([
    ['{"constructor":{"friends":{"maxFriends":5}}}', 'constructor'],
    ['{"toString":1,"valueOf":2,"hasOwnProperty":3}', 'toString, valueOf, hasOwnProperty'],
    ['{"__proto__":{"friends":{"maxFriends":5}}}', '__proto__'],
    ['{"friends":{"constructor":1,"tags":{"__proto__":{}},"visibility":{"toString":"x"}}}', 'friends.constructor, friends.tags.__proto__, friends.visibility.toString'],
  ])('refuses keys that name prototype members (%s), by path', (json, keys) => {
    const err = thrownBy(() => mergeConfig({}, JSON.parse(json)));

    expect(err.code).toBe('bad_request');
    expect(err.message.startsWith(`config has unknown keys: ${keys}; known keys are `)).toBe(true);
  });

  it('names every unknown key of every level at once, with the known keys of those levels', () => {
    const patch = { constructor: 1, frendsScope: 'network', friends: { maxFriend: 5, maxFriends: 5 }, blocks: { enabld: false } };

    expect(thrownBy(() => mergeConfig({}, patch)).message).toBe(
      'config has unknown keys: constructor, frendsScope, friends.maxFriend, blocks.enabld; known keys are friends, blocks, groups, moderation, ' +
        'friends.enabled, friends.scope, friends.requestsRequired, friends.maxFriends, friends.maxPendingRequests, friends.tags, ' +
        'friends.discovery, friends.visibility, blocks.enabled',
    );
  });

  it('names at most ten unknown keys, and shortens a long one', () => {
    const patch = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [i === 0 ? 'k'.repeat(500) : `k${i}`, 1]));

    const { message } = thrownBy(() => mergeConfig({}, patch));

    expect(message).toMatch(/^config has unknown keys: k{64}…, k1, k2, k3, k4, k5, k6, k7, k8, k9 and 2 more; known keys are friends, blocks, groups, moderation$/);
  });

  it('refuses an unknown key beside valid ones without merging anything (the stored config is untouched)', () => {
    const stored = { friends: { maxFriends: 5 } };

    expect(thrownBy(() => mergeConfig(stored, { friends: { maxFriends: 6 }, toString: 1 })).code).toBe('bad_request');
    expect(stored).toEqual({ friends: { maxFriends: 5 } });
  });

  it.each([null, [], 'x', 3])('refuses a config that is not an object (%p)', (patch) => {
    expect(thrownBy(() => mergeConfig({}, patch)).code).toBe('bad_request');
  });
});

describe('validateConfig', () => {
  const withFriends = (friends: Record<string, unknown>) => resolveConfig({ friends });

  it('accepts the defaults', () => {
    expect(() => validateConfig(resolveConfig({}))).not.toThrow();
  });

  it.each<[string, number, number]>([
    ['maxFriends', 1, 100_000],
    ['maxPendingRequests', 1, 10_000],
  ])('accepts friends.%s at its bounds %p and %p and refuses beyond them', (key, min, max) => {
    expect(() => validateConfig(withFriends({ [key]: min }))).not.toThrow();
    expect(() => validateConfig(withFriends({ [key]: max }))).not.toThrow();
    expect(thrownBy(() => validateConfig(withFriends({ [key]: min - 1 }))).message).toBe(
      `config.friends.${key} must be an integer from ${min} to ${max}`,
    );
    expect(thrownBy(() => validateConfig(withFriends({ [key]: max + 1 }))).code).toBe('bad_request');
  });

  it.each<[string, string, number, number]>([
    ['tags', 'maxPerUser', 1, 1000],
    ['discovery', 'minMutuals', 1, 50],
  ])('checks the range of friends.%s.%s', (branch, key, min, max) => {
    const at = (v: number) => withFriends({ [branch]: { [key]: v } });
    expect(() => validateConfig(at(min))).not.toThrow();
    expect(() => validateConfig(at(max))).not.toThrow();
    expect(thrownBy(() => validateConfig(at(min - 1))).message).toBe(`config.friends.${branch}.${key} must be an integer from ${min} to ${max}`);
    expect(thrownBy(() => validateConfig(at(max + 1))).code).toBe('bad_request');
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['a fractional integer', { maxFriends: 2.5 }, /^config\.friends\.maxFriends must be an integer/],
    ['a numeric string', { maxFriends: '5' }, /^config\.friends\.maxFriends must be an integer/],
    ['a non-boolean switch', { enabled: 'yes' }, /^config\.friends\.enabled must be a boolean$/],
    ['an unknown scope', { scope: 'global' }, /^config\.friends\.scope must be one of per-game, network$/],
    ['an unknown visibility', { visibility: { allowed: ['private', 'everyone'] } }, /^config\.friends\.visibility\.allowed must be/],
    ['an empty allowed list', { visibility: { allowed: [] } }, /^config\.friends\.visibility\.allowed must be a non-empty/],
    ['a repeated allowed value', { visibility: { allowed: ['private', 'private'] } }, /^config\.friends\.visibility\.allowed must be/],
    ['a default outside the allowed list', { visibility: { default: 'public' } }, /^config\.friends\.visibility\.default must be one of the allowed/],
  ])('refuses %s', (_case, friends, message) => {
    const err = thrownBy(() => validateConfig(withFriends(friends)));

    expect(err.code).toBe('bad_request');
    expect(err.message).toMatch(message);
  });

  it('validates the merged result: a default made invalid by narrowing allowed is refused', () => {
    const stored = mergeConfig({}, { friends: { visibility: { allowed: ['private', 'friends-only', 'public'], default: 'public' } } });
    const narrowed = mergeConfig(stored, { friends: { visibility: { allowed: ['private'] } } });

    expect(thrownBy(() => validateConfig(resolveConfig(narrowed))).message).toMatch(/visibility\.default/);
  });
});

describe('diffConfig', () => {
  it('holds only the changed leaves, nested as in the config', () => {
    const sut = diffConfig(resolveConfig({}), resolveConfig({ friends: { maxFriends: 5, tags: { enabled: false } } }));

    expect(sut).toEqual({
      before: { friends: { maxFriends: 1000, tags: { enabled: true } } },
      after: { friends: { maxFriends: 5, tags: { enabled: false } } },
    });
  });

  it('is empty when nothing resolved differs (setting a key to its default)', () => {
    expect(diffConfig(resolveConfig({}), resolveConfig({ friends: { maxFriends: 1000 } }))).toEqual({ before: {}, after: {} });
  });

  it('compares arrays by value', () => {
    const a = resolveConfig({});
    const b = resolveConfig({ friends: { visibility: { allowed: ['private', 'friends-only', 'public'] } } });

    expect(diffConfig(a, b).after).toEqual({ friends: { visibility: { allowed: ['private', 'friends-only', 'public'] } } });
  });
});
