import type { EntityManager } from 'typeorm';
import type { PgListener } from '../db/pg-listener';
import type { EventBus } from '../events/event-bus';

const SELF = 'a1b2c3d4-0000-4000-8000-000000000001';
const OTHER = 'a1b2c3d4-0000-4000-8000-000000000002';
import { Tx } from '../db/unit-of-work';
import { PERMISSION_TTL_MS, PERMISSIONS_CHANNEL, PermissionCache } from './permission-cache';
import type { PermissionCheckResult } from './permission-resolver';

/**
 * The permission cache as pure logic (SPEC §4 Permission check, §8 TTL 60 s): no Postgres, the
 * LISTEN side is a stub that records what the cache subscribes to.
 */

interface Subscription {
  channel: string;
  onMessage: (payload: string) => void;
  onReset?: () => void;
}

function stubListener(): { listener: PgListener; subscriptions: Subscription[] } {
  const subscriptions: Subscription[] = [];
  const listener = {
    subscribe(channel: string, onMessage: (payload: string) => void, onReset?: () => void) {
      subscriptions.push({ channel, onMessage, onReset });
    },
  } as unknown as PgListener;
  return { listener, subscriptions };
}

const G1 = '01900000-0000-7000-8000-000000000001';
const G2 = '01900000-0000-7000-8000-000000000002';
const ROLE_ANSWER: PermissionCheckResult = { allowed: true, source: 'role', viaRoleId: '01900000-0000-7000-8000-0000000000aa' };
const DEFAULT_ANSWER: PermissionCheckResult = { allowed: false, source: 'default' };
const NONE_ANSWER: PermissionCheckResult = { allowed: false, source: 'none' };
const T0 = 1_700_000_000_000;

