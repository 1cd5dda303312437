import { http, TEST_ADMIN_TOKEN } from '../../helpers/process';
import type { Pools } from './openapi-fuzz';
import { createGame, expectStatus, type Game, type SecretLedger } from './service';

export interface Arranged {
  gameA: Game;
  gameB: Game;
  /** Real ids of game A (and a few of game B), by the name of the parameter or field they fit. */
  pools: Pools;
  /** Game A's rows, for the isolation cases. */
  a: Record<string, string>;
}

/**
 * Two games through the API; game A with one of everything (groups, members, a role, an
 * invitation, a friend request, a tag, a webhook, a ban), so that requests built from real ids reach
 * past the lookups into the code that does the work.
 */
export async function arrangeGame(base: string, secrets: SecretLedger): Promise<Arranged> {
  const gameA = await createGame(base, 'reliability A', secrets);
  const gameB = await createGame(base, 'reliability B', secrets);
  const call = async (game: Game, method: string, path: string, body: unknown, status: number) =>
    (await expectStatus(http(`${base}${path}`, { method, headers: { authorization: `Bearer ${game.key}` }, body }), status)).body;
  const passcode = 'open-sesame-passcode-1';
  secrets.add(passcode);
  const pub = await call(gameA, 'POST', '/v1/groups', { kind: 'guild', name: 'public', visibility: 'public', passcode, creatorUserId: 'alice' }, 201);
  const closed = await call(gameA, 'POST', '/v1/groups', { kind: 'guild', name: 'closed', visibility: 'invite-only' }, 201);
  const child = await call(gameA, 'POST', '/v1/groups', { kind: 'party', name: 'child', visibility: 'public' }, 201);
  await call(gameA, 'PUT', `/v1/groups/${child.id}/parent`, { parentGroupId: pub.id }, 200);
  const bob = await call(gameA, 'POST', `/v1/groups/${pub.id}/join`, { userId: 'bob', passcode }, 201);
  const role = await call(gameA, 'POST', `/v1/groups/${pub.id}/roles`, { name: 'officer', priority: 10 }, 201);
  await call(gameA, 'POST', `/v1/roles/${role.id}/permissions`, { permission: 'guild.kick' }, 200);
  await call(gameA, 'POST', `/v1/groups/${pub.id}/members/bob/roles/${role.id}`, undefined, 200);
  const invitation = await call(gameA, 'POST', `/v1/groups/${closed.id}/invitations`, { maxUses: 5 }, 201);
  const joinRequest = await call(gameA, 'POST', `/v1/groups/${closed.id}/join-requests`, { userId: 'dave', message: 'let me in' }, 201);
  const request = await call(gameA, 'POST', '/v1/users/alice/friend-requests', { targetSvcUserId: 'carol' }, 201);
  const tag = await call(gameA, 'POST', '/v1/users/alice/friend-tags', { name: 'raid' }, 201);
  const hook = await call(gameA, 'POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook' }, 201);
  secrets.add(hook.secret, hook.standardSecret);
  await call(gameA, 'POST', '/v1/bans', { userId: 'mallory', reason: 'cheating' }, 201);
  const spare = await expectStatus(
    http(`${base}/v1/admin/games/${gameA.id}/api-keys`, { method: 'POST', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } }),
    201,
  );
  secrets.add(spare.body.key);
  const bGroup = await call(gameB, 'POST', '/v1/groups', { kind: 'guild', name: 'b', visibility: 'public' }, 201);

  const users = ['alice', 'bob', 'carol', 'mallory', 'dave'];
  const groups = [pub.id, closed.id, child.id];
  const pools: Pools = {
    'id:groups': [...groups, bGroup.id],
    'id:roles': [role.id],
    'id:members': [bob.id],
    'id:friend-requests': [request.request?.id ?? request.id],
    'id:friend-tags': [tag.id],
    'id:webhooks': [hook.id],
    'id:join-requests': [joinRequest.id],
    groupId: groups,
    parentGroupId: groups,
    roleId: [role.id],
    defaultRoleId: [role.id],
    tagIds: [tag.id],
    code: [invitation.code],
    keyId: [spare.body.id],
    gameId: [gameA.id, gameB.id],
    svcUserId: [bob.svcUserId],
    permission: ['guild.kick', 'chat.mute'],
    passcode: [passcode],
    url: ['http://127.0.0.1:9/hook', 'https://example.com/hook'],
  };
  for (const name of ['userId', 'otherUserId', 'externalUserId', 'targetUserId', 'targetSvcUserId', 'actorUserId', 'viewer', 'viewerUserId', 'creatorUserId', 'userIds']) pools[name] = users;
  return {
    gameA,
    gameB,
    pools,
    a: { group: pub.id, closed: closed.id, child: child.id, role: role.id, member: bob.id, code: invitation.code, joinRequest: joinRequest.id, friendRequest: request.request?.id, tag: tag.id, webhook: hook.id },
  };
}
