import { http } from '../../helpers/process';
import type { Arranged } from './arrange';
import { expectStatus } from './service';

/**
 * A second row (at least) in every paged list that arrangeGame fills with one, so that a page of
 * one has a nextCursor to forge from (cursors.rel-spec.ts). Owners are users and groups of the
 * pools, since the pages are found by filling path parameters from them.
 */
export async function arrangeSecondRows(base: string, world: Arranged): Promise<void> {
  const call = async (method: string, path: string, body?: unknown, status = 201) =>
    (await expectStatus(http(`${base}${path}`, { method, headers: { authorization: `Bearer ${world.gameA.key}` }, body }), status)).body;
  const { group, closed } = world.a;
  const child = await call('POST', '/v1/groups', { kind: 'party', name: 'second child', visibility: 'public' });
  await call('PUT', `/v1/groups/${child.id}/parent`, { parentGroupId: group }, 200);
  // alice's second membership (the admin's page of a user pages them).
  const closed2 = await call('POST', '/v1/groups', { kind: 'guild', name: 'second closed', visibility: 'invite-only', creatorUserId: 'alice' });
  for (const g of [closed, closed2.id]) await call('POST', `/v1/groups/${g}/invitations`, { targetUserId: 'carol' });
  // Two groups where alice holds the pools' first permission (a page of the groups allowing a key).
  for (const g of [world.a.group, closed2.id]) await call('POST', `/v1/groups/${g}/members/alice/permissions/${world.pools.permission[0]}`, { allowed: true }, 200);
  await call('POST', `/v1/groups/${closed2.id}/join-requests`, { userId: 'dave' });
  await call('POST', `/v1/groups/${closed}/join-requests`, { userId: 'bob' });
  // mallory's history: set, lifted, set again; and a second ban in force.
  await call('DELETE', '/v1/bans/mallory', undefined, 204);
  await call('POST', '/v1/bans', { userId: 'mallory' });
  await call('POST', '/v1/bans', { userId: 'trent' });
  await call('POST', `/v1/friend-requests/${world.a.friendRequest}/accept`, undefined, 200);
  const toBob = await call('POST', '/v1/users/alice/friend-requests', { targetSvcUserId: 'bob' });
  await call('POST', `/v1/friend-requests/${toBob.request?.id ?? toBob.id}/accept`, undefined, 200);
  // bob's blocks, not alice's: a block ends a friendship.
  for (const other of ['mallory', 'dave']) await call('POST', '/v1/users/bob/blocks', { targetSvcUserId: other });
  // Three reports on two subjects: the operators' list and their queue.
  for (const [reporterUserId, id] of [['alice', 'mallory'], ['bob', 'mallory'], ['alice', 'trent']]) {
    await call('POST', '/v1/reports', { reporterUserId, subject: { type: 'user', id }, category: 'cheating' });
  }
  for (const u of ['zed', 'zoe']) await call('DELETE', `/v1/users/${u}`, undefined, 200);
  // The first endpoint already has deliveries: every event above.
  await call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/second' });
}
