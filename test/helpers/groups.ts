/** Group and membership requests through the public API, for arranging the group e2e tests. */
import type { TestApp } from './test-app';

type Auth = Record<string, string>;

/** POST /v1/groups with exactly `body`; throws unless 201 and returns the Group body. */
export async function postGroup<T = { id: string }>(t: TestApp, auth: Auth, body: Record<string, unknown>): Promise<T> {
  const r = await t.http.post('/v1/groups').set(auth).send(body);
  if (r.status !== 201) throw new Error(`create group: ${r.status} ${r.text}`);
  return r.body;
}

export const postJoin = (t: TestApp, auth: Auth, groupId: string, body: object) => t.http.post(`/v1/groups/${groupId}/join`).set(auth).send(body);
export const postLeave = (t: TestApp, auth: Auth, groupId: string, body: object) => t.http.post(`/v1/groups/${groupId}/leave`).set(auth).send(body);

/** Joins `userId` to a group; throws unless 201 and returns the Member body. */
export async function joinOk<T>(t: TestApp, auth: Auth, groupId: string, userId: string): Promise<T> {
  const r = await postJoin(t, auth, groupId, { userId });
  if (r.status !== 201) throw new Error(`join: ${r.status} ${r.text}`);
  return r.body;
}
