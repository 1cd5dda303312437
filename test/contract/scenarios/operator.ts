import type { World } from './world';

/** Public routes, the admin surface and analytics: each route's success answer. */
export async function operatorScenario({ admin, api, gameId }: World, groupId: string): Promise<void> {
  await admin.expect('GET /', 200);
  await admin.expect('GET /healthz', 200);
  await api.expect('GET /v1/whoami', 200);
  const g = { params: { gameId } };
  await admin.expect('GET /v1/admin/games', 200, { query: { limit: 10 } });
  await admin.expect('GET /v1/admin/games/{gameId}', 200, g);
  await admin.expect('GET /v1/admin/games/{gameId}/groups/search', 200, { ...g, query: { q: 'knights', sort: 'relevance' } });
  await admin.expect('GET /v1/admin/games/{gameId}/api-keys', 200, g);
  const spare = await admin.expect('POST /v1/admin/games/{gameId}/api-keys', 201, g);
  const reader = await admin.expect('POST /v1/admin/games/{gameId}/api-keys', 201, { ...g, body: { scopes: ['read'], expiresIn: 3600 } });
  await admin.expect('POST /v1/admin/games/{gameId}/api-keys', 400, { ...g, body: { scopes: ['write'] } });
  // A read key reads, and is refused a change with the 403 the document lists.
  const readOnly = admin.withKey(reader.key);
  await readOnly.expect('GET /v1/whoami', 200);
  await readOnly.expect('POST /v1/groups', 403, { body: { kind: 'guild', name: 'Never made' } });
  await admin.expect('POST /v1/admin/games/{gameId}/api-keys/{keyId}/revoke', 200, { params: { gameId, keyId: reader.id } });
  await admin.expect('POST /v1/admin/games/{gameId}/api-keys/{keyId}/revoke', 200, { params: { gameId, keyId: spare.id } });
  await admin.expect('GET /v1/admin/games/{gameId}/config', 200, g);
  await admin.expect('PATCH /v1/admin/games/{gameId}/config', 200, { ...g, body: { networkId: 'net-1' } });
  await admin.expect('PATCH /v1/admin/games/{gameId}/config', 400, { ...g, body: {} });
  await admin.expect('GET /v1/admin/stats', 200);
  await admin.expect('GET /v1/admin/audit', 200, { query: { limit: 5 } });
  await admin.expect('GET /v1/admin/games/{gameId}/audit', 200, { ...g, query: { limit: 5, since: '2020-01-01T00:00:00.000Z' } });
  await admin.expect('GET /v1/admin/games/{gameId}/groups', 200, { ...g, query: { sort: 'name', order: 'asc', q: 'Kni' } });
  const one = { params: { gameId, groupId } };
  await admin.expect('GET /v1/admin/games/{gameId}/groups/{groupId}', 200, one);
  const members = await admin.expect('GET /v1/admin/games/{gameId}/groups/{groupId}/members', 200, { ...one, query: { status: 'all' } });
  await admin.expect('GET /v1/admin/games/{gameId}/groups/{groupId}/audit', 200, { ...one, query: { limit: 5 } });
  await admin.expect('GET /v1/admin/games/{gameId}/groups/{groupId}/roles', 200, one);
  await admin.expect('GET /v1/admin/games/{gameId}/bans', 200, { ...g, query: { includeExpired: true } });
  await admin.expect('GET /v1/admin/games/{gameId}/permissions', 200, g);
  await admin.expect('GET /v1/admin/games/{gameId}/permissions/check', 200, { ...g, query: { userId: 'bob', groupId, permission: 'chat.send' } });
  for (const name of ['group-churn', 'group-growth', 'member-activity', 'role-distribution', 'permission-usage']) {
    await admin.expect(`GET /v1/admin/games/{gameId}/analytics/${name}`, 200, g);
  }
  await admin.expect('GET /v1/admin/games/{gameId}/analytics/group-growth', 400, { ...g, query: { from: '2026-01-02T00:00:00.000Z', to: '2026-01-01T00:00:00.000Z' } });

  const svcUserId: string = members.items[0].svcUserId;
  await admin.expect('GET /v1/users/{svcUserId}/games', 200, { params: { svcUserId } });
  await admin.expect('PUT /v1/admin/games/{gameId}/users/{externalUserId}', 200, { params: { gameId, externalUserId: members.items[0].externalUserId }, body: { svcUserId } });
  await admin.expect('PUT /v1/admin/games/{gameId}/users/{externalUserId}', 409, { params: { gameId, externalUserId: 'someone-else' }, body: { svcUserId } });
  const user = { params: { gameId, externalUserId: members.items[0].externalUserId } };
  const page = await admin.expect('GET /v1/admin/games/{gameId}/users/{externalUserId}', 200, { ...user, query: { limit: 1 } });
  if (page.memberships.nextCursor) await admin.expect('GET /v1/admin/games/{gameId}/users/{externalUserId}', 200, { ...user, query: { limit: 1, cursor: page.memberships.nextCursor } });
  await admin.expect('GET /v1/admin/games/{gameId}/users/{externalUserId}', 404, { params: { gameId, externalUserId: 'nobody-ever-seen' } });
  await admin.expect('GET /v1/admin/games/{gameId}/users/{externalUserId}/export', 200, { params: { gameId, externalUserId: 'ann' } });
  await admin.expect('GET /v1/admin/games/{gameId}/users/{externalUserId}/export', 404, { params: { gameId, externalUserId: 'never-seen' } });

  const op = await admin.expect('POST /v1/admin/operators', 201, { body: { name: 'Contract viewer', role: 'viewer' } });
  await admin.expect('GET /v1/admin/operators', 200);
  await admin.expect('PATCH /v1/admin/operators/{id}', 200, { params: { id: op.id }, body: { role: 'moderator' } });
  const moderator = admin.withAdminToken(op.token);
  await moderator.expect('GET /v1/admin/whoami', 200);
  await moderator.expect('POST /v1/admin/games', 403, { body: { name: 'not for a moderator' } });
  await admin.expect('GET /v1/admin/operator-audit', 200, { query: { limit: 5, action: 'operator.role_changed' } });
  await admin.expect('DELETE /v1/admin/operators/{id}', 204, { params: { id: op.id } });
  await admin.expect('DELETE /v1/admin/operators/{id}', 404, { params: { id: op.id } });
}
