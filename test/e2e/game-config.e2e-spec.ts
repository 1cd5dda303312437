import { randomUUID } from 'node:crypto';
import { journalAudit } from '../helpers/journal';
import { asAdmin, bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';

/** SPEC §2 Game config, §4 GET/PATCH /v1/admin/games/:gameId/config, §8 ranges; DECISIONS §6 link route. */
describe('game config and identity links (admin)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const CONFIG = (gameId: string) => `/v1/admin/games/${gameId}/config`;
  const getConfig = (gameId: string) => t.http.get(CONFIG(gameId)).set(asAdmin);
  const patch = (gameId: string, body: unknown) =>
    t.http.patch(CONFIG(gameId)).set(asAdmin).set('content-type', 'application/json').send(body as object);
  const audit = (gameId: string, action: string) =>
    t.db.query<{ group_id: string | null; target_id: string; actor_user_id: string | null; payload: Record<string, unknown> }>(
      `SELECT group_id, target_id, actor_user_id, payload FROM ${journalAudit()} WHERE game_id = $1 AND action = $2 ORDER BY created_at, id`,
      [gameId, action],
    );

  const DEFAULTS = {
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

  describe('GET', () => {
    it('a new game resolves every default; nothing is stored', async () => {
      const { gameId } = await newGame(t);
      const r = await getConfig(gameId);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ gameId, config: DEFAULTS, networkId: null });
      const [row] = await t.db.query<{ config: unknown }>('SELECT config FROM games WHERE id = $1', [gameId]);
      expect(row.config).toEqual({});
    });

    it('unknown or malformed game id is 404; a game key is 401 invalid_admin_token', async () => {
      expect((await getConfig(randomUUID())).status).toBe(404);
      expect((await getConfig('nope')).body.code).toBe('not_found');
      const { gameId, key } = await newGame(t);
      const r = await t.http.get(CONFIG(gameId)).set(bearer(key));
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('invalid_admin_token');
    });
  });

  describe('PATCH', () => {
    it('deep-merges branch by branch and stores only what was set', async () => {
      const { gameId } = await newGame(t);
      await patch(gameId, { config: { friends: { maxFriends: 5, tags: { maxPerUser: 3 } } } });
      const r = await patch(gameId, { config: { friends: { requestsRequired: false, tags: { enabled: false } } } });
      expect(r.status).toBe(200);
      expect(r.body.config.friends).toMatchObject({ maxFriends: 5, requestsRequired: false, tags: { enabled: false, maxPerUser: 3 } });
      const [row] = await t.db.query<{ config: unknown }>('SELECT config FROM games WHERE id = $1', [gameId]);
      expect(row.config).toEqual({ friends: { maxFriends: 5, requestsRequired: false, tags: { maxPerUser: 3, enabled: false } } });
      expect((await getConfig(gameId)).body).toEqual(r.body);
    });

    it('null resets a branch (or a key) to its defaults', async () => {
      const { gameId } = await newGame(t);
      await patch(gameId, { config: { friends: { maxFriends: 5, discovery: { minMutuals: 4 } }, blocks: { enabled: false } } });
      expect((await patch(gameId, { config: { friends: { discovery: null } } })).body.config.friends.discovery).toEqual(DEFAULTS.friends.discovery);
      const r = await patch(gameId, { config: { friends: null } });
      expect(r.body.config).toEqual({ ...DEFAULTS, blocks: { enabled: false } });
      expect((await patch(gameId, { config: { blocks: null } })).body.config).toEqual(DEFAULTS);
    });

    it('networkId: set alone, kept by a config-only PATCH, cleared by null; config and networkId together', async () => {
      const { gameId } = await newGame(t);
      expect((await patch(gameId, { networkId: 'net-1' })).body.networkId).toBe('net-1');
      expect((await patch(gameId, { config: { friends: { maxFriends: 9 } } })).body.networkId).toBe('net-1');
      expect((await patch(gameId, { networkId: null })).body).toMatchObject({ networkId: null, config: { friends: { maxFriends: 9 } } });
      const both = await patch(gameId, { config: { friends: { scope: 'network' } }, networkId: 'net-2' });
      expect(both.body).toMatchObject({ networkId: 'net-2', config: { friends: { scope: 'network' } } });
    });

    it.each<[string, unknown, RegExp]>([
      ['an empty body', {}, /config, networkId or both/],
      ['config null', { config: null }, /config must be a JSON object/],
      ['config an array', { config: [] }, /config must be a JSON object/],
      ['an unknown key', { config: { friends: { maxFriend: 5 } } }, /^config has unknown keys: friends\.maxFriend; known keys are /],
      ['a non-object branch', { config: { blocks: true } }, /config\.blocks must be an object or null/],
      ['maxFriends 0', { config: { friends: { maxFriends: 0 } } }, /config\.friends\.maxFriends must be an integer from 1 to 100000/],
      ['maxFriends 100001', { config: { friends: { maxFriends: 100001 } } }, /maxFriends/],
      ['maxFriends 2.5', { config: { friends: { maxFriends: 2.5 } } }, /maxFriends/],
      ['maxPendingRequests 10001', { config: { friends: { maxPendingRequests: 10001 } } }, /maxPendingRequests must be an integer from 1 to 10000/],
      ['tags.maxPerUser 1001', { config: { friends: { tags: { maxPerUser: 1001 } } } }, /tags\.maxPerUser must be an integer from 1 to 1000/],
      ['discovery.minMutuals 0', { config: { friends: { discovery: { minMutuals: 0 } } } }, /minMutuals must be an integer from 1 to 50/],
      ['scope global', { config: { friends: { scope: 'global' } } }, /scope must be one of per-game, network/],
      ['enabled "yes"', { config: { friends: { enabled: 'yes' } } }, /friends\.enabled must be a boolean/],
      ['a default outside allowed', { config: { friends: { visibility: { default: 'public' } } } }, /visibility\.default must be one of the allowed/],
      ['networkId 123', { networkId: 123 }, /networkId/],
      ['networkId empty', { networkId: '' }, /networkId/],
      ['a NUL character', { config: { groups: { exclusiveKinds: ['a\u0000b'] } } }, /^config\.groups\.exclusiveKinds\.0 must not contain the NUL character/],
      ['a body that is not an object', [{ config: {} }], /request body must be a JSON object/],
    ])('400 for %s, naming the field; nothing is stored', async (_case, body, message) => {
      const { gameId } = await newGame(t);
      const r = await patch(gameId, body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('bad_request');
      expect(r.body.message).toMatch(message);
      expect((await getConfig(gameId)).body).toEqual({ gameId, config: DEFAULTS, networkId: null });
    });

    const patchText = (gameId: string, json: string) => t.http.patch(CONFIG(gameId)).set(asAdmin).set('content-type', 'application/json').send(json);
    const expectNothingStored = async (gameId: string) => {
      expect((await getConfig(gameId)).body).toEqual({ gameId, config: DEFAULTS, networkId: null });
      const [row] = await t.db.query<{ config: unknown }>('SELECT config FROM games WHERE id = $1', [gameId]);
      expect(row.config).toEqual({});
    };

    it.each<[string, string, string]>([
      ['a prototype key', '{"config":{"constructor":1}}', 'config has unknown keys: constructor'],
      ['an inherited method name', '{"config":{"toString":{"enabled":true}}}', 'config has unknown keys: toString'],
      ['a typo beside valid keys', '{"config":{"constructor":1,"frendsScope":"network","friends":{"maxFriends":5}}}', 'config has unknown keys: constructor, frendsScope'],
      [
        'nested unknown keys, by path',
        '{"config":{"friends":{"hasOwnProperty":true,"tags":{"colour":"x"},"maxFriends":5},"blocks":{"valueOf":false}}}',
        'config has unknown keys: friends.hasOwnProperty, friends.tags.colour, blocks.valueOf',
      ],
      ['an unknown body field beside config', '{"config":{"friends":{"maxFriends":5}},"networkID":"n1"}', 'body has unknown keys: networkID'],
      ['a prototype key in the body', '{"networkId":"n1","constructor":1}', 'body has unknown keys: constructor'],
    ])('400 for %s, naming every unknown key; nothing is stored', async (_case, json, named) => {
      const { gameId } = await newGame(t);
      const r = await patchText(gameId, json);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('bad_request');
      expect(r.body.message.startsWith(`${named}; known keys are `)).toBe(true);
      await expectNothingStored(gameId);
    });

    // JSON.parse makes `__proto__` an own key; the body parser refuses it before any route runs.
    it.each(['{"config":{"__proto__":{"friends":{"maxFriends":5}}}}', '{"config":{"blocks":{"__proto__":{"enabled":false}}}}', '{"__proto__":{"networkId":"n1"}}'])(
      '400 for __proto__ anywhere (%s); nothing is stored',
      async (json) => {
        const { gameId } = await newGame(t);
        const r = await patchText(gameId, json);
        expect(r.status).toBe(400);
        expect(r.body.code).toBe('bad_request');
        await expectNothingStored(gameId);
      },
    );

    it('the refusal lists the known keys of the level it found the unknown one at', async () => {
      const { gameId } = await newGame(t);
      const top = await patch(gameId, { config: { chat: { enabled: true } } });
      expect(top.body.message).toBe('config has unknown keys: chat; known keys are friends, blocks, groups, moderation');
      const nested = await patch(gameId, { config: { friends: { discovery: { minMutual: 3 } } } });
      expect(nested.body.message).toBe('config has unknown keys: friends.discovery.minMutual; known keys are friends.discovery.enabled, friends.discovery.minMutuals');
    });

    it('ranges are checked on the merged result, bounds included', async () => {
      const { gameId } = await newGame(t);
      for (const [key, min, max] of [
        ['maxFriends', 1, 100000],
        ['maxPendingRequests', 1, 10000],
      ] as const) {
        expect((await patch(gameId, { config: { friends: { [key]: min } } })).body.config.friends[key]).toBe(min);
        expect((await patch(gameId, { config: { friends: { [key]: max } } })).body.config.friends[key]).toBe(max);
      }
      await patch(gameId, { config: { friends: { visibility: { allowed: ['private', 'public'], default: 'public' } } } });
      // Narrowing allowed alone would leave the stored default outside it: refused on the merged result.
      const r = await patch(gameId, { config: { friends: { visibility: { allowed: ['private'] } } } });
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/visibility\.default/);
    });

    it('malformed JSON is 400; unknown game 404; no token 401', async () => {
      const { gameId } = await newGame(t);
      const bad = await t.http.patch(CONFIG(gameId)).set(asAdmin).set('content-type', 'application/json').send('{"config": ');
      expect(bad.status).toBe(400);
      expect((await patch(randomUUID(), { config: { friends: { maxFriends: 5 } } })).status).toBe(404);
      expect((await t.http.patch(CONFIG(gameId)).send({ networkId: 'x' })).status).toBe(401);
    });

    it('audits game.config.updated (no group) with before/after of the changed keys only; a no-op is not audited', async () => {
      const { gameId } = await newGame(t);
      await patch(gameId, { config: { friends: { maxFriends: 5, tags: { maxPerUser: 3 } } }, networkId: 'n1' });
      await patch(gameId, { config: { friends: { maxFriends: 5 } } });
      await patch(gameId, { networkId: 'n1' });
      await patch(gameId, { config: { friends: { maxFriends: null } } });
      const rows = await audit(gameId, 'game.config.updated');
      expect(rows).toEqual([
        {
          group_id: null,
          actor_user_id: null,
          target_id: gameId,
          payload: {
            before: { config: { friends: { maxFriends: 1000, tags: { maxPerUser: 20 } } }, networkId: null },
            after: { config: { friends: { maxFriends: 5, tags: { maxPerUser: 3 } } }, networkId: 'n1' },
          },
        },
        {
          group_id: null,
          actor_user_id: null,
          target_id: gameId,
          payload: { before: { config: { friends: { maxFriends: 5 } } }, after: { config: { friends: { maxFriends: 1000 } } } },
        },
      ]);
    });

    it('concurrent PATCHes of different keys both survive (the games row is locked while merging)', async () => {
      const { gameId } = await newGame(t);
      const keys = ['maxFriends', 'maxPendingRequests'] as const;
      await Promise.all(
        Array.from({ length: 10 }, (_, i) => patch(gameId, { config: { friends: { [keys[i % 2]]: 10 + i } } })),
      );
      const { friends } = (await getConfig(gameId)).body.config;
      expect(friends.maxFriends).not.toBe(1000);
      expect(friends.maxPendingRequests).not.toBe(100);
      const rows = await audit(gameId, 'game.config.updated');
      expect(rows).toHaveLength(10);
    });

    it("patching one game leaves another's config untouched", async () => {
      const [a, b] = [await newGame(t), await newGame(t)];
      await patch(a.gameId, { config: { friends: { maxFriends: 3 } } });
      expect((await getConfig(b.gameId)).body.config).toEqual(DEFAULTS);
    });
  });

  describe('PUT /v1/admin/games/:gameId/users/:externalUserId (DECISIONS §6)', () => {
    const link = (gameId: string, ext: string, svcUserId: unknown) =>
      t.http.put(`/v1/admin/games/${gameId}/users/${encodeURIComponent(ext)}`).set(asAdmin).send({ svcUserId });
    /** An internal user created through a game write (a block creates both parties). */
    async function internalUser(): Promise<{ gameId: string; ext: string; svcUserId: string }> {
      const { gameId, key } = await newGame(t);
      const ext = `u-${randomUUID()}`;
      await t.http.post(`/v1/users/${encodeURIComponent(ext)}/blocks`).set(bearer(key)).send({ targetSvcUserId: 'someone' });
      const [row] = await t.db.query<{ user_id: string }>('SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = $2', [gameId, ext]);
      return { gameId, ext, svcUserId: row.user_id };
    }

    it('anchors an external id of another game to the internal user: 200, audited game.user.linked; repeating is a 200 no-op', async () => {
      const u = await internalUser();
      const b = await newGame(t);
      const r = await link(b.gameId, 'alias one', u.svcUserId);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ gameId: b.gameId, externalUserId: 'alias one', svcUserId: u.svcUserId });
      const again = await link(b.gameId, 'alias one', u.svcUserId);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(r.body);
      const rows = await t.db.query('SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = $2', [b.gameId, 'alias one']);
      expect(rows).toEqual([{ user_id: u.svcUserId }]);
      expect(await audit(b.gameId, 'game.user.linked')).toEqual([
        { group_id: null, actor_user_id: null, target_id: 'alias one', payload: { externalUserId: 'alias one', svcUserId: u.svcUserId } },
      ]);
    });

    it('409 already_linked: the external id is anchored to another user, or the user has another external id there', async () => {
      const [u, v] = [await internalUser(), await internalUser()];
      const b = await newGame(t);
      await link(b.gameId, 'taken', u.svcUserId);
      const other = await link(b.gameId, 'taken', v.svcUserId);
      expect(other.status).toBe(409);
      expect(other.body.code).toBe('already_linked');
      const second = await link(b.gameId, 'second-name', u.svcUserId);
      expect(second.status).toBe(409);
      expect(second.body.code).toBe('already_linked');
      // The game where u was created already maps u under its first id.
      expect((await link(u.gameId, 'renamed', u.svcUserId)).body.code).toBe('already_linked');
      expect((await link(u.gameId, u.ext, u.svcUserId)).status).toBe(200);
    });

    it('404 for an unknown game or internal user; 400 without svcUserId; 401 with a game key', async () => {
      const u = await internalUser();
      const b = await newGame(t);
      expect((await link(randomUUID(), 'x', u.svcUserId)).status).toBe(404);
      expect((await link(b.gameId, 'x', randomUUID())).status).toBe(404);
      expect((await link(b.gameId, 'x', 'not-a-uuid')).body.code).toBe('not_found');
      expect((await link(b.gameId, 'x', undefined)).status).toBe(400);
      const r = await t.http.put(`/v1/admin/games/${b.gameId}/users/x`).set(bearer(b.key)).send({ svcUserId: u.svcUserId });
      expect(r.status).toBe(401);
    });

    it('concurrent links of one external id to two users: one 200, one 409', async () => {
      const [u, v] = [await internalUser(), await internalUser()];
      const b = await newGame(t);
      const results = await Promise.all([link(b.gameId, 'race', u.svcUserId), link(b.gameId, 'race', v.svcUserId)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    });
  });
});
