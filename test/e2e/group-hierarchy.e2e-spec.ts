import { randomUUID } from 'node:crypto';
import { journalAudit } from '../helpers/journal';
import { bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * SPEC §1.5 (parent/child hierarchy, cycle detection, walk depth 100), §7 parent_cycle;
 * DECISIONS §3: PUT /v1/groups/:id/parent and GET /v1/groups/:id/children.
 */

// ---------------------------------------------------------------------------------------------
// helpers

interface Group {
  id: string;
  gameId: string;
  name: string;
  parentGroupId: string | null;
  memberCount: number;
  createdAt: string;
  updatedAt: string;
  softDeletedAt: string | null;
}
type Auth = Record<string, string>;
type Res = { status: number; body: { code?: string; message?: string } & Partial<Group> };

const MAX_DEPTH = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;

async function game(): Promise<{ gameId: string; auth: Auth }> {
  const g = await newGame(t);
  return { gameId: g.gameId, auth: bearer(g.key) };
}

async function createGroup(auth: Auth, name = 'g', body: Record<string, unknown> = {}): Promise<Group> {
  const r = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name, ...body });
  if (r.status !== 201) throw new Error(`create group: ${r.status} ${r.text}`);
  return r.body;
}

/** Several groups, created a few milliseconds apart so creation order is list order. */
async function createGroups(auth: Auth, n: number, prefix = 'g'): Promise<Group[]> {
  const out: Group[] = [];
  for (let i = 0; i < n; i++) {
    out.push(await createGroup(auth, `${prefix}${i}`));
    await sleep(2);
  }
  return out;
}

const setParent = (auth: Auth, id: string, parentGroupId: string | null): Promise<Res> =>
  t.http.put(`/v1/groups/${id}/parent`).set(auth).send({ parentGroupId });
const getGroup = (auth: Auth, id: string) => t.http.get(`/v1/groups/${id}`).set(auth);
const children = (auth: Auth, id: string, query = '') => t.http.get(`/v1/groups/${id}/children${query}`).set(auth);

