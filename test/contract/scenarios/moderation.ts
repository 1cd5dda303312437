import type { World } from './world';

/**
 * Moderation through the admin routes by a named moderator operator: each route's success answer,
 * the refusals they share with the game routes, and the operators' own routes around them.
 */
export async function moderationScenario({ admin: root, api, gameId }: World): Promise<void> {
  const made = await root.expect('POST /v1/admin/operators', 201, { body: { name: 'Contract moderator', role: 'moderator' } });
  await root.expect('GET /v1/admin/operators', 200);
  const admin = { expect: (key: string, status: number, opts: Parameters<typeof root.expect>[2] = {}) => root.expect(key, status, { ...opts, token: made.token }) };
  await admin.expect('GET /v1/admin/whoami', 200);
  const group = await api.expect('POST /v1/groups', 201, { body: { kind: 'guild', name: 'Moderated', visibility: 'public', creatorUserId: 'olga' } });
  const one = { gameId, groupId: group.id };
  for (const userId of ['pia', 'quin']) await api.expect('POST /v1/groups/{id}/join', 201, { params: { id: group.id }, body: { userId } });
  const role = await api.expect('POST /v1/groups/{id}/roles', 201, { params: { id: group.id }, body: { name: 'Helper', priority: 5 } });
  await admin.expect('POST /v1/admin/games/{gameId}/groups/{groupId}/members/{userId}/roles/{roleId}', 200, { params: { ...one, userId: 'quin', roleId: role.id }, body: { expiresIn: '1h' } });
  await admin.expect('GET /v1/admin/games/{gameId}/groups/{groupId}/members/{userId}', 200, { params: { ...one, userId: 'quin' } });
  await admin.expect('GET /v1/admin/games/{gameId}/groups/{groupId}/members/{userId}/permissions', 200, { params: { ...one, userId: 'quin' } });
  const timeout = 'POST /v1/groups/{id}/members/{userId}/timeout';
  await api.expect(timeout, 200, { params: { id: group.id, userId: 'quin' }, body: { duration: '10m', reason: 'flooding chat', actorUserId: 'olga' } });
  await api.expect(timeout, 400, { params: { id: group.id, userId: 'quin' }, body: { duration: '29d' } });
  await api.expect(timeout, 409, { params: { id: group.id, userId: 'nobody' }, body: { duration: '10m' } });
  await api.expect('DELETE /v1/groups/{id}/members/{userId}/timeout', 200, { params: { id: group.id, userId: 'quin' }, body: { reason: 'appeal' } });
  await api.expect('DELETE /v1/groups/{id}/members/{userId}/timeout', 200, { params: { id: group.id, userId: 'quin' } });
  await admin.expect('POST /v1/admin/games/{gameId}/groups/{groupId}/members/{userId}/timeout', 200, { params: { ...one, userId: 'pia' }, body: { duration: '1h' } });
  await admin.expect('DELETE /v1/admin/games/{gameId}/groups/{groupId}/members/{userId}/timeout', 200, { params: { ...one, userId: 'pia' } });
  await admin.expect('POST /v1/admin/games/{gameId}/groups/{groupId}/members/{userId}/kick', 200, { params: { ...one, userId: 'pia' }, body: { reason: 'spam' } });
  await admin.expect('POST /v1/admin/games/{gameId}/groups/{groupId}/members/{userId}/kick', 409, { params: { ...one, userId: 'olga' } });
  await admin.expect('POST /v1/admin/games/{gameId}/groups/{groupId}/bans', 201, { params: one, body: { userId: 'quin', reason: 'cheating' } });
  await admin.expect('DELETE /v1/admin/games/{gameId}/groups/{groupId}/bans/{userId}', 204, { params: { ...one, userId: 'quin' } });
  await admin.expect('POST /v1/admin/games/{gameId}/bans', 201, { params: { gameId }, body: { userId: 'rex', reason: 'abuse', expiresAt: null } });
  await admin.expect('DELETE /v1/admin/games/{gameId}/bans/{userId}', 204, { params: { gameId, userId: 'rex' } });

  const closed = await api.expect('POST /v1/groups', 201, { body: { kind: 'guild', name: 'Moderated closed', visibility: 'invite-only' } });
  const c = { params: { id: closed.id } };
  const asked = await api.expect('POST /v1/groups/{id}/join-requests', 201, { ...c, body: { userId: 'sam' } });
  const declined = await api.expect('POST /v1/groups/{id}/join-requests', 201, { ...c, body: { userId: 'tia' } });
  await admin.expect('GET /v1/admin/games/{gameId}/groups/{groupId}/join-requests', 200, { params: { gameId, groupId: closed.id }, query: { status: 'pending', limit: 1 } });
  await admin.expect('POST /v1/admin/games/{gameId}/join-requests/{id}/approve', 200, { params: { gameId, id: asked.id } });
  await admin.expect('POST /v1/admin/games/{gameId}/join-requests/{id}/approve', 410, { params: { gameId, id: asked.id } });
  await admin.expect('POST /v1/admin/games/{gameId}/join-requests/{id}/decline', 200, { params: { gameId, id: declined.id }, body: { reason: 'full' } });

  // Words no other scenario's names hold: the policy is the shared game's until it is reset below.
  const names = { blocked: ['contractcheatz'], reserved: ['contractstaff'] };
  await root.expect('PATCH /v1/admin/games/{gameId}/config', 200, { params: { gameId }, body: { config: { moderation: { names } } } });
  await api.expect('POST /v1/groups', 400, { body: { kind: 'guild', name: 'The Contract Staff' } });
  await api.expect('PATCH /v1/groups/{id}', 400, { params: { id: group.id }, body: { tags: ['contractstaff'] } });
  await admin.expect('PATCH /v1/admin/games/{gameId}/groups/{groupId}', 200, { params: one, body: { name: 'Official Contract Staff' } });
  await admin.expect('PATCH /v1/admin/games/{gameId}/groups/{groupId}', 400, { params: one, body: { name: 'contract-cheatz' } });
  await admin.expect('POST /v1/admin/games/{gameId}/names/test', 200, { params: { gameId }, body: { text: 'C0ntract Staff and c.o.n.t.r.a.c.t.c.h.e.a.t.z' } });
  await admin.expect('POST /v1/admin/games/{gameId}/names/test', 400, { params: { gameId }, body: { text: 'x', extra: 1 } });
  await root.expect('PATCH /v1/admin/games/{gameId}/config', 200, { params: { gameId }, body: { config: { moderation: null } } });

  await admin.expect('DELETE /v1/admin/games/{gameId}/groups/{groupId}', 200, { params: one });
  await admin.expect('POST /v1/admin/games/{gameId}/groups/{groupId}/restore', 200, { params: one });
  const filed = { reporterUserId: 'quin', subject: { type: 'group', id: group.id }, category: 'offensive_name', message: 'a rude name' };
  const report = await api.expect('POST /v1/reports', 201, { body: filed });
  await api.expect('POST /v1/reports', 200, { body: filed });
  await api.expect('POST /v1/reports', 400, { body: { reporterUserId: 'quin', subject: { type: 'user', id: 'quin' }, category: 'spam' } });
  await api.expect('POST /v1/reports', 404, { body: { ...filed, subject: { type: 'group', id: '01900000-0000-7000-8000-000000000000' } } });
  await admin.expect('GET /v1/admin/games/{gameId}/reports', 200, { params: { gameId }, query: { status: 'open', limit: 1 } });
  await admin.expect('GET /v1/admin/games/{gameId}/reports/subjects', 200, { params: { gameId }, query: { status: 'open' } });
  const r = { params: { gameId, id: report.id } };
  await admin.expect('POST /v1/admin/games/{gameId}/reports/{id}/resolve', 200, { ...r, body: { resolution: 'actioned', note: 'renamed' } });
  await admin.expect('POST /v1/admin/games/{gameId}/reports/{id}/resolve', 409, { ...r, body: { resolution: 'dismissed' } });
  await admin.expect('POST /v1/admin/games/{gameId}/names/scan', 200, { params: { gameId } });
  await admin.expect('GET /v1/admin/operator-audit', 200, { query: { action: 'member.kicked', limit: 10 } });
  await root.expect('PATCH /v1/admin/operators/{id}', 200, { params: { id: made.id }, body: { role: 'viewer' } });
  await admin.expect('POST /v1/admin/games/{gameId}/groups/{groupId}/restore', 403, { params: one });
  await root.expect('DELETE /v1/admin/operators/{id}', 204, { params: { id: made.id } });
}
