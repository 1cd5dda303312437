import { randomUUID } from 'node:crypto';
import { postGroup } from '../helpers/groups';
import { seqUid as uid } from '../helpers/ids';
import { insertAuditSql, journalAudit } from '../helpers/journal';
import { ISO_MS, UUID } from '../helpers/shapes';
import { authedGame, bearer, startTestApp, type TestApp } from '../helpers/test-app';

/** SPEC §2 Audit entry, §4 Audit log (per group), §8 page sizes; DECISIONS §18. */

interface Entry {
  id: string;
  groupId?: string;
  actorUserId: string | null;
  action: string;
  targetId: string | null;
  payload: Record<string, unknown>;
  createdAt: string;
}

describe('GET /v1/groups/:id/audit', () => {
  let t: TestApp;
  let gameId: string;
  let auth: Record<string, string>;
  let otherAuth: Record<string, string>;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  beforeAll(async () => {
    t = await startTestApp();
    ({ gameId, auth } = await authedGame(t, 'audit'));
    ({ auth: otherAuth } = await authedGame(t, 'audit other'));
  });
  afterAll(() => t.close());

  function createGroup(body: Record<string, unknown> = {}, as = auth): Promise<{ id: string }> {
    return postGroup(t, as, { kind: 'guild', name: 'Audited', visibility: 'public', ...body });
  }
  const audit = (groupId: string, query = '', as: Record<string, string> | null = auth) => {
    const req = t.http.get(`/v1/groups/${groupId}/audit${query}`);
    return as ? req.set(as) : req;
  };
  /** Every entry of the group straight from the journal, newest first. */
  const dbEntries = async (groupId: string) =>
    (
      await t.db.query<{ id: string; created_at: Date }>(
        `SELECT id, created_at FROM ${journalAudit()} WHERE group_id = $1 ORDER BY created_at DESC, id DESC`,
        [groupId],
      )
    ).map((r) => r.id);
  /** Walks the log with `limit`, following nextCursor through `before`. */
  async function walk(groupId: string, limit: number, extra = ''): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let before: string | null = null;
    let pages = 0;
    do {
      const r = await audit(groupId, `?limit=${limit}${extra}${before ? `&before=${before}` : ''}`);
      expect(r.status).toBe(200);
      const items = r.body.items as Entry[];
      ids.push(...items.map((e) => e.id));
      if (r.body.nextCursor !== null) expect(r.body.nextCursor).toBe(items[items.length - 1].id);
      before = r.body.nextCursor;
      pages++;
    } while (before && pages < 200);
    return { ids, pages };
  }
  /** Inserts audit rows sharing one created_at, straight into the journal. */
  async function insertEntries(groupId: string, n: number, createdAt: string, action = 'member.updated'): Promise<void> {
    await t.db.query(
      insertAuditSql(
        ['id', 'game_id', 'group_id', 'action', 'target_id', 'payload', 'created_at'],
        `SELECT gen_random_uuid(), $1, $2, $3, 'bulk-' || i, jsonb_build_object('i', i), $4::timestamptz FROM generate_series(1, $5::int) i`,
      ),
      [gameId, groupId, action, createdAt, n],
    );
  }
  const expectError = (r: { status: number; body: { code?: string; message?: string } }, status: number, code: string) => {
    expect({ status: r.status, code: r.body.code }).toEqual({ status, code });
    expect(typeof r.body.message).toBe('string');
  };

  describe('content and order', () => {
    let g: { id: string };
    let creator: string;
    let joiner: string;
    beforeAll(async () => {
      creator = uid('creator');
      joiner = uid('joiner');
      g = await createGroup({ creatorUserId: creator });
      await sleep(5);
      await t.http.post(`/v1/groups/${g.id}/join`).set(auth).send({ userId: joiner });
      await sleep(5);
      await t.http.patch(`/v1/groups/${g.id}/members/${joiner}`).set(auth).send({ notesPublic: 'n' });
      await sleep(5);
      await t.http.post(`/v1/groups/${g.id}/leave`).set(auth).send({ userId: joiner });
      await sleep(5);
      await t.http.post(`/v1/groups/${g.id}/members/${creator}/kick`).set(auth).send({ reason: 'why' });
      await sleep(5);
      await t.http.post(`/v1/groups/${g.id}/invitations`).set(auth).send({});
    });

    it('a Page of AuditEntry, newest first (createdAt desc, id desc), nextCursor null at the end', async () => {
      const r = await audit(g.id);
      expect(r.status).toBe(200);
      expect(r.body.nextCursor).toBeNull();
      const items = r.body.items as Entry[];
      expect(items).toHaveLength(7);
      expect(items.slice(0, 5).map((e) => e.action)).toEqual(['member.invited', 'member.kicked', 'member.left', 'member.updated', 'member.joined']);
      expect(new Set(items.slice(5).map((e) => e.action))).toEqual(new Set(['group.created', 'member.joined']));
      expect(items.map((e) => e.id)).toEqual(await dbEntries(g.id));
      for (let i = 1; i < items.length; i++) {
        const [a, b] = [items[i - 1], items[i]];
        expect(a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id)).toBe(true);
      }
    });

    it('entries carry id, groupId, actorUserId (internal id), action, targetId, payload, createdAt', async () => {
      const items = (await audit(g.id)).body.items as Entry[];
      const created = items.find((e) => e.action === 'group.created')!;
      expect(created).toEqual({
        id: expect.stringMatching(UUID),
        groupId: g.id,
        actorUserId: null,
        action: 'group.created',
        targetId: g.id,
        payload: { kind: 'guild', name: 'Audited', visibility: 'public', metadata: {}, defaultRoleId: null },
        createdAt: expect.stringMatching(ISO_MS),
      });
      const [svc] = await t.db.query<{ user_id: string }>('SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = $2', [
        gameId,
        joiner,
      ]);
      const joined = items.find((e) => e.action === 'member.joined' && e.targetId === joiner)!;
      expect(joined.actorUserId).toBe(svc.user_id);
      expect(joined.payload).toMatchObject({ via: 'public-join' });
      const creatorJoin = items.find((e) => e.action === 'member.joined' && e.targetId === creator)!;
      expect(creatorJoin.payload).toMatchObject({ via: 'creator' });
      expect(creatorJoin.createdAt).toBe(created.createdAt);
    });

    it('repeated actions filter with OR semantics', async () => {
      const r = await audit(g.id, '?actions=member.left&actions=member.kicked');
      expect(r.status).toBe(200);
      expect(r.body.items.map((e: Entry) => e.action)).toEqual(['member.kicked', 'member.left']);
      const one = await audit(g.id, '?actions=member.joined');
      expect(one.body.items.map((e: Entry) => e.targetId).sort()).toEqual([creator, joiner].sort());
      const none = await audit(g.id, '?actions=role.created');
      expect(none.body).toEqual({ items: [], nextCursor: null });
    });

    it('an unknown action (even beside a known one) is 400 naming it', async () => {
      for (const q of ['?actions=member.exploded', '?actions=member.joined&actions=nope', '?actions=', '?actions=MEMBER.JOINED']) {
        const r = await audit(g.id, q);
        expectError(r, 400, 'bad_request');
        expect(r.body.message).toMatch(/action/);
      }
    });

    it('actions combine with pagination', async () => {
      const p1 = await audit(g.id, '?actions=member.joined&actions=member.left&limit=2');
      expect(p1.body.items).toHaveLength(2);
      expect(p1.body.nextCursor).toBe(p1.body.items[1].id);
      const p2 = await audit(g.id, `?actions=member.joined&actions=member.left&limit=2&before=${p1.body.nextCursor}`);
      expect(p2.body.items).toHaveLength(1);
      expect(p2.body.nextCursor).toBeNull();
      expect([...p1.body.items, ...p2.body.items].map((e: Entry) => e.action).sort()).toEqual(['member.joined', 'member.joined', 'member.left']);
    });
  });

  describe('keyset walk with before', () => {
    it('limit 2 walks every entry exactly once; nextCursor is the last item id and null at the end', async () => {
      const g = await createGroup();
      for (let i = 0; i < 6; i++) {
        await t.http.post(`/v1/groups/${g.id}/join`).set(auth).send({ userId: uid() });
      }
      const all = await dbEntries(g.id);
      expect(all).toHaveLength(7);
      const { ids, pages } = await walk(g.id, 2);
      expect(ids).toEqual(all);
      expect(pages).toBe(4);
    });

    it('an exact multiple of the limit ends with nextCursor null on the last full page or an empty page, never a repeat', async () => {
      const g = await createGroup();
      for (let i = 0; i < 3; i++) await t.http.post(`/v1/groups/${g.id}/join`).set(auth).send({ userId: uid() });
      const all = await dbEntries(g.id);
      expect(all).toHaveLength(4);
      const { ids } = await walk(g.id, 2);
      expect(ids).toEqual(all);
      const last = await audit(g.id, `?limit=2&before=${all[1]}`);
      expect(last.body.nextCursor).toBeNull();
    });

    it('entries written in one transaction share createdAt and are still walked exactly (group with creatorUserId)', async () => {
      const g = await createGroup({ creatorUserId: uid('creator') });
      const rows = await t.db.query<{ action: string; created_at: Date }>(`SELECT action, created_at FROM ${journalAudit()} WHERE group_id = $1`, [
        g.id,
      ]);
      expect(rows.map((r) => r.action).sort()).toEqual(['group.created', 'member.joined']);
      expect(rows[0].created_at.getTime()).toBe(rows[1].created_at.getTime());
      const all = await dbEntries(g.id);
      const byOne = await walk(g.id, 1);
      expect(byOne.ids).toEqual(all);
      expect(byOne.pages).toBe(2);
    });

    it('many entries with the same createdAt walk exactly with limit 2 and limit 3', async () => {
      const g = await createGroup({ creatorUserId: uid('creator') });
      await insertEntries(g.id, 9, '2031-03-03T03:03:03.333Z');
      await insertEntries(g.id, 4, '2020-01-01T00:00:00.001Z');
      const all = await dbEntries(g.id);
      expect(all).toHaveLength(15);
      for (const limit of [2, 3]) {
        const { ids } = await walk(g.id, limit);
        expect(ids).toEqual(all);
      }
    });

    it('the default page is 50 and nextCursor continues it', async () => {
      const g = await createGroup();
      await insertEntries(g.id, 60, '2029-09-09T09:09:09.999Z');
      const all = await dbEntries(g.id);
      expect(all).toHaveLength(61);
      const p1 = await audit(g.id);
      expect(p1.body.items).toHaveLength(50);
      expect(p1.body.nextCursor).toBe(all[49]);
      const p2 = await audit(g.id, `?before=${p1.body.nextCursor}`);
      expect(p2.body.items.map((e: Entry) => e.id)).toEqual(all.slice(50));
      expect(p2.body.nextCursor).toBeNull();
      expect((await audit(g.id, '?limit=100')).body.items).toHaveLength(61);
    });

    it('a bare ISO 8601 timestamp is an exclusive upper bound on createdAt', async () => {
      const g = await createGroup();
      await insertEntries(g.id, 2, '2024-06-01T12:00:00.000Z', 'member.left');
      await insertEntries(g.id, 3, '2024-06-01T12:00:00.001Z', 'member.kicked');
      await insertEntries(g.id, 1, '2024-05-31T00:00:00.000Z', 'member.joined');
      const at = async (ts: string) => {
        const r = await audit(g.id, `?before=${encodeURIComponent(ts)}`);
        expect(r.status).toBe(200);
        return (r.body.items as Entry[]).map((e) => e.action);
      };
      expect(await at('2024-06-01T12:00:00.001Z')).toEqual(['member.left', 'member.left', 'member.joined']);
      expect(await at('2024-06-01T12:00:00.000Z')).toEqual(['member.joined']);
      expect(await at('2024-06-01T12:00:00.002Z')).toEqual([
        'member.kicked',
        'member.kicked',
        'member.kicked',
        'member.left',
        'member.left',
        'member.joined',
      ]);
      expect(await at('2024-05-31T00:00:00.000Z')).toEqual([]);
      // a timestamp bound still paginates: nextCursor is an entry id
      const r = await audit(g.id, `?before=${encodeURIComponent('2024-06-01T12:00:00.002Z')}&limit=4`);
      expect(r.body.items).toHaveLength(4);
      expect(r.body.nextCursor).toBe(r.body.items[3].id);
      const rest = await audit(g.id, `?before=${r.body.nextCursor}&limit=4`);
      expect(rest.body.items).toHaveLength(2);
      expect(rest.body.nextCursor).toBeNull();
    });

    it('a timestamp finer than a millisecond is compared exactly: an entry at .000 is before .0005', async () => {
      const g = await createGroup();
      await insertEntries(g.id, 1, '2024-06-01T12:00:00.000Z', 'member.left');
      await insertEntries(g.id, 1, '2024-06-01T12:00:00.001Z', 'member.kicked');
      const r = await audit(g.id, `?before=${encodeURIComponent('2024-06-01T12:00:00.0005Z')}`);
      expect(r.status).toBe(200);
      expect(r.body.items.map((e: Entry) => e.action)).toEqual(['member.left']);
    });

    it('a timestamp with an offset is understood', async () => {
      const g = await createGroup();
      await insertEntries(g.id, 1, '2024-06-01T12:00:00.000Z', 'member.left');
      await insertEntries(g.id, 1, '2024-06-01T10:00:00.000Z', 'member.joined');
      const r = await audit(g.id, `?before=${encodeURIComponent('2024-06-01T13:00:00.000+02:00')}`);
      expect(r.status).toBe(200);
      expect(r.body.items.map((e: Entry) => e.action)).toEqual(['member.joined']);
    });

    it('a before id of another group, or an unknown id, is 400', async () => {
      const a = await createGroup();
      const b = await createGroup();
      const [foreign] = await dbEntries(b.id);
      const r = await audit(a.id, `?before=${foreign}`);
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toMatch(/before/);
      expectError(await audit(a.id, `?before=${randomUUID()}`), 400, 'bad_request');
      const theirs = await createGroup({}, otherAuth);
      const [theirEntry] = await dbEntries(theirs.id);
      expectError(await audit(a.id, `?before=${theirEntry}`), 400, 'bad_request');
    });

    it('the log is read from the journal, its audit entries only', async () => {
      const g = await createGroup();
      await insertEntries(g.id, 3, '2030-01-01T00:00:00.000Z');
      const [gone, ...kept] = await dbEntries(g.id);
      // gone from the journal: no reader answers it
      await t.db.query('DELETE FROM journal WHERE id = $1', [gone]);
      // the newest row of the group, an event only: never an audit entry
      const [event] = await t.db.query<{ id: string }>(
        `INSERT INTO journal (id, game_id, group_id, created_at, type, body, names)
         VALUES (gen_random_uuid(), $1, $2, '2031-01-01T00:00:00.000Z', 'member.joined', '{}', '{}') RETURNING id`,
        [gameId, g.id],
      );
      expect((await walk(g.id, 2)).ids).toEqual(kept);
      for (const before of [gone, event.id]) expectError(await audit(g.id, `?before=${before}`), 400, 'bad_request');
    });

    it.each([['garbage'], ['12345'], ['2024-13-45T00:00:00Z'], ['yesterday'], [''], ['2024-06-01T12:00:00Zjunk']])(
      'a garbage before %p is 400 naming before',
      async (before) => {
        const g = await createGroup();
        const r = await audit(g.id, `?before=${encodeURIComponent(before)}`);
        expectError(r, 400, 'bad_request');
        expect(r.body.message).toMatch(/before/);
      },
    );
  });

  describe('limit and access', () => {
    it('limit 1 to 100 is fine; 0, 101, abc, 1.5, -1 are 400 naming limit', async () => {
      const g = await createGroup({ creatorUserId: uid() });
      const one = await audit(g.id, '?limit=1');
      expect(one.status).toBe(200);
      expect(one.body.items).toHaveLength(1);
      expect(one.body.nextCursor).toBe(one.body.items[0].id);
      expect((await audit(g.id, '?limit=100')).status).toBe(200);
      for (const bad of ['0', '101', 'abc', '1.5', '-1', '']) {
        const r = await audit(g.id, `?limit=${bad}`);
        expectError(r, 400, 'bad_request');
        expect(r.body.message).toMatch(/limit/);
      }
    });

    it('an unknown or malformed group is 404', async () => {
      expectError(await audit(randomUUID()), 404, 'not_found');
      expectError(await audit('not-a-group'), 404, 'not_found');
    });

    it('a missing group is 404 even with a bad limit, action or before', async () => {
      for (const query of ['?limit=0', '?actions=nope', '?before=yesterday', `?before=${randomUUID()}`]) {
        expectError(await audit(randomUUID(), query), 404, 'not_found');
        expectError(await audit('not-a-group', query), 404, 'not_found');
      }
    });

    it("another game's group is 404", async () => {
      const theirs = await createGroup({}, otherAuth);
      expect((await audit(theirs.id, '', otherAuth)).status).toBe(200);
      expectError(await audit(theirs.id), 404, 'not_found');
    });

    it('a soft-deleted group is 404', async () => {
      const g = await createGroup();
      expect((await t.http.delete(`/v1/groups/${g.id}`).set(auth)).status).toBe(200);
      expectError(await audit(g.id), 404, 'not_found');
    });

    it('no key, or a bad key, is 401 invalid_api_key', async () => {
      const g = await createGroup();
      expectError(await audit(g.id, '', null), 401, 'invalid_api_key');
      expectError(await audit(g.id, '', bearer('jk_0000000000000000.nope')), 401, 'invalid_api_key');
    });

    it('an audit read writes nothing', async () => {
      const g = await createGroup();
      const before = (await dbEntries(g.id)).length;
      await audit(g.id);
      await audit(g.id, '?actions=group.created');
      expect((await dbEntries(g.id)).length).toBe(before);
    });
  });
});