async function mustSetParent(auth: Auth, id: string, parentGroupId: string | null): Promise<Group> {
  const r = await setParent(auth, id, parentGroupId);
  if (r.status !== 200) throw new Error(`set parent: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as Group;
}

async function parentInDb(id: string): Promise<string | null> {
  const [row] = await t.db.query<{ p: string | null }>(`SELECT parent_group_id AS p FROM groups WHERE id = $1`, [id]);
  return row.p;
}

const parentAudit = (groupId: string) =>
  t.db.query<{ target_id: string; actor_user_id: string | null; payload: Record<string, unknown> }>(
    `SELECT target_id, actor_user_id, payload FROM ${journalAudit()} WHERE group_id = $1 AND action = 'group.parent.changed' ORDER BY created_at, id`,
    [groupId],
  );

/**
 * A chain of `n` groups inserted directly: ids[0] is the root, ids[i] the child of ids[i-1], so
 * ids[n-1] has n-1 ancestors.
 */
async function insertChain(gameId: string, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => randomUUID());
  const values = ids.map((_, i) => `($${3 * i + 1}::uuid, $${3 * i + 2}::uuid, $${3 * i + 3})`).join(', ');
  const params = ids.flatMap((id, i) => [id, i === 0 ? null : ids[i - 1], `chain ${i}`]);
  await t.db.query(
    `INSERT INTO groups (id, game_id, kind, name, visibility, parent_group_id)
     SELECT v.id, $${params.length + 1}::uuid, 'chain', v.name, 'public', v.parent FROM (VALUES ${values}) AS v(id, parent, name)`,
    [...params, gameId],
  );
  return ids;
}

function expectCycle(r: Res) {
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ code: 'parent_cycle', status: 400, message: expect.any(String) });
}

function expectNotFound(r: Res) {
  expect(r.status).toBe(404);
  expect(r.body.code).toBe('not_found');
}

function expectBadRequest(r: Res, field: string) {
  expect(r.status).toBe(400);
  expect(r.body.code).toBe('bad_request');
  expect(r.body.message).toMatch(field);
}

// ---------------------------------------------------------------------------------------------

describe('group hierarchy', () => {
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  describe('PUT /v1/groups/:id/parent', () => {
    it('sets the parent: 200 Group with parentGroupId, seen on get, list, children, patch and delete responses', async () => {
      const { auth } = await game();
      const [parent, child] = await createGroups(auth, 2);
      expect(child.parentGroupId).toBeNull();
      const r = await setParent(auth, child.id, parent.id);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id: child.id, parentGroupId: parent.id, name: child.name, createdAt: child.createdAt });
      expect((await getGroup(auth, child.id)).body).toEqual(r.body);
      const list = await t.http.get('/v1/groups').set(auth);
      expect(list.body.items.find((g: Group) => g.id === child.id).parentGroupId).toBe(parent.id);
      expect(list.body.items.find((g: Group) => g.id === parent.id).parentGroupId).toBeNull();
      expect((await children(auth, parent.id)).body.items).toEqual([r.body]);
      const patched = await t.http.patch(`/v1/groups/${child.id}`).set(auth).send({ name: 'renamed' });
      expect(patched.body.parentGroupId).toBe(parent.id);
      const deleted = await t.http.delete(`/v1/groups/${child.id}`).set(auth);
      expect(deleted.body.parentGroupId).toBe(parent.id);
      const restored = await t.http.post(`/v1/groups/${child.id}/restore`).set(auth);
      expect(restored.body.parentGroupId).toBe(parent.id);
      expect(await parentInDb(child.id)).toBe(parent.id);
    });

    it('audits group.parent.changed {before:{parentGroupId}, after:{parentGroupId}} on set, move and clear', async () => {
      const { auth } = await game();
      const [p, q, child] = await createGroups(auth, 3);
      await mustSetParent(auth, child.id, p.id);
      await mustSetParent(auth, child.id, q.id);
      const cleared = await setParent(auth, child.id, null);
      expect(cleared.status).toBe(200);
      expect(cleared.body.parentGroupId).toBeNull();
      expect(await parentInDb(child.id)).toBeNull();
      const audit = await parentAudit(child.id);
      expect(audit.map((a) => a.payload)).toEqual([
        { before: { parentGroupId: null }, after: { parentGroupId: p.id } },
        { before: { parentGroupId: p.id }, after: { parentGroupId: q.id } },
        { before: { parentGroupId: q.id }, after: { parentGroupId: null } },
      ]);
      for (const a of audit) expect(a).toMatchObject({ target_id: child.id, actor_user_id: null });
      // A move changes the children of both parents.
      expect((await children(auth, p.id)).body.items).toEqual([]);
      expect((await children(auth, q.id)).body.items).toEqual([]);
      // The parent itself gets no audit entry.
      expect(await parentAudit(p.id)).toEqual([]);
    });

    it('setting the same parent again, or clearing a root, is a no-op: 200, no audit, same updatedAt', async () => {
      const { auth } = await game();
      const [p, child, root] = await createGroups(auth, 3);
      const set = await mustSetParent(auth, child.id, p.id);
      await sleep(5);
      const again = await setParent(auth, child.id, p.id);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(set);
      expect(await parentAudit(child.id)).toHaveLength(1);
      const clearRoot = await setParent(auth, root.id, null);
      expect(clearRoot.status).toBe(200);
      expect(clearRoot.body).toEqual(root);
      expect(await parentAudit(root.id)).toEqual([]);
    });

    it('a group cannot be its own parent: 400 parent_cycle', async () => {
      const { auth } = await game();
      const g = await createGroup(auth);
      expectCycle(await setParent(auth, g.id, g.id));
      expect(await parentInDb(g.id)).toBeNull();
      expect(await parentAudit(g.id)).toEqual([]);
    });

    it('A→B then B→A: 400 parent_cycle, nothing changes', async () => {
      const { auth } = await game();
      const [a, b] = await createGroups(auth, 2);
      await mustSetParent(auth, a.id, b.id);
      expectCycle(await setParent(auth, b.id, a.id));
      expect(await parentInDb(b.id)).toBeNull();
      expect(await parentInDb(a.id)).toBe(b.id);
      expect(await parentAudit(b.id)).toEqual([]);
    });

    it('A→B→C then C→A: 400 parent_cycle; C may still move elsewhere', async () => {
      const { auth } = await game();
      const [a, b, c, d] = await createGroups(auth, 4);
      await mustSetParent(auth, a.id, b.id);
      await mustSetParent(auth, b.id, c.id);
      expectCycle(await setParent(auth, c.id, a.id));
      expectCycle(await setParent(auth, c.id, b.id));
      expect(await parentInDb(c.id)).toBeNull();
      // Not a cycle: a sibling subtree, or re-rooting the lower part.
      expect((await setParent(auth, c.id, d.id)).status).toBe(200);
      expect((await setParent(auth, a.id, c.id)).status).toBe(200);
      expectCycle(await setParent(auth, c.id, a.id));
    });

    it('a cycle deep in a long chain is found', async () => {
      const { gameId, auth } = await game();
      const chain = await insertChain(gameId, 50);
      expectCycle(await setParent(auth, chain[0], chain[49]));
      expectCycle(await setParent(auth, chain[10], chain[30]));
      expect(await parentInDb(chain[0])).toBeNull();
      expect(await parentInDb(chain[10])).toBe(chain[9]);
    });

    it(`a parent chain up to the walk depth (${MAX_DEPTH}) is accepted; one deeper is 400 parent_cycle`, async () => {
      const { gameId, auth } = await game();
      const chain = await insertChain(gameId, MAX_DEPTH); // the bottom has 99 ancestors
      const x = await createGroup(auth, 'x');
      const y = await createGroup(auth, 'y');
      // x under the bottom: x has exactly 100 ancestors.
      const ok = await setParent(auth, x.id, chain[MAX_DEPTH - 1]);
      expect(ok.status).toBe(200);
      expect(ok.body.parentGroupId).toBe(chain[MAX_DEPTH - 1]);
      // y under x: y would have 101 ancestors, a chain of 102 groups.
      expectCycle(await setParent(auth, y.id, x.id));
      expect(await parentInDb(y.id)).toBeNull();
      expect(await parentAudit(y.id)).toEqual([]);
      // The root of the chain cannot be hung under its deepest descendant either.
      expectCycle(await setParent(auth, chain[0], x.id));
      expect(await parentInDb(chain[0])).toBeNull();
    });

    it('a chain of 101 groups built through the API refuses a 102nd level', async () => {
      const { auth } = await game();
      const chain = await insertChainViaApi(auth, MAX_DEPTH + 1);
      const extra = await createGroup(auth, 'extra');
      expectCycle(await setParent(auth, extra.id, chain[chain.length - 1]));
      expect((await setParent(auth, extra.id, chain[chain.length - 2])).status).toBe(200);
    });

    it('the parent must be a live group of the calling game: unknown, malformed, soft-deleted, other game → 404', async () => {
      const a = await game();
      const b = await game();
      const child = await createGroup(a.auth);
      const foreign = await createGroup(b.auth);
      const deleted = await createGroup(a.auth);
      await t.http.delete(`/v1/groups/${deleted.id}`).set(a.auth);
      for (const parentId of [randomUUID(), 'not-a-uuid', deleted.id, foreign.id]) {
        expectNotFound(await setParent(a.auth, child.id, parentId));
      }
      expect(await parentInDb(child.id)).toBeNull();
      expect(await parentAudit(child.id)).toEqual([]);
    });

    it('the group itself must be a live group of the calling game: unknown, malformed, soft-deleted, other game → 404', async () => {
      const a = await game();
      const b = await game();
      const parent = await createGroup(a.auth);
      const deleted = await createGroup(a.auth);
      await t.http.delete(`/v1/groups/${deleted.id}`).set(a.auth);
      const foreignParent = await createGroup(b.auth);
      expectNotFound(await setParent(a.auth, randomUUID(), parent.id));
      expectNotFound(await setParent(a.auth, 'nope', parent.id));
      expectNotFound(await setParent(a.auth, deleted.id, parent.id));
      expectNotFound(await setParent(b.auth, parent.id, foreignParent.id));
      expect(await parentInDb(deleted.id)).toBeNull();
    });

    it.each<[string, unknown]>([
      ['an empty body', {}],
      ['a numeric parentGroupId', { parentGroupId: 5 }],
      ['an object parentGroupId', { parentGroupId: { id: 'x' } }],
    ])('refuses %s with 400 naming parentGroupId', async (_case, body) => {
      const { auth } = await game();
      const g = await createGroup(auth);
      expectBadRequest(await t.http.put(`/v1/groups/${g.id}/parent`).set(auth).send(body as object), 'parentGroupId');
    });

    it('refuses a missing body with 400', async () => {
      const { auth } = await game();
      const g = await createGroup(auth);
      const r = await t.http.put(`/v1/groups/${g.id}/parent`).set(auth);
      expectBadRequest(r, 'parentGroupId');
    });

    it('needs an API key', async () => {
      const { auth } = await game();
      const [p, c] = await createGroups(auth, 2);
      expect((await t.http.put(`/v1/groups/${c.id}/parent`).send({ parentGroupId: p.id })).status).toBe(401);
    });

    it('two concurrent opposite moves never both succeed: one 200, one 400 parent_cycle', async () => {
      const { auth } = await game();
      for (let round = 0; round < 8; round++) {
        const [a, b] = await createGroups(auth, 2, `r${round}-`);
        const results = await Promise.all([setParent(auth, a.id, b.id), setParent(auth, b.id, a.id)]);
        const statuses = results.map((r) => r.status).sort();
        expect(statuses).toEqual([200, 400]);
        expect(results.find((r) => r.status === 400)!.body.code).toBe('parent_cycle');
        const parents = [await parentInDb(a.id), await parentInDb(b.id)];
        expect(parents.filter((p) => p !== null)).toHaveLength(1);
      }
    });

    it('concurrent moves closing a three-group cycle: exactly two of three succeed', async () => {
      const { auth } = await game();
      for (let round = 0; round < 5; round++) {
        const [a, b, c] = await createGroups(auth, 3, `t${round}-`);
        const results = await Promise.all([setParent(auth, a.id, b.id), setParent(auth, b.id, c.id), setParent(auth, c.id, a.id)]);
        expect(results.filter((r) => r.status === 200)).toHaveLength(2);
        expect(results.filter((r) => r.status === 400).map((r) => r.body.code)).toEqual(['parent_cycle']);
      }
    });

    it('racing a hard delete of the new parent: 200 or 404, never 500; the child never keeps a removed parent', async () => {
      const { auth } = await game();
      const seen: number[] = [];
      for (let round = 0; round < 20; round++) {
        const [parent, child] = await createGroups(auth, 2, `d${round}-`);
        const [del, put] = await Promise.all([
          t.http.delete(`/v1/groups/${parent.id}?hard=true`).set(auth),
          setParent(auth, child.id, parent.id),
        ]);
        expect(del.status).toBe(204);
        seen.push(put.status);
        expect(await parentInDb(child.id)).toBeNull();
        expect((await getGroup(auth, child.id)).body.parentGroupId).toBeNull();
      }
      expect(seen.filter((s) => s !== 200 && s !== 404)).toEqual([]);
    });
  });

  describe('GET /v1/groups/:id/children', () => {
    it('lists only the live direct children, newest first, as a Page<Group>', async () => {
      const { auth } = await game();
      const parent = await createGroup(auth, 'parent');
      const kids = await createGroups(auth, 4, 'kid');
      for (const k of kids) await mustSetParent(auth, k.id, parent.id);
      const grandchild = await createGroup(auth, 'grandchild');
      await mustSetParent(auth, grandchild.id, kids[0].id);
      await createGroup(auth, 'unrelated');
      await t.http.delete(`/v1/groups/${kids[3].id}`).set(auth);

      const r = await children(auth, parent.id);
      expect(r.status).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual(['items', 'nextCursor']);
      expect(r.body.nextCursor).toBeNull();
      expect(r.body.items.map((g: Group) => g.id)).toEqual([kids[2].id, kids[1].id, kids[0].id]);
      for (const g of r.body.items) expect(g.parentGroupId).toBe(parent.id);
      expect((await children(auth, kids[0].id)).body.items.map((g: Group) => g.id)).toEqual([grandchild.id]);
      expect(await children(auth, grandchild.id)).toMatchObject({ status: 200, body: { items: [], nextCursor: null } });
    });

    it('walks children created in the same millisecond with a keyset cursor: id descending, no duplicates or skips', async () => {
      const { auth } = await game();
      const parent = await createGroup(auth, 'parent');
      const kids = await createGroups(auth, 7, 'kid');
      for (const k of kids) await mustSetParent(auth, k.id, parent.id);
      await t.db.query(`UPDATE groups SET created_at = '2032-02-02T02:02:02.222Z' WHERE id = ANY($1::uuid[])`, [kids.slice(0, 5).map((k) => k.id)]);
      await t.db.query(`UPDATE groups SET created_at = '2032-02-02T02:02:02.221Z' WHERE id = ANY($1::uuid[])`, [kids.slice(5).map((k) => k.id)]);
      const byId = (ids: string[]) => ids.slice().sort().reverse();
      const expected = [...byId(kids.slice(0, 5).map((k) => k.id)), ...byId(kids.slice(5).map((k) => k.id))];
      for (const limit of [1, 2, 3]) {
        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const q: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
          const r = await children(auth, parent.id, q);
          expect(r.status).toBe(200);
          expect(r.body.items.length).toBeLessThanOrEqual(limit);
          seen.push(...r.body.items.map((g: Group) => g.id));
          cursor = r.body.nextCursor;
          expect(++pages).toBeLessThan(20);
        } while (cursor);
        expect(seen).toEqual(expected);
      }
    });

    it('refuses bad limits and cursors from elsewhere with 400', async () => {
      const { auth } = await game();
      const [p, q] = await createGroups(auth, 2, 'parent');
      const kids = await createGroups(auth, 4, 'kid');
      for (const k of kids.slice(0, 2)) await mustSetParent(auth, k.id, p.id);
      for (const k of kids.slice(2)) await mustSetParent(auth, k.id, q.id);
      for (const limit of ['0', '101', 'abc']) expectBadRequest(await children(auth, p.id, `?limit=${limit}`), 'limit');
      const pCursor = (await children(auth, p.id, '?limit=1')).body.nextCursor as string;
      expect(pCursor).toEqual(expect.any(String));
      expectBadRequest(await children(auth, q.id, `?cursor=${encodeURIComponent(pCursor)}`), 'cursor');
      const listCursor = (await t.http.get('/v1/groups?limit=1').set(auth)).body.nextCursor as string;
      expectBadRequest(await children(auth, p.id, `?cursor=${encodeURIComponent(listCursor)}`), 'cursor');
      expectBadRequest(await t.http.get(`/v1/groups?cursor=${encodeURIComponent(pCursor)}`).set(auth), 'cursor');
      expectBadRequest(await children(auth, p.id, '?cursor=garbage'), 'cursor');
      expect((await children(auth, p.id, `?cursor=${encodeURIComponent(pCursor)}`)).body.items).toHaveLength(1);
    });

    it('404 for an unknown, malformed, soft-deleted or foreign parent', async () => {
      const a = await game();
      const b = await game();
      const mine = await createGroup(a.auth);
      const deleted = await createGroup(a.auth);
      await t.http.delete(`/v1/groups/${deleted.id}`).set(a.auth);
      expectNotFound(await children(a.auth, randomUUID()));
      expectNotFound(await children(a.auth, 'nope'));
      expectNotFound(await children(a.auth, deleted.id));
      expectNotFound(await children(b.auth, mine.id));
    });

    it('children carry their own memberCount', async () => {
      const { auth } = await game();
      const parent = await createGroup(auth, 'parent');
      const kid = await createGroup(auth, 'kid', { creatorUserId: 'alice', visibility: 'public' });
      await t.http.post(`/v1/groups/${kid.id}/join`).set(auth).send({ userId: 'bob' });
      await mustSetParent(auth, kid.id, parent.id);
      expect((await children(auth, parent.id)).body.items[0]).toMatchObject({ id: kid.id, memberCount: 2 });
    });
  });

  describe('deleting a parent', () => {
    it('a hard delete makes the children roots', async () => {
      const { auth } = await game();
      const parent = await createGroup(auth, 'parent');
      const [k1, k2] = await createGroups(auth, 2, 'kid');
      await mustSetParent(auth, k1.id, parent.id);
      await mustSetParent(auth, k2.id, parent.id);
      expect((await t.http.delete(`/v1/groups/${parent.id}?hard=true`).set(auth)).status).toBe(204);
      for (const k of [k1, k2]) {
        const r = await getGroup(auth, k.id);
        expect(r.status).toBe(200);
        expect(r.body.parentGroupId).toBeNull();
      }
      // A root again: it may take a new parent, even its former sibling.
      expect((await setParent(auth, k1.id, k2.id)).status).toBe(200);
    });

    it('a soft-deleted parent hides its children listing; restoring brings it back', async () => {
      const { auth } = await game();
      const parent = await createGroup(auth, 'parent');
      const kid = await createGroup(auth, 'kid');
      await mustSetParent(auth, kid.id, parent.id);
      await t.http.delete(`/v1/groups/${parent.id}`).set(auth);
      expectNotFound(await children(auth, parent.id));
      expect((await getGroup(auth, kid.id)).status).toBe(200);
      await t.http.post(`/v1/groups/${parent.id}/restore`).set(auth);
      expect((await children(auth, parent.id)).body.items.map((g: Group) => g.id)).toEqual([kid.id]);
    });
  });
});

/** A chain of `n` groups built with the API: each new group is hung under the previous one. */
async function insertChainViaApi(auth: Auth, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const g = await createGroup(auth, `link ${i}`);
    if (i > 0) await mustSetParent(auth, g.id, ids[i - 1]);
    ids.push(g.id);
  }
  return ids;
}
