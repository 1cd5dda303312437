import type { World } from './world';

/** Groups, members, roles, permissions and the group audit log: each route's success answer. */
export async function groupsScenario({ api }: World): Promise<Record<string, string>> {
  const group = await api.expect('POST /v1/groups', 201, { body: { kind: 'guild', name: 'Knights', visibility: 'public', creatorUserId: 'alice', passcode: 'open-sesame' } });
  const g = { params: { id: group.id } };
  await api.expect('GET /v1/groups/{id}', 200, { ...g, query: { viewer: 'alice' } });
  await api.expect('GET /v1/groups', 200, { query: { limit: 10 } });
  await api.expect('PATCH /v1/groups/{id}', 200, { ...g, body: { metadata: { region: 'eu' } } });
  const child = await api.expect('POST /v1/groups', 201, { body: { kind: 'squad', name: 'Squad' } });
  await api.expect('PUT /v1/groups/{id}/parent', 200, { params: { id: child.id }, body: { parentGroupId: group.id } });
  await api.expect('GET /v1/groups/{id}/children', 200, g);
  await api.expect('PATCH /v1/groups/{id}', 200, { ...g, body: { tags: ['lang:en', 'casual'], maxMembers: 50 } });
  await api.expect('GET /v1/groups/search', 200, { query: { q: 'knigths', open: 'true', tags: 'lang:en', limit: 1 } });
  await api.expect('POST /v1/groups', 201, { body: { kind: 'guild', name: 'Knights of Dusk', visibility: 'public' } });
  const byName = { kind: 'guild', sort: 'name', membersAtLeast: 0, membersAtMost: 10, limit: 1 };
  const first = await api.expect('GET /v1/groups/search', 200, { query: byName });
  await api.expect('GET /v1/groups/search', 200, { query: { ...byName, cursor: first.nextCursor } });

  // A passcode given as the string SPEC says, then the bodiless routes with no body at all.
  const bob = await api.expect('POST /v1/groups/{id}/join', 201, { ...g, body: { userId: 'bob', passcode: 'open-sesame' } });
  await api.expect('POST /v1/groups/{id}/join', 201, { ...g, body: { userId: 'carol', passcode: 'open-sesame' } });
  await api.expect('POST /v1/groups/{id}/members/{userId}/kick', 200, { params: { id: group.id, userId: 'carol' } });
  await api.expect('POST /v1/groups/{id}/members/{userId}/kick', 200, { params: { id: group.id, userId: 'carol' }, body: { reason: 'afk' } });
  await api.expect('POST /v1/groups/{id}/leave', 200, { ...g, body: { userId: 'carol' } });
  await api.expect('GET /v1/groups/{id}/members', 200, { ...g, query: { status: 'active' } });
  await api.expect('GET /v1/groups/{id}/members/{userId}', 200, { params: { id: group.id, userId: 'bob' } });
  await api.expect('PATCH /v1/groups/{id}/members/{userId}', 200, { params: { id: group.id, userId: 'bob' }, body: { notesPublic: 'tank' } });
  await api.expect('GET /v1/members/{id}', 200, { params: { id: bob.id } });
  await api.expect('GET /v1/users/{userId}/members', 200, { params: { userId: 'bob' } });
  await api.expect('POST /v1/groups/{id}/leave', 409, { ...g, body: { userId: 'alice' } });
  await api.expect('POST /v1/groups/{id}/owner', 409, { ...g, body: { userId: 'carol' } });
  await api.expect('POST /v1/groups/{id}/owner', 200, { ...g, body: { userId: 'bob', actorUserId: 'alice' } });
  await api.expect('POST /v1/groups/{id}/owner', 200, { ...g, body: { userId: 'alice' } });

  const role = await api.expect('POST /v1/groups/{id}/roles', 201, { ...g, body: { name: 'Officer', priority: 10, color: '#3fa34d' } });
  const r = { params: { id: role.id } };
  await api.expect('GET /v1/groups/{id}/roles', 200, g);
  await api.expect('GET /v1/roles/{id}', 200, r);
  await api.expect('PATCH /v1/roles/{id}', 200, { ...r, body: { color: null, priority: 11 } });
  await api.expect('POST /v1/roles/{id}/permissions', 200, { ...r, body: { permission: 'guild.invite' } });
  const member = { id: group.id, userId: 'bob' };
  await api.expect('POST /v1/groups/{id}/members/{userId}/roles/{roleId}', 200, { params: { ...member, roleId: role.id } });
  await api.expect('GET /v1/permissions/check', 200, { query: { userId: 'bob', groupId: group.id, permission: 'guild.invite' } });
  const checks = [
    { userId: 'bob', groupId: group.id, permission: 'guild.invite' },
    { userId: 'bob', groupId: '00000000-0000-7000-8000-000000000000', permission: 'guild.invite' },
  ];
  await api.expect('POST /v1/permissions/check-batch', 200, { body: { checks } });
  await api.expect('GET /v1/groups/{id}/members/{userId}/permissions', 200, { params: member });
  await api.expect('GET /v1/users/{userId}/groups', 200, { params: { userId: 'bob' }, query: { permission: 'guild.invite', limit: 10 } });
  await api.expect('DELETE /v1/groups/{id}/members/{userId}/roles/{roleId}', 200, { params: { ...member, roleId: role.id } });
  await api.expect('POST /v1/groups/{id}/members/{userId}/permissions/{permission}', 200, { params: { ...member, permission: 'chat.mute' } });
  await api.expect('POST /v1/groups/{id}/members/{userId}/permissions/{permission}', 200, { params: { ...member, permission: 'chat.send' }, body: { allowed: false } });
  await api.expect('DELETE /v1/groups/{id}/members/{userId}/permissions/{permission}', 204, { params: { ...member, permission: 'chat.mute' } });
  await api.expect('DELETE /v1/roles/{id}/permissions/{permission}', 200, { params: { id: role.id, permission: 'guild.invite' } });
  const spare = await api.expect('POST /v1/groups/{id}/roles', 201, { ...g, body: { name: 'Spare', priority: 1 } });
  await api.expect('DELETE /v1/roles/{id}', 204, { params: { id: spare.id } });

  const audit = await api.expect('GET /v1/groups/{id}/audit', 200, { ...g, query: { limit: 2, actions: ['member.joined', 'role.created'] } });
  await api.expect('GET /v1/groups/{id}/audit', 200, { ...g, query: { before: audit.nextCursor } });

  const doomed = await api.expect('POST /v1/groups', 201, { body: { kind: 'guild', name: 'Doomed' } });
  await api.expect('DELETE /v1/groups/{id}', 200, { params: { id: doomed.id } });
  await api.expect('POST /v1/groups/{id}/restore', 200, { params: { id: doomed.id } });
  await api.expect('DELETE /v1/groups/{id}', 204, { params: { id: doomed.id }, query: { hard: 'true' } });
  return { groupId: group.id, childId: child.id, roleId: role.id, memberId: bob.id };
}
