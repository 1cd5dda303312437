import { randomUUID } from 'node:crypto';
import { ADMIN_TOKEN, asAdmin, bearer, startTestApp, type TestApp } from '../helpers/test-app';

type Role = 'viewer' | 'moderator' | 'admin' | 'owner';

/** Named operators with roles, their tokens, and the root token's rotation (issue 32). */
describe('operators', () => {
  let t: TestApp;
  const tokens = {} as Record<Role, string>;
  const ids = {} as Record<Role, string>;

  const operator = async (name: string, role: Role, as: Record<string, string> = asAdmin) => {
    const r = await t.http.post('/v1/admin/operators').set(as).send({ name, role });
    expect(r.status).toBe(201);
    return r.body as { id: string; name: string; role: Role; token: string; createdAt: string; lastUsedAt: string | null };
  };
  const count = async (sql: string) => Number((await t.db.query<{ n: string }>(sql))[0].n);

  beforeAll(async () => {
    t = await startTestApp();
    for (const role of ['viewer', 'moderator', 'admin', 'owner'] as const) {
      const made = await operator(`${role} on duty`, role);
      tokens[role] = made.token;
      ids[role] = made.id;
    }
  });
  afterAll(() => t.close());

  describe('POST, GET, PATCH, DELETE /v1/admin/operators', () => {
    it('adds an operator and shows its token once: the list never does', async () => {
      const made = await operator('Ana (support)', 'moderator');
      expect(made).toEqual({ id: expect.any(String), name: 'Ana (support)', role: 'moderator', createdAt: expect.any(String), lastUsedAt: null, token: expect.stringMatching(/^jop_[0-9a-f]{16}\./) });

      const list = await t.http.get('/v1/admin/operators').set(asAdmin);
      expect(list.status).toBe(200);
      const listed = list.body.items.find((o: { id: string }) => o.id === made.id);
      expect(listed).toEqual({ id: made.id, name: 'Ana (support)', role: 'moderator', createdAt: made.createdAt, lastUsedAt: null });
      expect(JSON.stringify(list.body)).not.toContain(made.token.split('.')[1]);
      const stored = await t.db.query<{ token_hash: Buffer }>('SELECT token_hash FROM operators WHERE id = $1', [made.id]);
      expect(stored[0].token_hash.toString('latin1')).not.toContain(made.token.split('.')[1]);
    });

    it('tells the token who it is, and notes when it was last used', async () => {
      const who = await t.http.get('/v1/admin/whoami').set(bearer(tokens.moderator));
      expect(who.body).toEqual({ id: ids.moderator, name: 'moderator on duty', role: 'moderator' });
      expect((await t.http.get('/v1/admin/whoami').set(asAdmin)).body).toEqual({ id: null, name: 'root', role: 'owner' });
      await new Promise((r) => setTimeout(r, 100));
      const list = await t.http.get('/v1/admin/operators').set(asAdmin);
      expect(list.body.items.find((o: { id: string }) => o.id === ids.moderator).lastUsedAt).toEqual(expect.any(String));
    });

    it.each([
      [{ name: '', role: 'viewer' }, /name/],
      [{ name: '   ', role: 'viewer' }, /name/],
      [{ name: 'x'.repeat(101), role: 'viewer' }, /name/],
      [{ name: 'x', role: 'root' }, /role/],
      [{ name: 'x' }, /role/],
      [{ role: 'viewer' }, /name/],
    ])('refuses %j with 400 naming the field', async (body, field) => {
      const r = await t.http.post('/v1/admin/operators').set(asAdmin).send(body);
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(field);
    });

    it('only an owner or the root token manages operators', async () => {
      for (const role of ['viewer', 'moderator', 'admin'] as const) {
        const r = await t.http.post('/v1/admin/operators').set(bearer(tokens[role])).send({ name: 'sneaky', role: 'owner' });
        expect([role, r.status, r.body.code]).toEqual([role, 403, 'permission_denied']);
      }
      expect(await count(`SELECT count(*) AS n FROM operators WHERE name = 'sneaky'`)).toBe(0);
      const byOwner = await operator('made by an owner', 'viewer', bearer(tokens.owner));
      expect(byOwner.role).toBe('viewer');
    });

    it("changes a role, which holds from the operator's next request", async () => {
      const made = await operator('promoted', 'viewer');
      const create = () => t.http.post('/v1/admin/games').set(bearer(made.token)).send({ name: 'by a promoted operator' });
      expect((await create()).status).toBe(403);

      const patched = await t.http.patch(`/v1/admin/operators/${made.id}`).set(asAdmin).send({ role: 'admin' });
      expect(patched.status).toBe(200);
      expect(patched.body.role).toBe('admin');
      expect((await create()).status).toBe(201);
      expect((await t.http.patch(`/v1/admin/operators/${made.id}`).set(asAdmin).send({ role: 'boss' })).status).toBe(400);
      expect((await t.http.patch(`/v1/admin/operators/${randomUUID()}`).set(asAdmin).send({ role: 'viewer' })).status).toBe(404);
    });

    it('deletes an operator: the token stops at once, on every instance', async () => {
      const other = await startTestApp({}, t.db);
      try {
        const made = await operator('leaving', 'admin');
        expect((await other.http.get('/v1/admin/games').set(bearer(made.token))).status).toBe(200);

        expect((await t.http.delete(`/v1/admin/operators/${made.id}`).set(asAdmin)).status).toBe(204);
        for (const instance of [t, other]) {
          const r = await instance.http.get('/v1/admin/games').set(bearer(made.token));
          expect([r.status, r.body.code]).toEqual([401, 'invalid_admin_token']);
        }
        expect((await t.http.delete(`/v1/admin/operators/${made.id}`).set(asAdmin)).status).toBe(404);
      } finally {
        await other.close();
      }
    });

    it('refuses a made-up or malformed operator token with 401, never a game key', async () => {
      for (const token of [`jop_0123456789abcdef.${'a'.repeat(43)}`, 'jop_nope', `${tokens.owner}x`]) {
        const r = await t.http.get('/v1/admin/games').set(bearer(token));
        expect([r.status, r.body.code]).toEqual([401, 'invalid_admin_token']);
      }
      expect((await t.http.get('/v1/groups').set(bearer(tokens.owner))).status).toBe(401);
    });
  });

  describe('the operator audit', () => {
    it('records who changed what, in the transaction of the change: an operator by id and name, the root token as root', async () => {
      const byAdmin = await t.http.post('/v1/admin/games').set(bearer(tokens.admin)).send({ name: 'Audited by an admin' });
      const byRoot = await t.http.post('/v1/admin/games').set(asAdmin).send({ name: 'Audited by root' });
      const key = await t.http.post(`/v1/admin/games/${byAdmin.body.id}/api-keys`).set(bearer(tokens.admin));
      await t.http.post(`/v1/admin/games/${byAdmin.body.id}/api-keys/${key.body.id}/revoke`).set(bearer(tokens.admin));

      const mine = await t.http.get(`/v1/admin/operator-audit?operatorId=${ids.admin}`).set(bearer(tokens.viewer));
      expect(mine.status).toBe(200);
      expect(mine.body.items.slice(0, 3).map((e: { action: string }) => e.action)).toEqual(['api_key.revoked', 'api_key.minted', 'game.created']);
      expect(mine.body.items[2]).toEqual({
        id: expect.any(String),
        at: expect.any(String),
        operatorId: ids.admin,
        operatorName: 'admin on duty',
        action: 'game.created',
        gameId: byAdmin.body.id,
        targetId: byAdmin.body.id,
        details: { name: 'Audited by an admin' },
      });
      const root = await t.http.get('/v1/admin/operator-audit?operatorId=root&action=game.created').set(asAdmin);
      expect(root.body.items[0]).toMatchObject({ operatorId: null, operatorName: 'root', gameId: byRoot.body.id });
    });

    it('records operator changes, and keeps a deleted operator\'s entries', async () => {
      const made = await operator('temporary', 'viewer', bearer(tokens.owner));
      await t.http.patch(`/v1/admin/operators/${made.id}`).set(bearer(tokens.owner)).send({ role: 'moderator' });
      await t.http.delete(`/v1/admin/operators/${made.id}`).set(bearer(tokens.owner));
      const r = await t.http.get(`/v1/admin/operator-audit?operatorId=${ids.owner}`).set(asAdmin);
      expect(r.body.items.slice(0, 3).map((e: { action: string; targetId: string; details: unknown }) => [e.action, e.targetId, e.details])).toEqual([
        ['operator.deleted', made.id, { name: 'temporary', role: 'moderator' }],
        ['operator.role_changed', made.id, { name: 'temporary', from: 'viewer', to: 'moderator' }],
        ['operator.created', made.id, { name: 'temporary', role: 'viewer' }],
      ]);
    });

    it('pages newest first with before, without a row twice or missed', async () => {
      for (let i = 0; i < 5; i++) await t.http.post('/v1/admin/games').set(bearer(tokens.owner)).send({ name: `page ${i}` });
      const all = (await t.http.get('/v1/admin/operator-audit?limit=100').set(asAdmin)).body.items.map((e: { id: string }) => e.id);
      const seen: string[] = [];
      let before: string | null = null;
      do {
        const page: { body: { items: { id: string }[]; nextCursor: string | null } } = await t.http
          .get(`/v1/admin/operator-audit?limit=3${before ? `&before=${before}` : ''}`)
          .set(asAdmin);
        seen.push(...page.body.items.map((e) => e.id));
        before = page.body.nextCursor;
      } while (before);
      expect(seen).toEqual(all);
      expect(all.map(Number)).toEqual([...all.map(Number)].sort((a, b) => b - a));
    });

    it.each([['before=abc', /before/], ['action=game.exploded', /action/], ['operatorId=someone', /operatorId/], ['limit=0', /limit/], ['limit=101', /limit/]])(
      'refuses %s with 400 naming the field',
      async (query, field) => {
        const r = await t.http.get(`/v1/admin/operator-audit?${query}`).set(asAdmin);
        expect(r.status).toBe(400);
        expect(r.body.message).toMatch(field);
      },
    );
  });

  describe('rotating the root token', () => {
    it('accepts the previous root token beside the new one until it is unset', async () => {
      const NEW = 'jadm_rotated_0123456789abcdef';
      const during = await startTestApp({ SVC_ADMIN_TOKEN: NEW, SVC_ADMIN_TOKEN_PREVIOUS: ADMIN_TOKEN }, t.db);
      const after = await startTestApp({ SVC_ADMIN_TOKEN: NEW }, t.db);
      try {
        for (const token of [NEW, ADMIN_TOKEN]) expect((await during.http.get('/v1/admin/whoami').set(bearer(token))).body).toMatchObject({ name: 'root' });
        expect((await during.http.get('/v1/admin/games').set(bearer('jadm_neither_0123456789abcdef'))).status).toBe(401);
        expect((await after.http.get('/v1/admin/games').set(bearer(NEW))).status).toBe(200);
        const old = await after.http.get('/v1/admin/games').set(bearer(ADMIN_TOKEN));
        expect([old.status, old.body.code]).toEqual([401, 'invalid_admin_token']);
        expect((await during.http.get('/v1/admin/whoami').set(bearer(tokens.viewer))).body.role).toBe('viewer');
      } finally {
        await during.close();
        await after.close();
      }
    });

    it('keeps every admin route closed, operators included, while no root token is set', async () => {
      const off = await startTestApp({ SVC_ADMIN_TOKEN: '' }, t.db);
      try {
        const r = await off.http.get('/v1/admin/whoami').set(bearer(tokens.owner));
        expect([r.status, r.body.code]).toEqual([401, 'invalid_admin_token']);
        expect(r.body.message).toMatch(/disabled/);
      } finally {
        await off.close();
      }
    });
  });
});
