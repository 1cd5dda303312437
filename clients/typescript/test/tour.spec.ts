import { createGuildhallClient, GuildhallError, paginate } from '../src/index.js';
import { gameClient, recordingFetch, rejection, startService, type Service } from './support';

/**
 * The README's tour through the client against the real service: typed calls, pagination over
 * every page of a list, and the errors paginate throws.
 */
let s: Service;
beforeAll(async () => {
  s = await startService({ WEBHOOK_WORKER_ENABLED: 'false' });
});
afterAll(() => s.t.close());

const MISSING_UUID = '0190a0b0-0000-7000-8000-00000000dead';

/** Runs `work` over `items`, `width` at a time. */
async function inBatches<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(work));
}

describe('typed calls', () => {
  it('a group, a join, a role with a permission, and the check that follows', async () => {
    const { client } = await gameClient(s);

    const created = await client.POST('/v1/groups', { body: { kind: 'guild', name: 'Knights of Dawn', visibility: 'public', creatorUserId: 'alice' } });
    expect(created.response.status).toBe(201);
    const group = created.data!;
    expect(group).toMatchObject({ kind: 'guild', name: 'Knights of Dawn', visibility: 'public' });

    const joined = await client.POST('/v1/groups/{id}/join', { params: { path: { id: group.id } }, body: { userId: 'bob' } });
    expect(joined.data).toMatchObject({ userId: 'bob', status: 'active', roles: [] });

    const role = (await client.POST('/v1/groups/{id}/roles', { params: { path: { id: group.id } }, body: { name: 'officer', priority: 10 } })).data!;
    await client.POST('/v1/roles/{id}/permissions', { params: { path: { id: role.id } }, body: { permission: 'guild.invite' } });
    const assigned = await client.POST('/v1/groups/{id}/members/{userId}/roles/{roleId}', {
      params: { path: { id: group.id, userId: 'bob', roleId: role.id } },
    });
    expect(assigned.data?.roles).toEqual([role.id]);

    const check = (userId: string) =>
      client.GET('/v1/permissions/check', { params: { query: { userId, groupId: group.id, permission: 'guild.invite' } } });
    expect((await check('bob')).data).toEqual({ allowed: true, source: 'role', viaRoleId: role.id });
    expect((await check('alice')).data).toEqual({ allowed: false, source: 'default' });
  });

  it('an error answer is a value, typed by the route: the envelope with its code', async () => {
    const { client } = await gameClient(s);
    const { data, error, response } = await client.GET('/v1/groups/{id}', { params: { path: { id: MISSING_UUID } } });
    expect(data).toBeUndefined();
    expect(response.status).toBe(404);
    expect(error).toMatchObject({ code: 'not_found', status: 404 });
  });
});

describe('paginate', () => {
  it('yields every member of a 251-member group across pages, one request a page, items typed by the path', async () => {
    const recorder = recordingFetch();
    const { client } = await gameClient(s, recorder.fetch);
    const group = (await client.POST('/v1/groups', { body: { kind: 'guild', name: 'Horde', visibility: 'public', creatorUserId: 'leader' } })).data!;
    const joiners = Array.from({ length: 250 }, (_, i) => `player-${i}`);
    await inBatches(joiners, 10, async (userId) => {
      const r = await client.POST('/v1/groups/{id}/join', { params: { path: { id: group.id } }, body: { userId } });
      if (r.response.status !== 201) throw new Error(`join ${userId}: ${r.response.status}`);
    });

    recorder.calls.length = 0;
    const userIds: string[] = [];
    for await (const member of paginate(client, '/v1/groups/{id}/members', { params: { path: { id: group.id }, query: { limit: 100 } } })) {
      userIds.push(member.userId);
    }
    expect(userIds).toHaveLength(251);
    expect(new Set(userIds)).toEqual(new Set(['leader', ...joiners]));
    expect(recorder.calls).toHaveLength(3);
    expect(recorder.calls.map((c) => new URL(c.url).searchParams.has('cursor'))).toEqual([false, true, true]);

    // Audit logs page by `before` rather than `cursor`: the same call shape reads all of them.
    const actions: string[] = [];
    for await (const entry of paginate(client, '/v1/groups/{id}/audit', { params: { path: { id: group.id }, query: { limit: 100 } } })) {
      actions.push(entry.action);
    }
    expect(actions.filter((a) => a === 'member.joined')).toHaveLength(251);
    expect(actions.filter((a) => a === 'group.created')).toHaveLength(1);
  });

  it('stops at nextCursor null without another request; a route without required parameters needs no init', async () => {
    const recorder = recordingFetch();
    const { client } = await gameClient(s, recorder.fetch);
    await client.POST('/v1/groups', { body: { kind: 'party', name: 'Solo' } });
    recorder.calls.length = 0;
    const names: string[] = [];
    for await (const g of paginate(client, '/v1/groups')) names.push(g.name);
    expect(names).toEqual(['Solo']);
    expect(recorder.calls).toHaveLength(1);
  });

  it('an error answer throws GuildhallError: status, typed code, message and request id', async () => {
    const { client } = await gameClient(s);
    const err = await rejection(paginate(client, '/v1/groups/{id}/members', { params: { path: { id: MISSING_UUID } } }).next());
    expect(err).toBeInstanceOf(GuildhallError);
    const e = err as GuildhallError;
    expect(e).toMatchObject({ name: 'GuildhallError', status: 404, code: 'not_found', retryAfter: undefined });
    expect(e.message).toMatch(/group/i);
    expect(e.requestId).toMatch(/\S/);
  });

  it('a 429 carries retryAfter in seconds, from Retry-After', async () => {
    // A second instance on the same database, rate limited; the game is made on the first.
    const limited = await startService({ RATE_LIMIT_PER_MINUTE: '60', RATE_LIMIT_BURST: '2' }, s.t.db);
    try {
      const { key } = await gameClient(s);
      const client = createGuildhallClient({ baseUrl: limited.baseUrl, apiKey: key });
      let err: unknown;
      for (let i = 0; i < 5 && err === undefined; i++) {
        try {
          for await (const _ of paginate(client, '/v1/groups'));
        } catch (e) {
          err = e;
        }
      }
      expect(err).toBeInstanceOf(GuildhallError);
      const e = err as GuildhallError;
      expect(e).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
      expect(e.retryAfter).toBeGreaterThanOrEqual(1);
      expect(Number.isInteger(e.retryAfter)).toBe(true);
      expect(e.requestId).toMatch(/\S/);
    } finally {
      await limited.t.close();
    }
  });
});