describe('PermissionCache', () => {
  let cache: PermissionCache<PermissionCheckResult>;
  let subscriptions: Subscription[];

  beforeEach(() => {
    const stub = stubListener();
    subscriptions = stub.subscriptions;
    cache = new PermissionCache<PermissionCheckResult>(stub.listener, { instanceId: SELF } as unknown as EventBus);
  });

  /** Stores an answer the way the service does: with a generation taken just before. */
  const put = (groupId: string, key: string, result: PermissionCheckResult, now = T0) =>
    cache.set(groupId, key, result, cache.generation(groupId), now);

  describe('get / set', () => {
    it('misses on an empty cache', () => {
      expect(cache.get(G1, 'k', T0)).toBeUndefined();
    });

    it('returns what was set, per group and per key', () => {
      put(G1, 'a', ROLE_ANSWER);
      put(G1, 'b', DEFAULT_ANSWER);
      put(G2, 'a', NONE_ANSWER);
      expect(cache.get(G1, 'a', T0)).toEqual(ROLE_ANSWER);
      expect(cache.get(G1, 'b', T0)).toEqual(DEFAULT_ANSWER);
      expect(cache.get(G2, 'a', T0)).toEqual(NONE_ANSWER);
      expect(cache.get(G2, 'b', T0)).toBeUndefined();
    });

    it('a second set of the same key replaces the answer', () => {
      put(G1, 'a', ROLE_ANSWER);
      put(G1, 'a', DEFAULT_ANSWER);
      expect(cache.get(G1, 'a', T0)).toEqual(DEFAULT_ANSWER);
    });

    it('uses the wall clock when no `now` is passed', () => {
      cache.set(G1, 'a', ROLE_ANSWER, cache.generation(G1));
      expect(cache.get(G1, 'a')).toEqual(ROLE_ANSWER);
    });

    it('bounds memory by weight: past a million the oldest groups go first, and what a group held stops counting once it is dropped', () => {
      const G3 = '01900000-0000-7000-8000-000000000003';
      const heavy = (groupId: string) => cache.set(groupId, 'p', ROLE_ANSWER, cache.generation(groupId), T0, null, 600_000);
      heavy(G1);
      heavy(G2);
      heavy(G3); // 1.2 million held: the oldest group goes, down below nine tenths of the bound
      expect(cache.get(G1, 'p', T0)).toBeUndefined();
      expect(cache.get(G2, 'p', T0)).toEqual(ROLE_ANSWER);
      expect(cache.get(G3, 'p', T0)).toEqual(ROLE_ANSWER);
      cache.invalidate(G2);
      put(G1, 'light', DEFAULT_ANSWER); // 600,001 held after G2's invalidation: nothing is evicted
      expect(cache.get(G3, 'p', T0)).toEqual(ROLE_ANSWER);
      expect(cache.get(G1, 'light', T0)).toEqual(DEFAULT_ANSWER);
    });
  });

  describe('TTL', () => {
    it('is the 60 seconds of SPEC §8', () => {
      expect(PERMISSION_TTL_MS).toBe(60_000);
    });

    it('serves an answer until just before the TTL and drops it at the TTL', () => {
      put(G1, 'a', ROLE_ANSWER, T0);
      expect(cache.get(G1, 'a', T0 + PERMISSION_TTL_MS - 1)).toEqual(ROLE_ANSWER);
      expect(cache.get(G1, 'a', T0 + PERMISSION_TTL_MS)).toBeUndefined();
    });

    it('an expired answer is dropped, not kept for an earlier clock reading', () => {
      put(G1, 'a', ROLE_ANSWER, T0);
      expect(cache.get(G1, 'a', T0 + PERMISSION_TTL_MS + 5)).toBeUndefined();
      expect(cache.get(G1, 'a', T0)).toBeUndefined();
    });

    it('a re-set restarts the TTL from its own `now`', () => {
      put(G1, 'a', ROLE_ANSWER, T0);
      put(G1, 'a', DEFAULT_ANSWER, T0 + 30_000);
      expect(cache.get(G1, 'a', T0 + PERMISSION_TTL_MS + 10_000)).toEqual(DEFAULT_ANSWER);
      expect(cache.get(G1, 'a', T0 + 30_000 + PERMISSION_TTL_MS)).toBeUndefined();
    });

    it('expiry of one key leaves the others of the group alone', () => {
      put(G1, 'old', ROLE_ANSWER, T0);
      put(G1, 'new', DEFAULT_ANSWER, T0 + 50_000);
      expect(cache.get(G1, 'old', T0 + PERMISSION_TTL_MS)).toBeUndefined();
      expect(cache.get(G1, 'new', T0 + PERMISSION_TTL_MS)).toEqual(DEFAULT_ANSWER);
    });
  });

  describe('invalidate', () => {
    it('drops every answer of that group and only that group', () => {
      put(G1, 'a', ROLE_ANSWER);
      put(G1, 'b', DEFAULT_ANSWER);
      put(G2, 'a', ROLE_ANSWER);
      cache.invalidate(G1);
      expect(cache.get(G1, 'a', T0)).toBeUndefined();
      expect(cache.get(G1, 'b', T0)).toBeUndefined();
      expect(cache.get(G2, 'a', T0)).toEqual(ROLE_ANSWER);
    });

    it('of a group with nothing cached is harmless', () => {
      put(G2, 'a', ROLE_ANSWER);
      expect(() => cache.invalidate(G1)).not.toThrow();
      expect(cache.get(G2, 'a', T0)).toEqual(ROLE_ANSWER);
    });

    it('answers set after the invalidation (with a fresh generation) are cached again', () => {
      put(G1, 'a', ROLE_ANSWER);
      cache.invalidate(G1);
      put(G1, 'a', DEFAULT_ANSWER);
      expect(cache.get(G1, 'a', T0)).toEqual(DEFAULT_ANSWER);
    });
  });

  describe('generations', () => {
    it('a set with a generation taken before an invalidation of the group is not stored', () => {
      const before = cache.generation(G1);
      cache.invalidate(G1);
      cache.set(G1, 'a', ROLE_ANSWER, before, T0);
      expect(cache.get(G1, 'a', T0)).toBeUndefined();
    });

    it('an invalidation of another group does not spoil the generation', () => {
      const before = cache.generation(G1);
      cache.invalidate(G2);
      cache.set(G1, 'a', ROLE_ANSWER, before, T0);
      expect(cache.get(G1, 'a', T0)).toEqual(ROLE_ANSWER);
    });

    it('a generation taken before clear() is stale for every group', () => {
      const g1 = cache.generation(G1);
      const g2 = cache.generation(G2);
      cache.clear();
      cache.set(G1, 'a', ROLE_ANSWER, g1, T0);
      cache.set(G2, 'a', ROLE_ANSWER, g2, T0);
      expect(cache.get(G1, 'a', T0)).toBeUndefined();
      expect(cache.get(G2, 'a', T0)).toBeUndefined();
    });

    it('changes with each invalidation of the group and stays put otherwise', () => {
      const a = cache.generation(G1);
      expect(cache.generation(G1)).toBe(a);
      cache.invalidate(G1);
      const b = cache.generation(G1);
      expect(b).not.toBe(a);
      cache.invalidate(G1);
      expect(cache.generation(G1)).not.toBe(b);
    });
  });

  describe('clear()', () => {
    it('drops every group', () => {
      put(G1, 'a', ROLE_ANSWER);
      put(G2, 'b', DEFAULT_ANSWER);
      cache.clear();
      expect(cache.get(G1, 'a', T0)).toBeUndefined();
      expect(cache.get(G2, 'b', T0)).toBeUndefined();
    });

    it('leaves a working cache behind', () => {
      put(G1, 'a', ROLE_ANSWER);
      cache.clear();
      put(G1, 'a', DEFAULT_ANSWER);
      expect(cache.get(G1, 'a', T0)).toEqual(DEFAULT_ANSWER);
    });
  });

  describe('cross-instance wiring', () => {
    it('subscribes once, on module init, to the permissions channel', () => {
      expect(subscriptions).toHaveLength(0);
      cache.onModuleInit();
      expect(subscriptions).toHaveLength(1);
      expect(subscriptions[0].channel).toBe(PERMISSIONS_CHANNEL);
    });

    it("another instance's notification naming a group invalidates that group only", () => {
      cache.onModuleInit();
      put(G1, 'a', ROLE_ANSWER);
      put(G2, 'a', ROLE_ANSWER);
      subscriptions[0].onMessage(`${OTHER} ${G1}`);
      expect(cache.get(G1, 'a', T0)).toBeUndefined();
      expect(cache.get(G2, 'a', T0)).toEqual(ROLE_ANSWER);
    });

    it('its own notification is ignored: the committing instance invalidated already', () => {
      cache.onModuleInit();
      put(G1, 'a', ROLE_ANSWER);
      subscriptions[0].onMessage(`${SELF} ${G1}`);
      expect(cache.get(G1, 'a', T0)).toEqual(ROLE_ANSWER);
    });

    it('a listener reset (notifications possibly lost) clears everything', () => {
      cache.onModuleInit();
      put(G1, 'a', ROLE_ANSWER);
      put(G2, 'a', ROLE_ANSWER);
      expect(subscriptions[0].onReset).toEqual(expect.any(Function));
      subscriptions[0].onReset!();
      expect(cache.get(G1, 'a', T0)).toBeUndefined();
      expect(cache.get(G2, 'a', T0)).toBeUndefined();
    });

    it('invalidateOnCommit stages a local after-commit invalidation and an announcement of the group id, none in the transaction', () => {
      const tx = new Tx({} as EntityManager);
      put(G1, 'a', ROLE_ANSWER);
      put(G2, 'a', ROLE_ANSWER);
      cache.invalidateOnCommit(tx, G1);
      // Nothing happens before the commit.
      expect(cache.get(G1, 'a', T0)).toEqual(ROLE_ANSWER);
      expect(tx.announcements).toEqual([{ channel: PERMISSIONS_CHANNEL, payload: `${SELF} ${G1}` }]);
      expect(tx.notifications).toEqual([]);
      expect(tx.afterCommitHooks).toHaveLength(1);
      // What the unit of work runs once the transaction has committed.
      for (const hook of tx.afterCommitHooks) hook();
      expect(cache.get(G1, 'a', T0)).toBeUndefined();
      expect(cache.get(G2, 'a', T0)).toEqual(ROLE_ANSWER);
    });

    it('an answer computed while a commit was invalidating the group is not stored', () => {
      const tx = new Tx({} as EntityManager);
      cache.invalidateOnCommit(tx, G1);
      const generation = cache.generation(G1); // a check starts, reads the old rows...
      for (const hook of tx.afterCommitHooks) hook(); // ...the change commits...
      cache.set(G1, 'a', ROLE_ANSWER, generation, T0); // ...and the stale answer arrives late.
      expect(cache.get(G1, 'a', T0)).toBeUndefined();
    });
  });
});

