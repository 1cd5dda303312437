import type { World } from './world';

/** A player's erasure, by the game and by an operator, and the erasure ledger (EXTENSIONS X7). */
export async function privacyScenario({ api, admin, gameId }: World): Promise<void> {
  const since = new Date().toISOString();
  const group = await api.expect('POST /v1/groups', 201, { body: { kind: 'guild', name: 'Erased', visibility: 'public', creatorUserId: 'zara' } });
  await api.expect('POST /v1/groups/{id}/join', 201, { params: { id: group.id }, body: { userId: 'yuri' } });
  await api.expect('POST /v1/groups/{id}/join', 201, { params: { id: group.id }, body: { userId: 'xavi' } });
  await api.expect('POST /v1/groups/{id}/join', 201, { params: { id: group.id }, body: { userId: 'wren' } });
  // The body routes, for ids too long for a path: the same answers as the path routes.
  await api.expect('POST /v1/users/export', 200, { body: { userId: 'xavi' } });
  await admin.expect('POST /v1/admin/games/{gameId}/users/export', 200, { params: { gameId }, body: { userId: 'xavi' } });
  await api.expect('POST /v1/users/erase', 200, { body: { userId: 'xavi' } });
  await admin.expect('POST /v1/admin/games/{gameId}/users/erase', 200, { params: { gameId }, body: { userId: 'wren' } });
  await api.expect('DELETE /v1/users/{userId}', 200, { params: { userId: 'zara' } });
  await admin.expect('DELETE /v1/admin/games/{gameId}/users/{externalUserId}', 200, { params: { gameId, externalUserId: 'yuri' } });
  const ledger = await admin.expect('GET /v1/admin/erasures', 200, { query: { since, limit: 10 } });
  await admin.expect('POST /v1/admin/erasures/apply', 200, { body: { items: ledger.items } });
}
