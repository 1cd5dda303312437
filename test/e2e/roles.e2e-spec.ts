import { randomUUID } from 'node:crypto';
import { expectError } from '../helpers/errors';
import { groupAudits, groupOutbox } from '../helpers/group-rows';
import { joinOk, postGroup } from '../helpers/groups';
import { seqUid as uid } from '../helpers/ids';
import { ISO_MS, UUID, type Member } from '../helpers/shapes';
import { asAdmin, authedGame, bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * SPEC §2 Role / Member permission override, §4 Roles, §7, §8 (role name, color, permission key);
 * DECISIONS §1 (overrides), §2 (member role assign/remove), §17 (optional bodies), §20
 * (role_group_mismatch before idempotency). The admin permission catalog route (shape not shown in
 * SPEC §4) answers `{ items: [{ permission, createdAt }] }` sorted by permission.
 */

interface Role {
  id: string;
  groupId: string;
  name: string;
  priority: number;
  color: string | null;
  isDefault: boolean;
  permissions: string[];
  createdAt: string;
}

/** "id descending" is the byte order of the lowercase text (DECISIONS §19). */
const byPriorityDescIdDesc = (a: Role, b: Role) => b.priority - a.priority || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

describe('roles, role permissions, member roles and permission overrides', () => {
  let t: TestApp;
  let gameId: string;
  let auth: Record<string, string>;
  let otherGameId: string;
  let otherAuth: Record<string, string>;

  const enc = encodeURIComponent;

  beforeAll(async () => {
    t = await startTestApp();
    ({ gameId, auth } = await authedGame(t, 'roles'));
    ({ gameId: otherGameId, auth: otherAuth } = await authedGame(t, 'roles other'));
  });
  afterAll(() => t.close());

  function createGroup(body: Record<string, unknown> = {}, as = auth): Promise<{ id: string }> {
    return postGroup(t, as, { kind: 'guild', name: 'G', visibility: 'public', ...body });
  }
  const postRole = (groupId: string, body: unknown, as = auth) => t.http.post(`/v1/groups/${groupId}/roles`).set(as).send(body as object);
  const patchRole = (roleId: string, body: unknown, as = auth) => t.http.patch(`/v1/roles/${roleId}`).set(as).send(body as object);
  async function createRole(groupId: string, fields: Record<string, unknown> = {}): Promise<Role> {
    const r = await postRole(groupId, { name: uid('role'), priority: 0, ...fields });
    if (r.status !== 201) throw new Error(`create role: ${r.status} ${r.text}`);
    return r.body;
  }
  async function getRole(roleId: string): Promise<Role> {
    const r = await t.http.get(`/v1/roles/${roleId}`).set(auth);
    expect(r.status).toBe(200);
    return r.body;
  }
  async function listRoles(groupId: string): Promise<Role[]> {
    const r = await t.http.get(`/v1/groups/${groupId}/roles`).set(auth);
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    return r.body;
  }
  const grantReq = (roleId: string, body: unknown, as = auth) => t.http.post(`/v1/roles/${roleId}/permissions`).set(as).send(body as object);
  const revokeReq = (roleId: string, permission: string, as = auth) => t.http.delete(`/v1/roles/${roleId}/permissions/${enc(permission)}`).set(as);
  async function grant(roleId: string, permission: string): Promise<Role> {
    const r = await grantReq(roleId, { permission });
    expect(r.status).toBe(200);
    return r.body;
  }
  async function revoke(roleId: string, permission: string): Promise<Role> {
    const r = await revokeReq(roleId, permission);
    expect(r.status).toBe(200);
    return r.body;
  }
  function join(groupId: string, userId = uid()): Promise<Member> {
    return joinOk(t, auth, groupId, userId);
  }
  async function groupWithMember(): Promise<{ groupId: string; userId: string; member: Member }> {
    const g = await createGroup();
    const userId = uid();
    return { groupId: g.id, userId, member: await join(g.id, userId) };
  }
  const rolePath = (groupId: string, userId: string, roleId: string) => `/v1/groups/${groupId}/members/${enc(userId)}/roles/${roleId}`;
  const assignReq = (groupId: string, userId: string, roleId: string, as = auth) => t.http.post(rolePath(groupId, userId, roleId)).set(as);
  const removeReq = (groupId: string, userId: string, roleId: string, as = auth) => t.http.delete(rolePath(groupId, userId, roleId)).set(as);
  const overridePath = (groupId: string, userId: string, permission: string) =>
    `/v1/groups/${groupId}/members/${enc(userId)}/permissions/${enc(permission)}`;
  async function getMember(memberId: string): Promise<Member> {
    const r = await t.http.get(`/v1/members/${memberId}`).set(auth);
    expect(r.status).toBe(200);
    return r.body;
  }
  async function check(userId: string, groupId: string, permission: string) {
    const r = await t.http.get('/v1/permissions/check').query({ userId, groupId, permission }).set(auth);
    expect(r.status).toBe(200);
    return r.body;
  }
  const audits = (groupId: string, action: string) => groupAudits(t, groupId, action);
  const outbox = (groupId: string, type: string) => groupOutbox(t, groupId, type);
  async function catalog(game = gameId): Promise<{ permission: string; createdAt: string }[]> {
    const r = await t.http.get(`/v1/admin/games/${game}/permissions`).set(asAdmin);
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body.items)).toBe(true);
    return r.body.items;
  }

  // ---------------------------------------------------------------------------------------------
  describe('POST /v1/groups/:id/roles', () => {
    it('creates a role: 201 full Role, readable back, audited role.created with the snapshot payload', async () => {
      const g = await createGroup();
      const name = uid('officer');
      const r = await postRole(g.id, { name, priority: 7 });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: expect.stringMatching(UUID),
        groupId: g.id,
        name,
        priority: 7,
        color: null,
        isDefault: false,
        permissions: [],
        createdAt: expect.stringMatching(ISO_MS),
      });
      expect(Math.abs(Date.parse(r.body.createdAt) - Date.now())).toBeLessThan(60_000);
      expect(await getRole(r.body.id)).toEqual(r.body);
      const rows = await audits(g.id, 'role.created');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ game_id: gameId, group_id: g.id, actor_user_id: null, target_id: r.body.id });
      expect(rows[0].payload).toEqual({ name, priority: 7, color: null, isDefault: false });
    });

    it('stores color and isDefault and echoes them; negative priority is allowed', async () => {
      const g = await createGroup();
      const r = await postRole(g.id, { name: uid('r'), priority: -25, color: '#a1b2c3', isDefault: true });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ priority: -25, color: '#a1b2c3', isDefault: true });
      expect(await getRole(r.body.id)).toMatchObject({ priority: -25, color: '#a1b2c3', isDefault: true });
      expect((await audits(g.id, 'role.created'))[0].payload).toEqual({ name: r.body.name, priority: -25, color: '#a1b2c3', isDefault: true });
    });

    it.each<[string, Record<string, unknown>]>([
      ['name of 1 char', { name: 'x' }],
      ['name of 64 chars', { name: 'n'.repeat(64) }],
      ['explicit null color', { color: null }],
      ['priority 0', { priority: 0 }],
      ['large priority', { priority: 2_000_000_000 }],
      ['large negative priority', { priority: -2_000_000_000 }],
    ])('accepts %s', async (_label, fields) => {
      const g = await createGroup();
      const r = await postRole(g.id, { name: uid('r'), priority: 1, ...fields });
      expect(r.status).toBe(201);
      for (const [k, v] of Object.entries(fields)) expect(r.body[k]).toEqual(v);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['empty name', { name: '' }, 'name'],
      ['name of 65 chars', { name: 'n'.repeat(65) }, 'name'],
      ['missing name', { name: undefined }, 'name'],
      ['non-string name', { name: 42 }, 'name'],
      ['null name', { name: null }, 'name'],
      ['missing priority', { priority: undefined }, 'priority'],
      ['fractional priority', { priority: 1.5 }, 'priority'],
      ['string priority', { priority: '5' }, 'priority'],
      ['null priority', { priority: null }, 'priority'],
      ['priority beyond 32 bits', { priority: 2 ** 31 }, 'priority'],
      ['color #fff', { color: '#fff' }, 'color'],
      ['color without #', { color: 'a1b2c3' }, 'color'],
      ['color of 5 hex digits', { color: '#a1b2c' }, 'color'],
      ['color of 7 hex digits', { color: '#a1b2c3d' }, 'color'],
      ['color with a non-hex digit', { color: '#g1b2c3' }, 'color'],
      ['color name', { color: 'red' }, 'color'],
      ['empty color', { color: '' }, 'color'],
      ['numeric color', { color: 123456 }, 'color'],
      ['non-boolean isDefault', { isDefault: 'yes' }, 'isDefault'],
    ])('refuses %s with 400 naming the field, creating nothing', async (_label, fields, field) => {
      const g = await createGroup();
      const body: Record<string, unknown> = { name: uid('r'), priority: 1, ...fields };
      for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
      const r = await postRole(g.id, body);
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toContain(field);
      expect(await listRoles(g.id)).toEqual([]);
      expect(await audits(g.id, 'role.created')).toHaveLength(0);
    });

    it('a name holding a NUL character is a client mistake: 400 naming name, never a 500', async () => {
      const g = await createGroup();
      const r = await postRole(g.id, { name: 'bad\u0000name', priority: 1 });
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toContain('name');
      expect(await listRoles(g.id)).toEqual([]);
    });

    it('malformed JSON and a non-object body are 400', async () => {
      const g = await createGroup();
      const bad = await t.http.post(`/v1/groups/${g.id}/roles`).set(auth).set('content-type', 'application/json').send('{"name": "x", "priority": ');
      expectError(bad, 400, 'bad_request');
      expectError(await postRole(g.id, [1, 2]), 400, 'bad_request');
      expect(await listRoles(g.id)).toEqual([]);
    });

    it('isDefault is a per-role flag: several roles may carry it and Group.defaultRoleId is untouched', async () => {
      const g = await createGroup();
      const a = await createRole(g.id, { isDefault: true });
      const b = await createRole(g.id, { isDefault: true });
      const c = await createRole(g.id);
      const byId = new Map((await listRoles(g.id)).map((r) => [r.id, r.isDefault]));
      expect(Object.fromEntries(byId)).toEqual({ [a.id]: true, [b.id]: true, [c.id]: false });
      const group = await t.http.get(`/v1/groups/${g.id}`).set(auth);
      expect(group.body.defaultRoleId).toBeNull();
    });

    it('a name taken in the group is 409 role_name_taken; the same name in another group is fine', async () => {
      const g = await createGroup();
      const name = uid('dup');
      await createRole(g.id, { name, priority: 1 });
      expectError(await postRole(g.id, { name, priority: 2 }), 409, 'role_name_taken');
      expect((await listRoles(g.id)).map((r) => r.name)).toEqual([name]);
      expect(await audits(g.id, 'role.created')).toHaveLength(1);
      const other = await createGroup();
      expect((await postRole(other.id, { name, priority: 2 })).status).toBe(201);
    });

    it('two concurrent creates with the same name: exactly one 201 and one 409 role_name_taken', async () => {
      for (let round = 0; round < 5; round++) {
        const g = await createGroup();
        const name = uid('race');
        const results = await Promise.all([postRole(g.id, { name, priority: 1 }), postRole(g.id, { name, priority: 2 })]);
        expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
        expectError(results.find((r) => r.status === 409)!, 409, 'role_name_taken');
        const roles = await listRoles(g.id);
        expect(roles).toHaveLength(1);
        expect(roles[0].id).toBe(results.find((r) => r.status === 201)!.body.id);
        expect(await audits(g.id, 'role.created')).toHaveLength(1);
      }
    });

    it('unknown, malformed, soft-deleted or other-game group is 404; no key is 401', async () => {
      expectError(await postRole(randomUUID(), { name: 'x', priority: 0 }), 404, 'not_found');
      expectError(await postRole('not-a-uuid', { name: 'x', priority: 0 }), 404, 'not_found');
      const deleted = await createGroup();
      expect((await t.http.delete(`/v1/groups/${deleted.id}`).set(auth)).status).toBe(200);
      expectError(await postRole(deleted.id, { name: 'x', priority: 0 }), 404, 'not_found');
      const theirs = await createGroup({}, otherAuth);
      expectError(await postRole(theirs.id, { name: 'x', priority: 0 }), 404, 'not_found');
      const anon = await t.http.post(`/v1/groups/${theirs.id}/roles`).send({ name: 'x', priority: 0 });
      expectError(anon, 401, 'invalid_api_key');
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('GET /v1/groups/:id/roles and GET /v1/roles/:id', () => {
    it('lists a bare array ordered by priority descending, then id descending', async () => {
      const g = await createGroup();
      const created: Role[] = [];
      for (const priority of [3, -2, 10, 3, 0, 3, -2]) created.push(await createRole(g.id, { priority }));
      const list = await listRoles(g.id);
      expect(list.map((r) => r.id)).toEqual([...created].sort(byPriorityDescIdDesc).map((r) => r.id));
      expect(list).toEqual(expect.arrayContaining(created));
    });

    it('orders equal priorities by id descending even when ids arrive out of creation order', async () => {
      const g = await createGroup();
      const a = await createRole(g.id, { priority: 5 });
      const b = await createRole(g.id, { priority: 5 });
      // Swap the ids so the later-created role has the smaller id: the order must follow the ids.
      const small = '00000000-0000-7000-8000-000000000001';
      await t.db.query('UPDATE roles SET id = $1 WHERE id = $2', [small, b.id]);
      expect((await listRoles(g.id)).map((r) => r.id)).toEqual([a.id, small]);
    });

    it('a group without roles lists []', async () => {
      const g = await createGroup();
      expect(await listRoles(g.id)).toEqual([]);
    });

    it('the list of an unknown, soft-deleted or other-game group is 404', async () => {
      expectError(await t.http.get(`/v1/groups/${randomUUID()}/roles`).set(auth), 404, 'not_found');
      const theirs = await createGroup({}, otherAuth);
      expect((await postRole(theirs.id, { name: 'theirs', priority: 0 }, otherAuth)).status).toBe(201);
      expectError(await t.http.get(`/v1/groups/${theirs.id}/roles`).set(auth), 404, 'not_found');
      const g = await createGroup();
      await createRole(g.id);
      expect((await t.http.delete(`/v1/groups/${g.id}`).set(auth)).status).toBe(200);
      expectError(await t.http.get(`/v1/groups/${g.id}/roles`).set(auth), 404, 'not_found');
    });

    it('a role is 404 when unknown, malformed, of another game, or its group is soft-deleted', async () => {
      expectError(await t.http.get(`/v1/roles/${randomUUID()}`).set(auth), 404, 'not_found');
      expectError(await t.http.get('/v1/roles/not-a-uuid').set(auth), 404, 'not_found');
      const g = await createGroup();
      const role = await createRole(g.id);
      expectError(await t.http.get(`/v1/roles/${role.id}`).set(otherAuth), 404, 'not_found');
      expect((await t.http.delete(`/v1/groups/${g.id}`).set(auth)).status).toBe(200);
      expectError(await t.http.get(`/v1/roles/${role.id}`).set(auth), 404, 'not_found');
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('PATCH /v1/roles/:id', () => {
    it('writes a per-field diff: role.updated holds only the changed keys', async () => {
      const g = await createGroup();
      const n1 = uid('n');
      const n2 = uid('n');
      const role = await createRole(g.id, { name: n1, priority: 3, color: '#123456' });
      const r = await patchRole(role.id, { name: n2, priority: 3, color: '#123456' });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ ...role, name: n2 });
      expect(await getRole(role.id)).toEqual({ ...role, name: n2 });
      const rows = await audits(g.id, 'role.updated');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ target_id: role.id, actor_user_id: null });
      expect(rows[0].payload).toEqual({ before: { name: n1 }, after: { name: n2 } });
    });

    it('diffs several fields at once and clears color with null', async () => {
      const g = await createGroup();
      const role = await createRole(g.id, { priority: 1, color: '#abcdef' });
      const r = await patchRole(role.id, { priority: -7, isDefault: true, color: null });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ ...role, priority: -7, isDefault: true, color: null });
      const rows = await audits(g.id, 'role.updated');
      expect(rows).toHaveLength(1);
      expect(rows[0].payload).toEqual({
        before: { priority: 1, isDefault: false, color: '#abcdef' },
        after: { priority: -7, isDefault: true, color: null },
      });
    });

    it('a no-op returns 200 with the unchanged role and writes no audit and no event', async () => {
      const g = await createGroup();
      const role = await createRole(g.id, { priority: 5, color: '#111111' });
      const eventsBefore = (await outbox(g.id, 'role.changed')).length;
      const r = await patchRole(role.id, { name: role.name, priority: 5, color: '#111111', isDefault: false });
      expect(r.status).toBe(200);
      expect(r.body).toEqual(role);
      const nullNoop = await createRole(g.id);
      expect((await patchRole(nullNoop.id, { color: null })).status).toBe(200);
      expect(await audits(g.id, 'role.updated')).toHaveLength(0);
      expect(await outbox(g.id, 'role.changed')).toHaveLength(eventsBefore + 1); // + the second create
    });

    it.each<[string, unknown]>([
      ['an empty body', {}],
      ['only unknown keys', { foo: 1 }],
      ['a name of 65 chars', { name: 'x'.repeat(65) }],
      ['an empty name', { name: '' }],
      ['a null name', { name: null }],
      ['a fractional priority', { priority: 2.5 }],
      ['a null priority', { priority: null }],
      ['a malformed color', { color: '#12345' }],
      ['a color name', { color: 'blue' }],
      ['a null isDefault', { isDefault: null }],
      ['a string isDefault', { isDefault: 'true' }],
    ])('%s is 400 and changes nothing', async (_label, body) => {
      const g = await createGroup();
      const role = await createRole(g.id, { color: '#010203' });
      expectError(await patchRole(role.id, body), 400, 'bad_request');
      expect(await getRole(role.id)).toEqual(role);
      expect(await audits(g.id, 'role.updated')).toHaveLength(0);
    });

    it('a name of 64 chars is accepted', async () => {
      const g = await createGroup();
      const role = await createRole(g.id);
      const r = await patchRole(role.id, { name: 'y'.repeat(64) });
      expect(r.status).toBe(200);
      expect(r.body.name).toBe('y'.repeat(64));
    });

    it('renaming onto another role of the group is 409 role_name_taken; nothing changes', async () => {
      const g = await createGroup();
      const r1 = await createRole(g.id);
      const r2 = await createRole(g.id);
      expectError(await patchRole(r2.id, { name: r1.name, priority: 99 }), 409, 'role_name_taken');
      expect(await getRole(r2.id)).toEqual(r2);
      expect(await audits(g.id, 'role.updated')).toHaveLength(0);
      // a name used in another group is free
      const other = await createGroup();
      const r3 = await createRole(other.id);
      expect((await patchRole(r3.id, { name: r1.name })).status).toBe(200);
    });

    it('two concurrent renames onto the same free name: one 200 and one 409', async () => {
      const g = await createGroup();
      const a = await createRole(g.id);
      const b = await createRole(g.id);
      const name = uid('wanted');
      const results = await Promise.all([patchRole(a.id, { name }), patchRole(b.id, { name })]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      expectError(results.find((r) => r.status === 409)!, 409, 'role_name_taken');
      expect((await listRoles(g.id)).filter((r) => r.name === name)).toHaveLength(1);
      expect(await audits(g.id, 'role.updated')).toHaveLength(1);
    });

    it('unknown, malformed, other-game or soft-deleted-group role is 404', async () => {
      expectError(await patchRole(randomUUID(), { priority: 1 }), 404, 'not_found');
      expectError(await patchRole('nope', { priority: 1 }), 404, 'not_found');
      const g = await createGroup();
      const role = await createRole(g.id);
      expectError(await patchRole(role.id, { priority: 99 }, otherAuth), 404, 'not_found');
      expect((await getRole(role.id)).priority).toBe(0);
      expect((await t.http.delete(`/v1/groups/${g.id}`).set(auth)).status).toBe(200);
      expectError(await patchRole(role.id, { priority: 99 }), 404, 'not_found');
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('DELETE /v1/roles/:id', () => {
    it('204, gone from read and list, its grants removed, audited role.deleted with a snapshot', async () => {
      const g = await createGroup();
      const keep = await createRole(g.id);
      const name = uid('gone');
      const role = await createRole(g.id, { name, priority: 42, color: '#c0ffee', isDefault: true });
      await grant(role.id, 'p.one');
      const r = await t.http.delete(`/v1/roles/${role.id}`).set(auth);
      expect(r.status).toBe(204);
      expect(r.text).toBe('');
      expectError(await t.http.get(`/v1/roles/${role.id}`).set(auth), 404, 'not_found');
      expect((await listRoles(g.id)).map((x) => x.id)).toEqual([keep.id]);
      expect(await t.db.query('SELECT 1 FROM role_permissions WHERE role_id = $1', [role.id])).toHaveLength(0);
      const rows = await audits(g.id, 'role.deleted');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ target_id: role.id, actor_user_id: null });
      expect(rows[0].payload).toEqual({ name, priority: 42, color: '#c0ffee', isDefault: true });
      expectError(await t.http.delete(`/v1/roles/${role.id}`).set(auth), 404, 'not_found');
      expect(await audits(g.id, 'role.deleted')).toHaveLength(1);
    });

    it('a role held by a member is 409 role_has_members, also when the holder has left or was kicked', async () => {
      const { groupId, userId } = await groupWithMember();
      const role = await createRole(groupId);
      expect((await assignReq(groupId, userId, role.id)).status).toBe(200);
      expectError(await t.http.delete(`/v1/roles/${role.id}`).set(auth), 409, 'role_has_members');
      expect((await t.http.post(`/v1/groups/${groupId}/leave`).set(auth).send({ userId })).status).toBe(200);
      expectError(await t.http.delete(`/v1/roles/${role.id}`).set(auth), 409, 'role_has_members');
      expect((await getRole(role.id)).id).toBe(role.id);
      expect(await audits(groupId, 'role.deleted')).toHaveLength(0);
      // once the assignment is removed the role can go
      expect((await removeReq(groupId, userId, role.id)).status).toBe(200);
      expect((await t.http.delete(`/v1/roles/${role.id}`).set(auth)).status).toBe(204);
    });

    it('a concurrent assign and delete of one role settle cleanly: (200, 409) or (404, 204), never a 500', async () => {
      const { groupId, userId, member } = await groupWithMember();
      const outcomes = new Set<string>();
      for (let round = 0; round < 10; round++) {
        const role = await createRole(groupId);
        const [a, d] = await Promise.all([assignReq(groupId, userId, role.id), t.http.delete(`/v1/roles/${role.id}`).set(auth)]);
        const outcome = `${a.status}/${d.status}`;
        outcomes.add(outcome);
        expect(['200/409', '404/204']).toContain(outcome);
        if (a.status === 200) {
          expectError(d, 409, 'role_has_members');
          expect((await removeReq(groupId, userId, role.id)).status).toBe(200);
        } else {
          expectError(a, 404, 'not_found');
        }
      }
      expect((await getMember(member.id)).roles).toEqual([]);
    });

    it('unknown, malformed or other-game role is 404 and the role survives', async () => {
      expectError(await t.http.delete(`/v1/roles/${randomUUID()}`).set(auth), 404, 'not_found');
      expectError(await t.http.delete('/v1/roles/xyz').set(auth), 404, 'not_found');
      const g = await createGroup();
      const role = await createRole(g.id);
      expectError(await t.http.delete(`/v1/roles/${role.id}`).set(otherAuth), 404, 'not_found');
      expect((await getRole(role.id)).id).toBe(role.id);
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('role permissions', () => {
    it('grant: 200 Role with the keys sorted; idempotent; permission.granted only on change', async () => {
      const g = await createGroup();
      const role = await createRole(g.id);
      await grant(role.id, 'mike');
      await grant(role.id, 'zulu');
      await grant(role.id, '_under');
      await grant(role.id, 'Bravo');
      const body = await grant(role.id, 'alpha');
      const expected = ['Bravo', '_under', 'alpha', 'mike', 'zulu'];
      expect(body).toEqual({ ...role, permissions: expected });
      expect((await getRole(role.id)).permissions).toEqual(expected);
      expect((await listRoles(g.id))[0].permissions).toEqual(expected);
      const again = await grant(role.id, 'mike');
      expect(again.permissions).toEqual(expected);
      const rows = await audits(g.id, 'permission.granted');
      expect(rows).toHaveLength(5);
      expect(rows.map((r) => r.payload)).toEqual(['mike', 'zulu', '_under', 'Bravo', 'alpha'].map((permission) => ({ roleId: role.id, permission })));
      for (const r of rows) expect(r).toMatchObject({ target_id: role.id, group_id: g.id });
    });

    it('revoke: 200 Role without the key; idempotent; permission.revoked only on change', async () => {
      const g = await createGroup();
      const role = await createRole(g.id);
      await grant(role.id, 'alpha');
      await grant(role.id, 'beta');
      const body = await revoke(role.id, 'alpha');
      expect(body).toEqual({ ...role, permissions: ['beta'] });
      expect((await getRole(role.id)).permissions).toEqual(['beta']);
      expect((await revoke(role.id, 'alpha')).permissions).toEqual(['beta']);
      expect((await revoke(role.id, 'never.granted')).permissions).toEqual(['beta']);
      const rows = await audits(g.id, 'permission.revoked');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ target_id: role.id, payload: { roleId: role.id, permission: 'alpha' } });
      expect(rows[0].payload).toEqual({ roleId: role.id, permission: 'alpha' });
    });

    it.each<[string, unknown]>([
      ['an empty key', { permission: '' }],
      ['a key of 129 chars', { permission: 'k'.repeat(129) }],
      ['a missing key', {}],
      ['a numeric key', { permission: 42 }],
      ['a null key', { permission: null }],
    ])('grant of %s is 400 naming permission; nothing granted', async (_label, body) => {
      const g = await createGroup();
      const role = await createRole(g.id);
      const r = await grantReq(role.id, body);
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toContain('permission');
      expect((await getRole(role.id)).permissions).toEqual([]);
      expect(await audits(g.id, 'permission.granted')).toHaveLength(0);
    });

    it('a key holding a NUL character is a client mistake: 400, never a 500', async () => {
      const g = await createGroup();
      const role = await createRole(g.id);
      const r = await grantReq(role.id, { permission: 'bad\u0000key' });
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toContain('permission');
      expect((await getRole(role.id)).permissions).toEqual([]);
    });

    it('a key of 128 chars is granted and revoked through the path', async () => {
      const g = await createGroup();
      const role = await createRole(g.id);
      const key = 'k'.repeat(128);
      expect((await grant(role.id, key)).permissions).toEqual([key]);
      const r = await revokeReq(role.id, key);
      expect(r.status).toBe(200);
      expect(r.body.permissions).toEqual([]);
    });

    it('a 128-char key of non-ASCII characters (768 chars once percent-encoded) is revoked through the path', async () => {
      const g = await createGroup();
      const role = await createRole(g.id);
      const key = 'é'.repeat(64) + '日'.repeat(64);
      expect(key).toHaveLength(128);
      expect((await grant(role.id, key)).permissions).toEqual([key]);
      const r = await revokeReq(role.id, key);
      expect(r.status).toBe(200);
      expect(r.body.permissions).toEqual([]);
    });

    it.each(['chat/send all?x=1&y=2#frag%20:ü', 'a%2Fb', 'dots.and spaces', '日本語/キー'])(
      'the key %p is granted verbatim and revoked through an encoded path',
      async (key) => {
        const g = await createGroup();
        const role = await createRole(g.id);
        await grant(role.id, 'other');
        expect((await grant(role.id, key)).permissions).toEqual(['other', key].sort());
        const r = await revokeReq(role.id, key);
        expect(r.status).toBe(200);
        expect(r.body.permissions).toEqual(['other']);
        const rows = await audits(g.id, 'permission.revoked');
        expect(rows).toHaveLength(1);
        expect(rows[0].payload).toEqual({ roleId: role.id, permission: key });
      },
    );

    it('grant and revoke on an unknown, other-game or soft-deleted-group role are 404', async () => {
      expectError(await grantReq(randomUUID(), { permission: 'x' }), 404, 'not_found');
      expectError(await revokeReq(randomUUID(), 'x'), 404, 'not_found');
      expectError(await grantReq('bad-id', { permission: 'x' }), 404, 'not_found');
      const g = await createGroup();
      const role = await createRole(g.id);
      await grant(role.id, 'keep.me');
      expectError(await grantReq(role.id, { permission: 'x' }, otherAuth), 404, 'not_found');
      expectError(await revokeReq(role.id, 'keep.me', otherAuth), 404, 'not_found');
      expect((await getRole(role.id)).permissions).toEqual(['keep.me']);
      expect((await t.http.delete(`/v1/groups/${g.id}`).set(auth)).status).toBe(200);
      expectError(await grantReq(role.id, { permission: 'x' }), 404, 'not_found');
      expectError(await revokeReq(role.id, 'keep.me'), 404, 'not_found');
    });

    it('the admin catalog registers a key on its first grant and keeps it after revoke and role delete', async () => {
      const fresh = await newGame(t, 'catalog');
      const a = bearer(fresh.key);
      const g = await createGroup({}, a);
      const r1 = (await postRole(g.id, { name: 'one', priority: 1 }, a)).body as Role;
      const r2 = (await postRole(g.id, { name: 'two', priority: 2 }, a)).body as Role;
      expect(await catalog(fresh.gameId)).toEqual([]);

      expect((await grantReq(r1.id, { permission: 'zeta.key' }, a)).status).toBe(200);
      const first = await catalog(fresh.gameId);
      expect(first).toEqual([{ permission: 'zeta.key', createdAt: expect.stringMatching(ISO_MS) }]);

      expect((await grantReq(r2.id, { permission: 'zeta.key' }, a)).status).toBe(200);
      expect((await grantReq(r2.id, { permission: 'alpha.key' }, a)).status).toBe(200);
      const second = await catalog(fresh.gameId);
      expect(second.map((e) => e.permission)).toEqual(['alpha.key', 'zeta.key']);
      expect(second.find((e) => e.permission === 'zeta.key')!.createdAt).toBe(first[0].createdAt);

      expect((await revokeReq(r1.id, 'zeta.key', a)).status).toBe(200);
      expect((await revokeReq(r2.id, 'zeta.key', a)).status).toBe(200);
      expect((await t.http.delete(`/v1/roles/${r2.id}`).set(a)).status).toBe(204);
      expect((await catalog(fresh.gameId)).map((e) => e.permission)).toEqual(['alpha.key', 'zeta.key']);

      // a re-grant after the revoke does not duplicate the entry or move its createdAt
      expect((await grantReq(r1.id, { permission: 'zeta.key' }, a)).status).toBe(200);
      const third = await catalog(fresh.gameId);
      expect(third).toHaveLength(2);
      expect(third.find((e) => e.permission === 'zeta.key')!.createdAt).toBe(first[0].createdAt);
      // a key granted only in another game is not in this catalog
      expect((await catalog(otherGameId)).map((e) => e.permission)).not.toContain('alpha.key');
    });

    it('the admin catalog needs the admin token and a known game', async () => {
      expectError(await t.http.get(`/v1/admin/games/${gameId}/permissions`), 401, 'invalid_admin_token');
      expectError(await t.http.get(`/v1/admin/games/${gameId}/permissions`).set(auth), 401, 'invalid_admin_token');
      expectError(await t.http.get(`/v1/admin/games/${randomUUID()}/permissions`).set(asAdmin), 404, 'not_found');
      expectError(await t.http.get('/v1/admin/games/not-a-game/permissions').set(asAdmin), 404, 'not_found');
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('member role assign / remove', () => {
    it('assign: 200 Member with the role; idempotent; member.role.assigned only on change', async () => {
      const { groupId, userId, member } = await groupWithMember();
      const role = await createRole(groupId);
      const r = await assignReq(groupId, userId, role.id);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ ...member, roles: [role.id], roleGrants: [{ roleId: role.id, expiresAt: null }] });
      expect(await getMember(member.id)).toEqual({ ...member, roles: [role.id], roleGrants: [{ roleId: role.id, expiresAt: null }] });
      const again = await assignReq(groupId, userId, role.id);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ ...member, roles: [role.id], roleGrants: [{ roleId: role.id, expiresAt: null }] });
      const rows = await audits(groupId, 'member.role.assigned');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ target_id: userId });
      expect(rows[0].payload).toEqual({ memberId: member.id, roleId: role.id });
    });

    it('a member holds several roles; remove: 200 Member without it; idempotent; member.role.removed only on change', async () => {
      const { groupId, userId, member } = await groupWithMember();
      const r1 = await createRole(groupId, { priority: 1 });
      const r2 = await createRole(groupId, { priority: 2 });
      expect((await assignReq(groupId, userId, r1.id)).status).toBe(200);
      expect((await assignReq(groupId, userId, r2.id)).body.roles.sort()).toEqual([r1.id, r2.id].sort());
      const r = await removeReq(groupId, userId, r1.id);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ ...member, roles: [r2.id], roleGrants: [{ roleId: r2.id, expiresAt: null }] });
      const again = await removeReq(groupId, userId, r1.id);
      expect(again.status).toBe(200);
      expect(again.body.roles).toEqual([r2.id]);
      const rows = await audits(groupId, 'member.role.removed');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ target_id: userId });
      expect(rows[0].payload).toEqual({ memberId: member.id, roleId: r1.id });
    });

    it('each answer lists the roles as a read after it does, in assignment order', async () => {
      const { groupId, userId, member } = await groupWithMember();
      const roles = [];
      for (let i = 0; i < 4; i++) roles.push(await createRole(groupId, { priority: 10 - i }));
      for (const [i, role] of roles.entries()) {
        const r = await assignReq(groupId, userId, role.id);
        expect(r.status).toBe(200);
        expect(r.body.roles).toEqual((await getMember(member.id)).roles);
        expect(r.body.roles).toHaveLength(i + 1);
      }
      const removed = await removeReq(groupId, userId, roles[1].id);
      expect(removed.body.roles).toEqual((await getMember(member.id)).roles);
      expect(removed.body.roles).not.toContain(roles[1].id);
      const again = await assignReq(groupId, userId, roles[1].id);
      expect(again.body.roles).toEqual((await getMember(member.id)).roles);
      expect(again.body.roles.at(-1)).toBe(roles[1].id);
      const assigned = await audits(groupId, 'member.role.assigned');
      expect(assigned.map((a) => a.payload)).toContainEqual({ memberId: member.id, roleId: roles[2].id });
      expect((await audits(groupId, 'member.role.removed'))[0].payload).toEqual({ memberId: member.id, roleId: roles[1].id });
    });

    it('a role of another group is 400 role_group_mismatch on assign, nothing assigned', async () => {
      const { groupId, userId, member } = await groupWithMember();
      const other = await createGroup();
      const foreign = await createRole(other.id);
      expectError(await assignReq(groupId, userId, foreign.id), 400, 'role_group_mismatch');
      expect((await getMember(member.id)).roles).toEqual([]);
      expect(await audits(groupId, 'member.role.assigned')).toHaveLength(0);
    });

    it('remove of a role of another group is 400 role_group_mismatch even though nothing is assigned (checked before idempotency)', async () => {
      const { groupId, userId } = await groupWithMember();
      const other = await createGroup();
      const foreign = await createRole(other.id);
      expectError(await removeReq(groupId, userId, foreign.id), 400, 'role_group_mismatch');
      // also while a same-group role is assigned: still the mismatch, never a 200 no-op
      const own = await createRole(groupId);
      expect((await assignReq(groupId, userId, own.id)).status).toBe(200);
      expectError(await removeReq(groupId, userId, foreign.id), 400, 'role_group_mismatch');
      expect(await audits(groupId, 'member.role.removed')).toHaveLength(0);
    });

    it('unknown member, unknown or other-game role, other-game or soft-deleted group are 404', async () => {
      const { groupId, userId, member } = await groupWithMember();
      const role = await createRole(groupId);
      for (const req of [assignReq, removeReq]) {
        expectError(await req(groupId, uid('ghost'), role.id), 404, 'not_found');
        expectError(await req(groupId, userId, randomUUID()), 404, 'not_found');
        expectError(await req(groupId, userId, 'not-a-role'), 404, 'not_found');
        expectError(await req(randomUUID(), userId, role.id), 404, 'not_found');
        expectError(await req(groupId, userId, role.id, otherAuth), 404, 'not_found');
      }
      const theirs = await createGroup({}, otherAuth);
      const theirRole = (await postRole(theirs.id, { name: 'x', priority: 0 }, otherAuth)).body as Role;
      expectError(await assignReq(groupId, userId, theirRole.id), 404, 'not_found');
      // a user who is a member of another group only
      const stranger = uid('stranger');
      await join((await createGroup()).id, stranger);
      expectError(await assignReq(groupId, stranger, role.id), 404, 'not_found');
      expect((await getMember(member.id)).roles).toEqual([]);
      expect((await t.http.delete(`/v1/groups/${groupId}`).set(auth)).status).toBe(200);
      expectError(await assignReq(groupId, userId, role.id), 404, 'not_found');
    });

    it('assignments survive kick and leave, and are there again on rejoin', async () => {
      const { groupId, userId, member } = await groupWithMember();
      const role = await createRole(groupId);
      expect((await assignReq(groupId, userId, role.id)).status).toBe(200);
      const kicked = await t.http.post(`/v1/groups/${groupId}/members/${enc(userId)}/kick`).set(auth).send({});
      expect(kicked.status).toBe(200);
      expect(kicked.body).toMatchObject({ status: 'kicked', roles: [role.id] });
      expect(await getMember(member.id)).toMatchObject({ status: 'kicked', roles: [role.id] });
      const back = await join(groupId, userId);
      expect(back).toMatchObject({ id: member.id, status: 'active', roles: [role.id] });
      const left = await t.http.post(`/v1/groups/${groupId}/leave`).set(auth).send({ userId });
      expect(left.body).toMatchObject({ status: 'left', roles: [role.id] });
      expect(await getMember(member.id)).toMatchObject({ status: 'left', roles: [role.id] });
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('member permission overrides', () => {
    it('POST with no body, {}, an empty JSON body, or {allowed:false}: 200 { memberId, permission, allowed }', async () => {
      const { groupId, userId, member } = await groupWithMember();
      const noBody = await t.http.post(overridePath(groupId, userId, 'p.none')).set(auth);
      expect(noBody.status).toBe(200);
      expect(noBody.body).toEqual({ memberId: member.id, permission: 'p.none', allowed: true, expiresAt: null });
      const empty = await t.http.post(overridePath(groupId, userId, 'p.empty')).set(auth).send({});
      expect(empty.body).toEqual({ memberId: member.id, permission: 'p.empty', allowed: true, expiresAt: null });
      const emptyJson = await t.http.post(overridePath(groupId, userId, 'p.json')).set(auth).set('content-type', 'application/json').send('');
      expect(emptyJson.status).toBe(200);
      expect(emptyJson.body).toEqual({ memberId: member.id, permission: 'p.json', allowed: true, expiresAt: null });
      const deny = await t.http.post(overridePath(groupId, userId, 'p.deny')).set(auth).send({ allowed: false });
      expect(deny.status).toBe(200);
      expect(deny.body).toEqual({ memberId: member.id, permission: 'p.deny', allowed: false, expiresAt: null });
      const explicit = await t.http.post(overridePath(groupId, userId, 'p.allow')).set(auth).send({ allowed: true });
      expect(explicit.body).toEqual({ memberId: member.id, permission: 'p.allow', allowed: true, expiresAt: null });
      expect(await check(userId, groupId, 'p.none')).toEqual({ allowed: true, source: 'override' });
      expect(await check(userId, groupId, 'p.deny')).toEqual({ allowed: false, source: 'override' });
    });

    it('audits permission.override.set only when the value changes, and cleared only when one existed', async () => {
      const { groupId, userId, member } = await groupWithMember();
      const path = overridePath(groupId, userId, 'bank.withdraw');
      expect((await t.http.post(path).set(auth)).status).toBe(200); // none -> true
      expect((await t.http.post(path).set(auth).send({ allowed: true })).status).toBe(200); // same
      expect((await t.http.post(path).set(auth).send({ allowed: false })).status).toBe(200); // true -> false
      expect((await t.http.post(path).set(auth).send({ allowed: false })).status).toBe(200); // same
      expect((await t.http.post(path).set(auth).send({})).status).toBe(200); // false -> true
      const set = await audits(groupId, 'permission.override.set');
      expect(set.map((r) => r.payload)).toEqual([
        { memberId: member.id, permission: 'bank.withdraw', allowed: true },
        { memberId: member.id, permission: 'bank.withdraw', allowed: false },
        { memberId: member.id, permission: 'bank.withdraw', allowed: true },
      ]);
      for (const r of set) expect(r.target_id).toBe(userId);

      const del = await t.http.delete(path).set(auth);
      expect(del.status).toBe(204);
      expect(del.text).toBe('');
      expect((await t.http.delete(path).set(auth)).status).toBe(204);
      expect((await t.http.delete(overridePath(groupId, userId, 'never.set')).set(auth)).status).toBe(204);
      const cleared = await audits(groupId, 'permission.override.cleared');
      expect(cleared).toHaveLength(1);
      expect(cleared[0].payload).toMatchObject({ memberId: member.id, permission: 'bank.withdraw' });
      expect(await check(userId, groupId, 'bank.withdraw')).toEqual({ allowed: false, source: 'default' });
    });

    it('a key needing percent-encoding works through an encoded path', async () => {
      const { groupId, userId, member } = await groupWithMember();
      const key = 'chat/send all?x=1&y=2#frag%20:ü';
      const r = await t.http.post(overridePath(groupId, userId, key)).set(auth).send({ allowed: false });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ memberId: member.id, permission: key, allowed: false, expiresAt: null });
      expect(await check(userId, groupId, key)).toEqual({ allowed: false, source: 'override' });
      expect((await t.http.delete(overridePath(groupId, userId, key)).set(auth)).status).toBe(204);
      expect((await audits(groupId, 'permission.override.cleared'))[0].payload).toMatchObject({ permission: key });
    });

    it('a non-boolean allowed is 400 naming allowed; nothing is stored', async () => {
      const { groupId, userId } = await groupWithMember();
      for (const allowed of ['yes', 1, 'true', [true], {}]) {
        const r = await t.http.post(overridePath(groupId, userId, 'p')).set(auth).send({ allowed });
        expectError(r, 400, 'bad_request');
        expect(r.body.message).toContain('allowed');
      }
      expect(await audits(groupId, 'permission.override.set')).toHaveLength(0);
    });

    it('allowed: null is not a boolean and not an omitted field (DECISIONS §1): 400, nothing stored', async () => {
      const { groupId, userId } = await groupWithMember();
      const r = await t.http.post(overridePath(groupId, userId, 'p.null')).set(auth).send({ allowed: null });
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toContain('allowed');
      expect(await audits(groupId, 'permission.override.set')).toHaveLength(0);
    });

    it('a key of 128 chars is set and cleared through the path; 129 chars is 400 in the error envelope', async () => {
      const { groupId, userId, member } = await groupWithMember();
      const key = 'k'.repeat(128);
      const r = await t.http.post(overridePath(groupId, userId, key)).set(auth).send({ allowed: false });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ memberId: member.id, permission: key, allowed: false, expiresAt: null });
      expect((await t.http.delete(overridePath(groupId, userId, key)).set(auth)).status).toBe(204);
      expectError(await t.http.post(overridePath(groupId, userId, 'k'.repeat(129))).set(auth), 400, 'bad_request');
      expectError(await t.http.delete(overridePath(groupId, userId, 'k'.repeat(129))).set(auth), 400, 'bad_request');
    });

    it('unknown user, non-member, other-game or soft-deleted group are 404 on set and clear', async () => {
      const { groupId, userId } = await groupWithMember();
      const stranger = uid('stranger');
      await join((await createGroup()).id, stranger);
      for (const method of ['post', 'delete'] as const) {
        expectError(await t.http[method](overridePath(groupId, uid('ghost'), 'p')).set(auth), 404, 'not_found');
        expectError(await t.http[method](overridePath(groupId, stranger, 'p')).set(auth), 404, 'not_found');
        expectError(await t.http[method](overridePath(groupId, userId, 'p')).set(otherAuth), 404, 'not_found');
        expectError(await t.http[method](overridePath(randomUUID(), userId, 'p')).set(auth), 404, 'not_found');
      }
      expect((await t.http.delete(`/v1/groups/${groupId}`).set(auth)).status).toBe(200);
      expectError(await t.http.post(overridePath(groupId, userId, 'p')).set(auth), 404, 'not_found');
      expect(await t.db.query('SELECT 1 FROM member_permission_overrides o JOIN members m ON m.id = o.member_id WHERE m.group_id = $1', [groupId])).toHaveLength(0);
    });

    it('may be set on a member who left; it does not count until the member is active again', async () => {
      const { groupId, userId, member } = await groupWithMember();
      expect((await t.http.post(`/v1/groups/${groupId}/leave`).set(auth).send({ userId })).status).toBe(200);
      const r = await t.http.post(overridePath(groupId, userId, 'p.later')).set(auth).send({ allowed: true });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ memberId: member.id, permission: 'p.later', allowed: true, expiresAt: null });
      expect(await audits(groupId, 'permission.override.set')).toHaveLength(1);
      expect(await check(userId, groupId, 'p.later')).toEqual({ allowed: false, source: 'none' });
      await join(groupId, userId);
      expect(await check(userId, groupId, 'p.later')).toEqual({ allowed: true, source: 'override' });
    });
  });
});