describe('PermissionCache lookups (for the metrics)', () => {
  it('counts a fresh answer as a hit, and an absent or expired one as a miss', () => {
    const listener = { subscribe: () => undefined } as unknown as PgListener;
    const sut = new PermissionCache<PermissionCheckResult>(listener, { instanceId: SELF } as unknown as EventBus);
    sut.set(G1, 'a', ROLE_ANSWER, sut.generation(G1), T0);

    sut.get(G1, 'a', T0 + 1);
    sut.get(G1, 'b', T0 + 1);
    sut.get(G2, 'a', T0 + 1);
    sut.get(G1, 'a', T0 + PERMISSION_TTL_MS + 1);

    expect(sut.lookups).toEqual({ hit: 1, miss: 3 });
  });

  it("counts a lookup that answers several questions (a batch's checks of one member) once per question", () => {
    const listener = { subscribe: () => undefined } as unknown as PgListener;
    const sut = new PermissionCache<PermissionCheckResult>(listener, { instanceId: SELF } as unknown as EventBus);
    sut.set(G1, 'a', ROLE_ANSWER, sut.generation(G1), T0);

    expect(sut.get(G1, 'a', T0 + 1, 12)).toEqual(ROLE_ANSWER);
    expect(sut.get(G1, 'b', T0 + 1, 3)).toBeUndefined();

    expect(sut.lookups).toEqual({ hit: 12, miss: 3 });
  });
});

describe('PermissionCache and grants that expire', () => {
  it('serves an answer until the expiry of the grant that decided it, when that comes before the TTL', () => {
    const listener = { subscribe: () => undefined } as unknown as PgListener;
    const sut = new PermissionCache<PermissionCheckResult>(listener, { instanceId: SELF } as unknown as EventBus);
    sut.set(G1, 'a', ROLE_ANSWER, sut.generation(G1), T0, T0 + 1000);
    expect(sut.get(G1, 'a', T0 + 999)).toEqual(ROLE_ANSWER);
    expect(sut.get(G1, 'a', T0 + 1000)).toBeUndefined();
    sut.set(G1, 'b', ROLE_ANSWER, sut.generation(G1), T0, T0 + PERMISSION_TTL_MS * 2);
    expect(sut.get(G1, 'b', T0 + PERMISSION_TTL_MS)).toBeUndefined();
  });
});
