import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { journalEvents } from './journal';
import { asAdmin, bearer, newGame, type TestApp } from './test-app';

/** A unique external user id. */
export const uid = (prefix = 'u') => `${prefix}_${randomBytes(5).toString('hex')}`;

const enc = encodeURIComponent;
export const U = (userId: string) => `/v1/users/${enc(userId)}`;

/** A game with its key and a client bound to it, optionally with a partial config applied. */
export interface FriendsGame {
  gameId: string;
  key: string;
  get(path: string): Promise<Response>;
  post(path: string, body?: object): Promise<Response>;
  patch(path: string, body: object): Promise<Response>;
  put(path: string, body: object): Promise<Response>;
  del(path: string): Promise<Response>;
}

export async function friendsGame(t: TestApp, config?: Record<string, unknown>, networkId?: string): Promise<FriendsGame> {
  const { gameId, key } = await newGame(t, 'friends');
  if (config || networkId) await patchGameConfig(t, gameId, { ...(config ? { config } : {}), ...(networkId ? { networkId } : {}) });
  return friendsClient(t, gameId, key);
}

/** A client for a game's key, sending through the instance `t`. */
export function friendsClient(t: TestApp, gameId: string, key: string): FriendsGame {
  const auth = bearer(key);
  return {
    gameId,
    key,
    get: (path) => t.http.get(path).set(auth),
    post: (path, body) => (body === undefined ? t.http.post(path).set(auth) : t.http.post(path).set(auth).send(body)),
    patch: (path, body) => t.http.patch(path).set(auth).send(body),
    put: (path, body) => t.http.put(path).set(auth).send(body),
    del: (path) => t.http.delete(path).set(auth),
  };
}

/** PATCH /v1/admin/games/:id/config with `body`; throws unless 200. */
export async function patchGameConfig(t: TestApp, gameId: string, body: object): Promise<void> {
  const r = await t.http.patch(`/v1/admin/games/${gameId}/config`).set(asAdmin).send(body);
  if (r.status !== 200) throw new Error(`config: ${r.status} ${r.text}`);
}

export const AUTO = { friends: { requestsRequired: false } };

export const send = (g: FriendsGame, from: string, to: string) => g.post(`${U(from)}/friend-requests`, { targetSvcUserId: to });

/** Sends a request that must come back pending; returns its id. */
export async function sendPending(g: FriendsGame, from: string, to: string): Promise<string> {
  const r = await send(g, from, to);
  if (r.status !== 201 || r.body.status !== 'pending') throw new Error(`send ${from} -> ${to}: ${r.status} ${r.text}`);
  return r.body.request.id as string;
}

export const accept = (g: FriendsGame, id: string) => g.post(`/v1/friend-requests/${enc(id)}/accept`);
export const decline = (g: FriendsGame, id: string) => g.post(`/v1/friend-requests/${enc(id)}/decline`);
export const cancel = (g: FriendsGame, id: string) => g.del(`/v1/friend-requests/${enc(id)}`);
export const block = (g: FriendsGame, by: string, other: string) => g.post(`${U(by)}/blocks`, { targetSvcUserId: other });
export const unblock = (g: FriendsGame, by: string, other: string) => g.del(`${U(by)}/blocks/${enc(other)}`);

/** Makes two users friends in either mode. */
export async function befriend(g: FriendsGame, a: string, b: string): Promise<void> {
  const r = await send(g, a, b);
  if (r.status !== 201) throw new Error(`send ${a} -> ${b}: ${r.status} ${r.text}`);
  if (r.body.status === 'pending') {
    const acc = await accept(g, r.body.request.id);
    if (acc.status !== 200) throw new Error(`accept: ${acc.status} ${acc.text}`);
  }
}

/** Creates a user's identity (blocking creates both parties) and leaves no relationship behind. */
export async function touch(g: FriendsGame, userId: string): Promise<void> {
  const other = uid('touch');
  if ((await block(g, userId, other)).status !== 201) throw new Error('touch: block failed');
  if ((await unblock(g, userId, other)).status !== 204) throw new Error('touch: unblock failed');
}

export async function state(g: FriendsGame, viewer: string, other: string): Promise<{ state: string; since: string | null }> {
  const r = await g.get(`${U(viewer)}/friends/${enc(other)}/relationship`);
  if (r.status !== 200) throw new Error(`relationship: ${r.status} ${r.text}`);
  return r.body;
}

/** External ids of a user's friends (first page of up to 100). */
export async function friendIds(g: FriendsGame, userId: string, query = ''): Promise<string[]> {
  const r = await g.get(`${U(userId)}/friends?limit=100${query}`);
  if (r.status !== 200) throw new Error(`friends: ${r.status} ${r.text}`);
  return r.body.items.map((f: { friendSvcUserId: string }) => f.friendSvcUserId);
}

/** The internal id of an external id in a game. */
export async function svcId(t: TestApp, gameId: string, externalId: string): Promise<string> {
  const [row] = await t.db.query<{ user_id: string }>('SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = $2', [
    gameId,
    externalId,
  ]);
  if (!row) throw new Error(`no identity for ${externalId}`);
  return row.user_id;
}

/** The stored bodies of one event type in a game, oldest first. */
export function eventsOf(t: TestApp, gameId: string, type: string): Promise<Record<string, unknown>[]> {
  return t.db
    .query<{ body: Record<string, unknown> }>(`SELECT body FROM ${journalEvents()} WHERE game_id = $1 AND type = $2 ORDER BY created_at, id`, [
      gameId,
      type,
    ])
    .then((rows) => rows.map((r) => r.body));
}

/** Rows of user_relationships between two external users of a game, by type. */
export async function pairRows(t: TestApp, gameId: string, a: string, b: string): Promise<{ id: string; type: string; user_external_id: string }[]> {
  return t.db.query(
    `SELECT id, type, user_external_id, created_at, responded_at FROM user_relationships
     WHERE game_id = $1 AND ((user_external_id = $2 AND other_external_id = $3) OR (user_external_id = $3 AND other_external_id = $2))
     ORDER BY type, user_external_id`,
    [gameId, a, b],
  );
}
