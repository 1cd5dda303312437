import type { World } from './world';

/** The friends graph: requests, friendships, tags, blocks, visibility and suggestions. */
export async function friendsScenario({ api }: World): Promise<void> {
  const sent = await api.expect('POST /v1/users/{userId}/friend-requests', 201, { params: { userId: 'ann' }, body: { targetSvcUserId: 'ben' } });
  await api.expect('GET /v1/users/{userId}/friend-requests', 200, { params: { userId: 'ben' }, query: { direction: 'in' } });
  await api.expect('POST /v1/friend-requests/{id}/accept', 200, { params: { id: sent.request.id } });
  const toDecline = await api.expect('POST /v1/users/{userId}/friend-requests', 201, { params: { userId: 'ann' }, body: { targetSvcUserId: 'cal' } });
  await api.expect('POST /v1/friend-requests/{id}/decline', 204, { params: { id: toDecline.request.id } });
  const toCancel = await api.expect('POST /v1/users/{userId}/friend-requests', 201, { params: { userId: 'ann' }, body: { targetSvcUserId: 'dee' } });
  await api.expect('DELETE /v1/friend-requests/{id}', 204, { params: { id: toCancel.request.id } });
  await api.expect('POST /v1/users/{userId}/friend-requests', 400, { params: { userId: 'ann' }, body: { targetSvcUserId: 'ben' } });

  const tag = await api.expect('POST /v1/users/{userId}/friend-tags', 201, { params: { userId: 'ann' }, body: { name: 'raid', color: '#112233' } });
  await api.expect('GET /v1/users/{userId}/friend-tags', 200, { params: { userId: 'ann' } });
  await api.expect('PATCH /v1/friend-tags/{id}', 200, { params: { id: tag.id }, body: { color: null } });
  await api.expect('PUT /v1/users/{userId}/friends/{otherUserId}/tags', 200, { params: { userId: 'ann', otherUserId: 'ben' }, body: { tagIds: [tag.id] } });
  await api.expect('GET /v1/users/{userId}/friends', 200, { params: { userId: 'ann' }, query: { tagId: tag.id, limit: 10 } });
  await api.expect('DELETE /v1/friend-tags/{id}', 204, { params: { id: tag.id } });
  await api.expect('GET /v1/users/{userId}/friends/{otherUserId}/relationship', 200, { params: { userId: 'ann', otherUserId: 'ben' } });
  await api.expect('GET /v1/users/{userId}/friends/{otherUserId}/relationship', 400, { params: { userId: 'ann', otherUserId: 'ann' } });
  await api.expect('GET /v1/users/{userId}/friends/suggestions', 200, { params: { userId: 'ann' }, query: { limit: 5 } });
  await api.expect('GET /v1/users/{userId}/visibility', 200, { params: { userId: 'ann' } });
  await api.expect('PATCH /v1/users/{userId}/visibility', 200, { params: { userId: 'ann' }, body: { friendsListVisibility: 'friends-only' } });
  await api.expect('GET /v1/users/{userId}/friends', 404, { params: { userId: 'ann' }, query: { viewer: 'stranger' } });
  await api.expect('DELETE /v1/users/{userId}/friends/{otherUserId}', 204, { params: { userId: 'ann', otherUserId: 'ben' } });

  await api.expect('POST /v1/users/{userId}/blocks', 201, { params: { userId: 'ann' }, body: { targetSvcUserId: 'eve' } });
  await api.expect('POST /v1/users/{userId}/blocks', 200, { params: { userId: 'ann' }, body: { targetSvcUserId: 'eve' } });
  await api.expect('POST /v1/users/{userId}/friend-requests', 404, { params: { userId: 'eve' }, body: { targetSvcUserId: 'ann' } });
  await api.expect('GET /v1/users/{userId}/blocks', 200, { params: { userId: 'ann' } });
  await api.expect('DELETE /v1/users/{userId}/blocks/{otherUserId}', 204, { params: { userId: 'ann', otherUserId: 'eve' } });

  // A player's data (EXTENSIONS X7): all of the above about ann, and her groups, in one document.
  await api.expect('GET /v1/users/{userId}/export', 200, { params: { userId: 'ann' } });
  await api.expect('GET /v1/users/{userId}/export', 404, { params: { userId: 'never-seen' } });
}
