import type { World } from './world';

/** A player's notifications (EXTENSIONS X9): written by a kick, listed (by the game and by an operator), counted, streamed, marked read, dismissed. */
export async function notificationsScenario({ api, admin, gameId, rig }: World): Promise<void> {
  const group = await api.expect('POST /v1/groups', 201, { body: { kind: 'guild', name: 'Notified', visibility: 'public' } });
  await api.expect('POST /v1/groups/{id}/join', 201, { params: { id: group.id }, body: { userId: 'nina' } });
  await api.expect('POST /v1/groups/{id}/members/{userId}/kick', 200, { params: { id: group.id, userId: 'nina' }, body: { reason: 'afk' } });
  const params = { userId: 'nina' };
  const page = await api.expect('GET /v1/users/{userId}/notifications', 200, { params, query: { unread: 'true', kinds: 'member.kicked,member.banned', limit: 10 } });
  await api.expect('GET /v1/users/{userId}/notifications/counts', 200, { params });
  const asOperator = { params: { gameId, externalUserId: 'nina' } };
  await admin.expect('GET /v1/admin/games/{gameId}/users/{externalUserId}/notifications', 200, { ...asOperator, query: { unread: 'true', kinds: 'member.kicked', limit: 10 } });
  await admin.expect('GET /v1/admin/games/{gameId}/users/{externalUserId}/notifications', 400, { ...asOperator, query: { kinds: 'member.left' } });
  await api.openStream(rig.serviceUrl, 'GET /v1/users/{userId}/notifications/stream', { params });
  await api.openStream(rig.serviceUrl, 'GET /v1/users/{userId}/notifications/stream', { params, query: { after: page.items[0].id } });
  // A refused handshake is the JSON envelope: 410 for a resume id the player has no notification by.
  await api.expect('GET /v1/users/{userId}/notifications/stream', 410, { params, query: { after: '7c9e6679-7425-40de-944b-e07fc1f90ae7' } });
  await api.expect('POST /v1/users/{userId}/notifications/read', 200, { params, body: { ids: [page.items[0].id] } });
  await api.expect('POST /v1/users/{userId}/notifications/read', 200, { params, body: { all: true } });
  await api.expect('DELETE /v1/users/{userId}/notifications/{id}', 204, { params: { ...params, id: page.items[0].id } });
}
