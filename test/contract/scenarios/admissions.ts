import type { World } from './world';

/** Invitations, join requests and bans: success answers, and the errors of admission SPEC names. */
export async function admissionsScenario({ api }: World, groupId: string): Promise<void> {
  const g = { params: { id: groupId } };
  const open = await api.expect('POST /v1/groups/{id}/invitations', 201, { ...g, body: { maxUses: 2, expiresIn: '7d' } });
  await api.expect('GET /v1/invitations/{code}', 200, { params: { code: open.code } });
  await api.expect('POST /v1/invitations/{code}/accept', 201, { params: { code: open.code }, body: { userId: 'dave' } });
  await api.expect('POST /v1/invitations/{code}/accept', 409, { params: { code: open.code }, body: { userId: 'dave' } });
  await api.expect('GET /v1/groups/{id}/invitations', 200, { ...g, query: { includeUsed: true, includeExpired: false } });

  const direct = await api.expect('POST /v1/groups/{id}/invitations', 201, { ...g, body: { targetUserId: 'erin', invitedByUserId: 'alice' } });
  await api.expect('GET /v1/users/{userId}/invitations', 200, { params: { userId: 'erin' }, query: { limit: 5 } });
  const full = await api.expect('POST /v1/groups', 201, { body: { kind: 'guild', name: 'Full', visibility: 'public', creatorUserId: 'alice', maxMembers: 1 } });
  await api.expect('POST /v1/groups/{id}/join', 409, { params: { id: full.id }, body: { userId: 'zed' } });
  await api.expect('POST /v1/invitations/{code}/decline', 403, { params: { code: direct.code }, body: { userId: 'mallory' } });
  await api.expect('POST /v1/invitations/{code}/decline', 204, { params: { code: direct.code } });
  await api.expect('POST /v1/invitations/{code}/decline', 410, { params: { code: direct.code } });
  await api.expect('POST /v1/invitations/{code}/accept', 410, { params: { code: direct.code }, body: { userId: 'erin' } });
  const revoked = await api.expect('POST /v1/groups/{id}/invitations', 201, { ...g, body: {} });
  await api.expect('DELETE /v1/invitations/{code}', 204, { params: { code: revoked.code } });
  await api.expect('POST /v1/groups/{id}/bulk-invite', 200, { ...g, body: { rows: [{ userId: 'frank' }, { userId: 'gina', expiresIn: '1h' }] } });

  const closed = await api.expect('POST /v1/groups', 201, { body: { kind: 'guild', name: 'Closed', visibility: 'invite-only' } });
  const c = { params: { id: closed.id } };
  await api.expect('POST /v1/groups/{id}/join', 403, { ...c, body: { userId: 'hank' } });
  const req1 = await api.expect('POST /v1/groups/{id}/join-requests', 201, { ...c, body: { userId: 'hank', message: 'hi' } });
  await api.expect('POST /v1/groups/{id}/join-requests', 409, { ...c, body: { userId: 'hank' } });
  await api.expect('GET /v1/groups/{id}/join-requests', 200, { ...c, query: { status: 'pending' } });
  await api.expect('GET /v1/users/{userId}/join-requests', 200, { params: { userId: 'hank' } });
  await api.expect('POST /v1/join-requests/{id}/approve', 200, { params: { id: req1.id } });
  await api.expect('POST /v1/join-requests/{id}/approve', 410, { params: { id: req1.id } });
  const req2 = await api.expect('POST /v1/groups/{id}/join-requests', 201, { ...c, body: { userId: 'ivy' } });
  await api.expect('POST /v1/join-requests/{id}/decline', 200, { params: { id: req2.id } });
  const req3 = await api.expect('POST /v1/groups/{id}/join-requests', 201, { ...c, body: { userId: 'jack' } });
  await api.expect('POST /v1/join-requests/{id}/cancel', 200, { params: { id: req3.id } });
  const req4 = await api.expect('POST /v1/groups/{id}/join-requests', 201, { ...c, body: { userId: 'kim' } });
  await api.expect('POST /v1/join-requests/{id}/decline', 200, { params: { id: req4.id }, body: { actorUserId: 'alice', reason: 'full' } });

  await api.expect('POST /v1/bans', 201, { body: { userId: 'mallory', reason: 'cheating', actorUserId: 'alice' } });
  await api.expect('POST /v1/groups/{id}/join', 403, { ...g, body: { userId: 'mallory', passcode: 'open-sesame' } });
  await api.expect('GET /v1/bans', 200, { query: { includeExpired: true } });
  await api.expect('GET /v1/bans/{userId}', 200, { params: { userId: 'mallory' } });
  await api.expect('DELETE /v1/bans/{userId}', 204, { params: { userId: 'mallory' } });
  await api.expect('GET /v1/bans/{userId}/history', 200, { params: { userId: 'mallory' }, query: { scope: 'game' } });
  await api.expect('POST /v1/groups/{id}/bans', 201, { ...g, body: { userId: 'dave', reason: 'spam' } });
  await api.expect('DELETE /v1/groups/{id}/bans/{userId}', 200, { params: { id: groupId, userId: 'dave' } });
  await api.expect('POST /v1/groups/{id}/join', 403, { ...g, body: { userId: 'nora' } });
  await api.expect('POST /v1/groups/{id}/join', 403, { ...g, body: { userId: 'nora', passcode: 'wrong-pass' } });
  await api.expect('POST /v1/groups/{id}/join', 409, { ...g, body: { userId: 'bob', passcode: 'open-sesame' } });
}
