import { checkPermissions, CHECKS_PER_REQUEST, paginate } from '../src/index.js';
import { gameClient, recordingFetch, startService, type Service } from './support';

/** The permission model's X8 calls through the client: many checks, a member's effective set, the groups allowing a key, a grant for a time. */
let s: Service;
beforeAll(async () => {
  s = await startService({ WEBHOOK_WORKER_ENABLED: 'false' });
});
afterAll(() => s.t.close());

describe('asking the permission model', () => {
  it('checkPermissions answers any number of checks in order, 100 to a request, each as the single check', async () => {
    const recorder = recordingFetch();
    const { client } = await gameClient(s, recorder.fetch);
    const group = (await client.POST('/v1/groups', { body: { kind: 'guild', name: 'Knights', visibility: 'public', creatorUserId: 'lead' } })).data!;
    const role = (await client.POST('/v1/groups/{id}/roles', { params: { path: { id: group.id } }, body: { name: 'officer', priority: 10 } })).data!;
    await client.POST('/v1/roles/{id}/permissions', { params: { path: { id: role.id } }, body: { permission: 'guild.kick' } });
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const assigned = await client.POST('/v1/groups/{id}/members/{userId}/roles/{roleId}', {
      params: { path: { id: group.id, userId: 'lead', roleId: role.id } },
      body: { expiresAt: until },
    });
    expect(assigned.data?.roleGrants).toEqual([{ roleId: role.id, expiresAt: until }]);

    const checks = Array.from({ length: 150 }, (_, i) => ({ userId: i % 2 ? 'lead' : `nobody-${i}`, groupId: group.id, permission: 'guild.kick' }));
    const before = recorder.calls.length;
    const answers = await checkPermissions(client, checks);
    expect(recorder.calls.length - before).toBe(Math.ceil(checks.length / CHECKS_PER_REQUEST));
    expect(answers[1]).toEqual({ allowed: true, source: 'role', viaRoleId: role.id });
    expect(answers[0]).toEqual({ allowed: false, source: 'none' });
    expect(answers.filter((a) => a.allowed)).toHaveLength(75);

    const effective = await client.GET('/v1/groups/{id}/members/{userId}/permissions', { params: { path: { id: group.id, userId: 'lead' } } });
    expect(effective.data?.permissions).toEqual([{ permission: 'guild.kick', source: 'role', viaRoleId: role.id, expiresAt: until }]);

    const ids: string[] = [];
    for await (const g of paginate(client, '/v1/users/{userId}/groups', { params: { path: { userId: 'lead' }, query: { permission: 'guild.kick', limit: 1 } } })) ids.push(g.id);
    expect(ids).toEqual([group.id]);
  });
});
