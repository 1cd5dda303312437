import type { TestApp } from './test-app';

type Headers = Record<string, string>;
type Res = { status: number; text: string; body: unknown };

const enc = encodeURIComponent;

async function ok<T>(p: PromiseLike<Res>, status: number): Promise<T> {
  const r = await p;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status} ${r.text}`);
  return r.body as T;
}

/** The permission model arranged through the API of one game (roles, grants, assignments, overrides). */
export function permissionApi(t: TestApp, auth: Headers) {
  return {
    group: (body: Record<string, unknown> = {}) =>
      ok<{ id: string }>(t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'G', visibility: 'public', ...body }), 201).then((g) => g.id),
    join: (groupId: string, userId: string) => ok(t.http.post(`/v1/groups/${groupId}/join`).set(auth).send({ userId }), 201),
    leave: (groupId: string, userId: string) => ok(t.http.post(`/v1/groups/${groupId}/leave`).set(auth).send({ userId }), 200),
    kick: (groupId: string, userId: string) => ok(t.http.post(`/v1/groups/${groupId}/members/${enc(userId)}/kick`).set(auth), 200),
    role: (groupId: string, name: string, priority: number) =>
      ok<{ id: string }>(t.http.post(`/v1/groups/${groupId}/roles`).set(auth).send({ name, priority }), 201).then((r) => r.id),
    grant: (roleId: string, permission: string) => ok(t.http.post(`/v1/roles/${roleId}/permissions`).set(auth).send({ permission }), 200),
    assign: (groupId: string, userId: string, roleId: string, expiry: Record<string, string> = {}) =>
      ok<{ roles: string[]; roleGrants: { roleId: string; expiresAt: string | null }[] }>(
        t.http.post(`/v1/groups/${groupId}/members/${enc(userId)}/roles/${roleId}`).set(auth).send(expiry),
        200,
      ),
    override: (groupId: string, userId: string, permission: string, allowed: boolean, expiry: Record<string, string> = {}) =>
      ok<{ allowed: boolean; expiresAt: string | null }>(
        t.http.post(`/v1/groups/${groupId}/members/${enc(userId)}/permissions/${enc(permission)}`).set(auth).send({ allowed, ...expiry }),
        200,
      ),
    check: (userId: string, groupId: string, permission: string) =>
      ok<Record<string, unknown>>(t.http.get('/v1/permissions/check').set(auth).query({ userId, groupId, permission }), 200),
    batch: (checks: { userId: string; groupId: string; permission: string }[]) =>
      ok<{ results: Record<string, unknown>[] }>(t.http.post('/v1/permissions/check-batch').set(auth).send({ checks }), 200).then((b) => b.results),
    effective: (groupId: string, userId: string) =>
      ok<{ permissions: { permission: string; source: string; viaRoleId: string | null; expiresAt: string | null }[] }>(
        t.http.get(`/v1/groups/${groupId}/members/${enc(userId)}/permissions`).set(auth),
        200,
      ).then((b) => b.permissions),
    /** Every page of the user's groups allowing the key, as ids. */
    async groupsAllowing(userId: string, permission: string, limit = 100, kind?: string): Promise<string[]> {
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await ok<{ items: { id: string }[]; nextCursor: string | null }>(
          t.http.get(`/v1/users/${enc(userId)}/groups`).set(auth).query({ permission, limit, ...(cursor ? { cursor } : {}), ...(kind ? { kind } : {}) }),
          200,
        );
        if (page.nextCursor !== null && page.items.length < limit) throw new Error('a page short of its limit that is not the last');
        ids.push(...page.items.map((g) => g.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return ids;
    },
    /** Every page of the group's members allowed the key, as user ids. */
    async membersAllowed(groupId: string, permission: string, limit = 100): Promise<string[]> {
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await ok<{ items: { userId: string; status: string }[]; nextCursor: string | null }>(
          t.http.get(`/v1/groups/${groupId}/members`).set(auth).query({ permission, limit, ...(cursor ? { cursor } : {}) }),
          200,
        );
        ids.push(...page.items.map((m) => m.userId));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return ids;
    },
  };
}

/** Waits until the database clock is past `at` (expiry is judged by the database's now()). */
export async function untilPast(t: TestApp, at: string): Promise<void> {
  for (;;) {
    const [{ past }] = await t.db.query<{ past: boolean }>('SELECT now() > $1::timestamptz AS past', [at]);
    if (past && Date.now() > Date.parse(at)) return;
    await new Promise((r) => setTimeout(r, Math.max(10, Math.min(200, Date.parse(at) - Date.now()))));
  }
}
