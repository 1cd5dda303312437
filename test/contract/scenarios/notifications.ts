import type { World } from './world';

/** A player's notifications (EXTENSIONS X9): written by a kick, listed (by the game and by an operator), counted, marked read, dismissed. */
export async function notificationsScenario({ api, admin, gameId }: World): Promise<void> {
  const group = await api.expect('POST /v1/groups', 201, { body: { kind: 'guild', name: 'Notified', visibility: 'public' } });
  await api.expect('POST /v1/groups/{id}/join', 201, { params: { id: group.id }, body: { userId: 'nina' } });
  await api.expect('POST /v1/groups/{id}/members/{userId}/kick', 200, { params: { id: group.id, userId: 'nina' }, body: { reason: 'afk' } });
  const params = { userId: 'nina' };
  const page = await api.expect('GET /v1/users/{userId}/notifications', 200, { params, query: { unread: 'true', kinds: 'member.kicked,member.banned', limit: 10 } });
  await api.expect('GET /v1/users/{userId}/notifications/counts', 200, { params });
  const asOperator = { params: { gameId, externalUserId: 'nina' } };
  await admin.expect('GET /v1/admin/games/{gameId}/users/{externalUserId}/notifications', 200, { ...asOperator, query: { unread: 'true', kinds: 'member.kicked', limit: 10 } });
  await admin.expect('GET /v1/admin/games/{gameId}/users/{externalUserId}/notifications', 400, { ...asOperator, query: { kinds: 'member.left' } });
  await api.expect('POST /v1/users/{userId}/notifications/read', 200, { params, body: { ids: [page.items[0].id] } });
  await api.expect('POST /v1/users/{userId}/notifications/read', 200, { params, body: { all: true } });
  await api.expect('DELETE /v1/users/{userId}/notifications/{id}', 204, { params: { ...params, id: page.items[0].id } });
}
