import { randomUUID } from 'node:crypto';
import type { SvcEvent } from '../../src/events/event';
import { EventBus } from '../../src/events/event-bus';
import { postGroup, postJoin } from '../helpers/groups';
import { journalAudit, journalEvents } from '../helpers/journal';
import { EVENT_ID, ISO_MS, UUID, type AuditDbRow as AuditRow } from '../helpers/shapes';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * SPEC §2 Group, §4 Groups (create, get, list, patch), §7, §8 page limits; DECISIONS §9 event
 * bodies, §10 memberCount of a create with creator, §18 timestamps, §19 id order.
 */

// ---------------------------------------------------------------------------------------------
// helpers

interface Group {
  id: string;
  gameId: string;
  kind: string;
  name: string;
  visibility: 'public' | 'invite-only' | 'secret';
  metadata: Record<string, unknown>;
  defaultRoleId: string | null;
  parentGroupId: string | null;
  memberCount: number;
  hasPasscode: boolean;
  createdAt: string;
  updatedAt: string;
  softDeletedAt: string | null;
}
interface OutboxRow {
  id: string;
  game_id: string;
  group_id: string | null;
  type: string;
  body: SvcEvent;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;

/** A game of its own: most tests arrange their rows in a fresh tenant so counts are exact. */
function game(): Promise<{ gameId: string; key: string; auth: Record<string, string> }> {
  return authedGame(t);
}

function createGroup(auth: Record<string, string>, body: Record<string, unknown> = {}): Promise<Group> {
  return postGroup(t, auth, { kind: 'guild', name: 'Knights', ...body });
}

const getGroup = (auth: Record<string, string>, id: string, query = '') => t.http.get(`/v1/groups/${id}${query}`).set(auth);
const patchGroup = (auth: Record<string, string>, id: string, body: unknown) => t.http.patch(`/v1/groups/${id}`).set(auth).send(body as object);
const listGroups = (auth: Record<string, string>, query = '') => t.http.get(`/v1/groups${query}`).set(auth);

async function join(auth: Record<string, string>, groupId: string, userId: string, passcode?: string) {
  return postJoin(t, auth, groupId, passcode === undefined ? { userId } : { userId, passcode });
}

const auditOf = (groupId: string) =>
  t.db.query<AuditRow>(`SELECT * FROM ${journalAudit()} WHERE group_id = $1 ORDER BY created_at, id`, [groupId]);
const outboxOf = (groupId: string) =>
  t.db.query<OutboxRow>(`SELECT * FROM ${journalEvents()} WHERE group_id = $1 ORDER BY created_at, id`, [groupId]);

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params);
  return row.n;
}

async function internalId(gameId: string, externalId: string): Promise<string | undefined> {
  const [row] = await t.db.query<{ user_id: string }>(
    `SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = $2`,
    [gameId, externalId],
  );
  return row?.user_id;
}

/** Rows of the whole database that a group create could write. */
async function writeCounts(gameId: string) {
  return {
    groups: await count('groups WHERE game_id = $1', [gameId]),
    members: await count('members m JOIN groups g ON g.id = m.group_id WHERE g.game_id = $1', [gameId]),
    audit: await count(`${journalAudit()} WHERE game_id = $1`, [gameId]),
    outbox: await count(`${journalEvents()} WHERE game_id = $1`, [gameId]),
    identities: await count('user_identities WHERE game_id = $1', [gameId]),
    users: await count('users'),
  };
}

function expectBadRequest(r: { status: number; body: { code?: string; message?: string } }, field: RegExp | string) {
  expect(r.status).toBe(400);
  expect(r.body.code).toBe('bad_request');
  expect(r.body.message).toMatch(field);
}

function expectNotFound(r: { status: number; body: { code?: string; status?: number } }) {
  expect(r.status).toBe(404);
  expect(r.body).toMatchObject({ code: 'not_found', status: 404, message: expect.any(String) });
}

/** Inserts groups straight into the table (for exact timestamps and many rows at once). */
async function insertGroups(gameId: string, rows: { id?: string; createdAt: string; visibility?: string }[]): Promise<string[]> {
  const ids = rows.map((r) => r.id ?? randomUUID());
  for (let i = 0; i < rows.length; i++) {
    await t.db.query(
      `INSERT INTO groups (id, game_id, kind, name, visibility, created_at, updated_at)
       VALUES ($1, $2, 'raw', $3, $4, $5, $5)`,
      [ids[i], gameId, `raw ${i}`, rows[i].visibility ?? 'public', rows[i].createdAt],
    );
  }
  return ids;
}

/** The expected list order (createdAt desc, id desc as lowercase text) straight from the rows. */
async function expectedOrder(gameId: string): Promise<string[]> {
  const rows = await t.db.query<{ id: string; ms: string }>(
    `SELECT id, (extract(epoch FROM created_at) * 1000000)::bigint::text AS ms FROM groups
     WHERE game_id = $1 AND soft_deleted_at IS NULL`,
    [gameId],
  );
  return rows
    .sort((a, b) => {
      const [x, y] = [BigInt(a.ms), BigInt(b.ms)];
      if (x !== y) return x > y ? -1 : 1;
      return a.id > b.id ? -1 : a.id < b.id ? 1 : 0;
    })
    .map((r) => r.id);
}

/** Follows nextCursor from the first page to the end; returns every page. */
async function walk(auth: Record<string, string>, path: string, limit: number): Promise<{ items: Group[]; nextCursor: string | null }[]> {
  const pages: { items: Group[]; nextCursor: string | null }[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 200; i++) {
    const q: string = `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const r = await t.http.get(`${path}${path.includes('?') ? '&' : '?'}${q}`).set(auth);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['items', 'nextCursor']);
    pages.push(r.body);
    cursor = r.body.nextCursor;
    if (cursor === null) return pages;
  }
  throw new Error('pagination did not end');
}

// ---------------------------------------------------------------------------------------------

describe('groups', () => {
  const published: SvcEvent[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    t.app.get(EventBus).events$.subscribe((e) => published.push(e));
  });
  afterAll(() => t.close());

  describe('POST /v1/groups', () => {
    it('creates with the defaults: 201 Group, invite-only, {} metadata, no role, no parent, 0 members, no passcode', async () => {
      const { gameId, auth } = await game();
      const r = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'Knights of Dawn' });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: expect.stringMatching(UUID),
        gameId,
        kind: 'guild',
        name: 'Knights of Dawn',
        visibility: 'invite-only',
        metadata: {},
        defaultRoleId: null,
        parentGroupId: null,
        tags: [],
        maxMembers: null,
        ownerUserId: null,
        memberCount: 0,
        hasPasscode: false,
        createdAt: expect.stringMatching(ISO_MS),
        updatedAt: expect.stringMatching(ISO_MS),
        softDeletedAt: null,
      });
      expect(r.body.updatedAt).toBe(r.body.createdAt);
      const got = await getGroup(auth, r.body.id);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(r.body);
    });

    it('stores every supplied field: kind verbatim, visibility, nested metadata, an unverified defaultRoleId', async () => {
      const { auth } = await game();
      const metadata = { emblem: 'sun', ranks: [1, 2, { deep: null }], nested: { a: { b: true } }, n: 1.5 };
      const body = { kind: '  Clan ✨ MiXeD ', name: ' spaced name ', visibility: 'public', metadata, defaultRoleId: 'role-that-does-not-exist' };
      const r = await t.http.post('/v1/groups').set(auth).send(body);
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject(body);
      expect((await getGroup(auth, r.body.id)).body).toMatchObject(body);
    });

    it.each(['public', 'invite-only', 'secret'])('accepts visibility %s', async (visibility) => {
      const { auth } = await game();
      const g = await createGroup(auth, { visibility });
      expect(g.visibility).toBe(visibility);
    });

    it('accepts an explicit null defaultRoleId', async () => {
      const { auth } = await game();
      expect((await createGroup(auth, { defaultRoleId: null })).defaultRoleId).toBeNull();
    });

    it.each([
      ['kind', 1],
      ['kind', 64],
      ['name', 1],
      ['name', 120],
      ['passcode', 4],
      ['passcode', 128],
    ])('accepts %s of %i characters', async (field, length) => {
      const { auth } = await game();
      const r = await t.http.post('/v1/groups').set(auth).send({ kind: 'k', name: 'n', [field]: 'x'.repeat(length) });
      expect(r.status).toBe(201);
      if (field !== 'passcode') expect(r.body[field]).toBe('x'.repeat(length));
      else expect(r.body.hasPasscode).toBe(true);
    });

    it.each<[string, Record<string, unknown>]>([
      ['kind', { kind: undefined }],
      ['kind', { kind: '' }],
      ['kind', { kind: 'x'.repeat(65) }],
      ['kind', { kind: 12 }],
      ['kind', { kind: null }],
      ['kind', { kind: ['guild'] }],
      ['name', { name: undefined }],
      ['name', { name: '' }],
      ['name', { name: 'x'.repeat(121) }],
      ['name', { name: 7 }],
      ['name', { name: null }],
      ['passcode', { passcode: 'abc' }],
      ['passcode', { passcode: '' }],
      ['passcode', { passcode: 'x'.repeat(129) }],
      ['passcode', { passcode: 12345 }],
      ['visibility', { visibility: 'private' }],
      ['visibility', { visibility: 'PUBLIC' }],
      ['visibility', { visibility: 1 }],
      ['metadata', { metadata: [] }],
      ['metadata', { metadata: 'x' }],
      ['metadata', { metadata: 5 }],
      ['metadata', { metadata: true }],
      ['defaultRoleId', { defaultRoleId: 5 }],
      ['defaultRoleId', { defaultRoleId: { id: 'r' } }],
      ['creatorUserId', { creatorUserId: '' }],
      ['creatorUserId', { creatorUserId: 42 }],
    ])('refuses a bad %s with 400 naming the field (%j)', async (field, patch) => {
      const { gameId, auth } = await game();
      const before = await writeCounts(gameId);
      const r = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'n', ...patch });
      expectBadRequest(r, field);
      expect(r.body.status).toBe(400);
      expect(await writeCounts(gameId)).toEqual(before);
    });

    // Optional fields sent as null: refused with 400 naming the field, or read as absent; never a 500.
    it.each<[string, (g: Group) => void]>([
      ['passcode', (g) => expect(g.hasPasscode).toBe(false)],
      ['creatorUserId', (g) => expect(g.memberCount).toBe(0)],
      ['visibility', (g) => expect(g.visibility).toBe('invite-only')],
      ['metadata', (g) => expect(g.metadata).toEqual({})],
    ])('%s: null is a 400 naming the field or the default, never a server error', async (field, asDefault) => {
      const { gameId, auth } = await game();
      const r = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'n', [field]: null });
      expect(r.body.code).not.toBe('internal');
      expect([201, 400]).toContain(r.status);
      if (r.status === 201) asDefault(r.body);
      else {
        expectBadRequest(r, field);
        expect(await count('groups WHERE game_id = $1', [gameId])).toBe(0);
      }
    });

    it('refuses a malformed JSON body and a body that is not an object with 400', async () => {
      const { auth } = await game();
      const bad = await t.http.post('/v1/groups').set(auth).set('content-type', 'application/json').send('{"kind": "g",');
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('bad_request');
      const arr = await t.http.post('/v1/groups').set(auth).send([{ kind: 'g', name: 'n' }]);
      expect(arr.status).toBe(400);
      expect(arr.body.code).toBe('bad_request');
    });

    it('needs an API key: 401 invalid_api_key', async () => {
      const r = await t.http.post('/v1/groups').send({ kind: 'guild', name: 'n' });
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('invalid_api_key');
    });

    it('never returns the passcode; the database holds only a scrypt hash', async () => {
      const { gameId, auth } = await game();
      const passcode = 'open-sesame-4711';
      const r = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'locked', passcode, visibility: 'public' });
      expect(r.status).toBe(201);
      expect(r.body.hasPasscode).toBe(true);
      expect('passcode' in r.body).toBe(false);
      expect(r.text).not.toContain(passcode);
      expect((await getGroup(auth, r.body.id)).text).not.toContain(passcode);
      expect((await listGroups(auth)).text).not.toContain(passcode);
      const [row] = await t.db.query<{ passcode_hash: string }>(`SELECT passcode_hash FROM groups WHERE id = $1`, [r.body.id]);
      expect(row.passcode_hash.startsWith('scrypt$')).toBe(true);
      expect(row.passcode_hash).not.toContain(passcode);
      expect(r.text).not.toContain(row.passcode_hash);
      // Neither the audit entry nor the staged event carries the passcode or its hash.
      const stored = JSON.stringify([await auditOf(r.body.id), await outboxOf(r.body.id)]);
      expect(stored).not.toContain(passcode);
      expect(stored).not.toContain('scrypt$');
      // Same passcode twice: salted, so two different hashes.
      const again = await createGroup(auth, { passcode });
      const [row2] = await t.db.query<{ passcode_hash: string }>(`SELECT passcode_hash FROM groups WHERE id = $1`, [again.id]);
      expect(row2.passcode_hash).not.toBe(row.passcode_hash);
      expect(await count('groups WHERE game_id = $1 AND passcode_hash IS NOT NULL', [gameId])).toBe(2);
    });

    it('writes the group.created audit entry (target group id, no actor, kind/name/visibility/metadata/defaultRoleId)', async () => {
      const { gameId, auth } = await game();
      const g = await createGroup(auth, { visibility: 'secret', metadata: { a: 1 }, defaultRoleId: 'r1', passcode: 'hunter22' });
      const audit = await auditOf(g.id);
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({
        game_id: gameId,
        group_id: g.id,
        action: 'group.created',
        target_id: g.id,
        actor_user_id: null,
      });
      expect(audit[0].payload).toEqual({ kind: 'guild', name: 'Knights', visibility: 'secret', metadata: { a: 1 }, defaultRoleId: 'r1' });
      // The same entry through the group's audit log.
      const log = await t.http.get(`/v1/groups/${g.id}/audit`).set(auth);
      expect(log.status).toBe(200);
      expect(log.body.items).toEqual([
        expect.objectContaining({ id: audit[0].id, groupId: g.id, action: 'group.created', targetId: g.id, actorUserId: null }),
      ]);
    });

    it('stages a group.created event with the base fields', async () => {
      const { gameId, auth } = await game();
      const g = await createGroup(auth);
      const outbox = await outboxOf(g.id);
      expect(outbox.map((o) => o.type)).toEqual(['group.created']);
      expect(outbox[0].body).toMatchObject({
        id: expect.stringMatching(EVENT_ID),
        type: 'group.created',
        gameId,
        groupId: g.id,
        occurredAt: expect.stringMatching(ISO_MS),
      });
      expect(outbox[0].body.id).toBe(outbox[0].id);
      expect(published.some((e) => e.id === outbox[0].id)).toBe(true);
    });

    describe('with creatorUserId', () => {
      it('the creator is an active member at once: memberCount 1 (DECISIONS §10)', async () => {
        const { gameId, auth } = await game();
        const r = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'with creator', creatorUserId: 'alice' });
        expect(r.status).toBe(201);
        expect(r.body.memberCount).toBe(1);
        expect((await getGroup(auth, r.body.id)).body.memberCount).toBe(1);
        const svcUserId = await internalId(gameId, 'alice');
        expect(svcUserId).toMatch(UUID);
        const members = await t.db.query<{ user_id: string; external_user_id: string; status: string }>(
          `SELECT user_id, external_user_id, status FROM members WHERE group_id = $1`,
          [r.body.id],
        );
        expect(members).toEqual([{ user_id: svcUserId, external_user_id: 'alice', status: 'active' }]);
        const m = await t.http.get(`/v1/groups/${r.body.id}/members/alice`).set(auth);
        expect(m.status).toBe(200);
        expect(m.body).toMatchObject({ groupId: r.body.id, userId: 'alice', status: 'active', roles: [], metadata: {} });
      });

      it('writes group.created then member.joined (target external id, actor internal id, payload memberId and via creator)', async () => {
        const { gameId, auth } = await game();
        const g = await createGroup(auth, { creatorUserId: 'alice' });
        const svcUserId = await internalId(gameId, 'alice');
        const [member] = await t.db.query<{ id: string }>(`SELECT id FROM members WHERE group_id = $1`, [g.id]);
        const audit = await auditOf(g.id);
        expect(audit.map((a) => a.action).sort()).toEqual(['group.created', 'member.joined']);
        const joined = audit.find((a) => a.action === 'member.joined')!;
        expect(joined).toMatchObject({ game_id: gameId, group_id: g.id, target_id: 'alice', actor_user_id: svcUserId });
        expect(joined.payload).toEqual({ memberId: member.id, via: 'creator' });
        const created = audit.find((a) => a.action === 'group.created')!;
        expect(created).toMatchObject({ target_id: g.id, actor_user_id: null });
      });

      it('stages group.created and member.joined; member.joined nests the Member under `member` (DECISIONS §9)', async () => {
        const { gameId, auth } = await game();
        const g = await createGroup(auth, { creatorUserId: 'alice' });
        const [member] = await t.db.query<{ id: string }>(`SELECT id FROM members WHERE group_id = $1`, [g.id]);
        const outbox = await outboxOf(g.id);
        expect(outbox.map((o) => o.type).sort()).toEqual(['group.created', 'member.joined']);
        for (const o of outbox) {
          expect(o.body).toMatchObject({ id: o.id, type: o.type, gameId, groupId: g.id, occurredAt: expect.stringMatching(ISO_MS) });
          expect(o.body.id).toMatch(EVENT_ID);
          expect(o.game_id).toBe(gameId);
        }
        const joined = outbox.find((o) => o.type === 'member.joined')!.body;
        expect(joined.member).toMatchObject({
          id: member.id,
          groupId: g.id,
          userId: 'alice',
          status: 'active',
          roles: [],
          metadata: {},
          notesPublic: null,
          notesPrivate: null,
          joinedAt: expect.stringMatching(ISO_MS),
          bannedUntil: null,
        });
        expect(joined.id).not.toBe(member.id);
        expect(new Set(outbox.map((o) => o.id)).size).toBe(2);
      });

      it('makes the creator a member of a secret group too, who can then see it', async () => {
        const { auth } = await game();
        const g = await createGroup(auth, { visibility: 'secret', creatorUserId: 'alice' });
        expect(g.memberCount).toBe(1);
        expect((await getGroup(auth, g.id, '?viewer=alice')).status).toBe(200);
      });

      it('reuses an existing identity of the creator', async () => {
        const { gameId, auth } = await game();
        await createGroup(auth, { creatorUserId: 'carol' });
        const first = await internalId(gameId, 'carol');
        const g = await createGroup(auth, { creatorUserId: 'carol' });
        expect(await internalId(gameId, 'carol')).toBe(first);
        expect(await count('user_identities WHERE game_id = $1', [gameId])).toBe(1);
        const [m] = await t.db.query<{ user_id: string }>(`SELECT user_id FROM members WHERE group_id = $1`, [g.id]);
        expect(m.user_id).toBe(first);
      });

      it('a defaultRoleId naming no role of the new group is skipped silently: no roles, no roleId in the audit', async () => {
        const { auth } = await game();
        const g = await createGroup(auth, { creatorUserId: 'alice', defaultRoleId: 'no-such-role' });
        expect(g.defaultRoleId).toBe('no-such-role');
        const m = await t.http.get(`/v1/groups/${g.id}/members/alice`).set(auth);
        expect(m.body.roles).toEqual([]);
        const joined = (await auditOf(g.id)).find((a) => a.action === 'member.joined')!;
        expect('roleId' in joined.payload).toBe(false);
      });

      it('a failed validation writes nothing at all: no group, member, identity, audit or outbox row', async () => {
        const { gameId, auth } = await game();
        const before = await writeCounts(gameId);
        const r = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'x'.repeat(121), creatorUserId: 'ghost' });
        expectBadRequest(r, 'name');
        expect(await writeCounts(gameId)).toEqual(before);
        expect(await internalId(gameId, 'ghost')).toBeUndefined();
      });

      it('is one transaction: a failure while adding the creator leaves no group, audit, outbox row, identity or event', async () => {
        const { gameId, auth } = await game();
        // Make the member insert of this one creator fail inside the create transaction.
        await t.db.query(`
          CREATE OR REPLACE FUNCTION test_refuse_member() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            IF NEW.external_user_id = 'explode' THEN RAISE EXCEPTION 'refused by test'; END IF;
            RETURN NEW;
          END $$`);
        await t.db.query(`CREATE TRIGGER test_refuse_member BEFORE INSERT ON members FOR EACH ROW EXECUTE FUNCTION test_refuse_member()`);
        try {
          const before = await writeCounts(gameId);
          const publishedBefore = published.filter((e) => e.gameId === gameId).length;
          const r = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'doomed', creatorUserId: 'explode' });
          expect(r.status).toBe(500);
          expect(r.body.code).toBe('internal');
          expect(await writeCounts(gameId)).toEqual(before);
          expect(await count(`groups WHERE name = 'doomed'`)).toBe(0);
          expect(await internalId(gameId, 'explode')).toBeUndefined();
          expect(published.filter((e) => e.gameId === gameId).length).toBe(publishedBefore);
          // The same request for another creator goes through.
          const ok = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'fine', creatorUserId: 'dave' });
          expect(ok.status).toBe(201);
          expect(ok.body.memberCount).toBe(1);
        } finally {
          await t.db.query(`DROP TRIGGER test_refuse_member ON members`);
          await t.db.query(`DROP FUNCTION test_refuse_member()`);
        }
      });
    });
  });

  describe('GET /v1/groups/:id', () => {
    it('a secret group: 200 without viewer, 200 for an active member, 404 for non-members, unknown users and departed members', async () => {
      const { gameId, auth } = await game();
      const g = await createGroup(auth, { visibility: 'secret', creatorUserId: 'owner' });
      // bob and carl become members through invitations, then bob leaves and carl is kicked.
      for (const user of ['bob', 'carl', 'stranger-member-elsewhere']) {
        const inv = await t.http.post(`/v1/groups/${g.id}/invitations`).set(auth).send({ targetUserId: user });
        expect(inv.status).toBe(201);
        if (user === 'stranger-member-elsewhere') continue;
        expect((await t.http.post(`/v1/invitations/${inv.body.code}/accept`).set(auth).send({ userId: user })).status).toBe(201);
      }
      const other = await createGroup(auth, { visibility: 'public', creatorUserId: 'outsider' });
      expect(other.memberCount).toBe(1);

      expect((await getGroup(auth, g.id)).status).toBe(200);
      expect((await getGroup(auth, g.id, '?viewer=owner')).body).toMatchObject({ id: g.id, memberCount: 3 });
      expect((await getGroup(auth, g.id, '?viewer=bob')).status).toBe(200);
      expectNotFound(await getGroup(auth, g.id, '?viewer=outsider'));
      expectNotFound(await getGroup(auth, g.id, '?viewer=never-seen'));
      expect(await internalId(gameId, 'never-seen')).toBeUndefined(); // reads never create identities

      expect((await t.http.post(`/v1/groups/${g.id}/leave`).set(auth).send({ userId: 'bob' })).body.status).toBe('left');
      expectNotFound(await getGroup(auth, g.id, '?viewer=bob'));
      expect((await t.http.post(`/v1/groups/${g.id}/members/carl/kick`).set(auth).send({})).body.status).toBe('kicked');
      expectNotFound(await getGroup(auth, g.id, '?viewer=carl'));
      expect((await getGroup(auth, g.id, '?viewer=owner')).body.memberCount).toBe(1);
    });

    it('public and invite-only groups are visible to any viewer', async () => {
      const { auth } = await game();
      for (const visibility of ['public', 'invite-only']) {
        const g = await createGroup(auth, { visibility });
        expect((await getGroup(auth, g.id, '?viewer=nobody')).status).toBe(200);
      }
    });

    it("is tenant-scoped: another game's key gets 404", async () => {
      const a = await game();
      const b = await game();
      const g = await createGroup(a.auth);
      expectNotFound(await getGroup(b.auth, g.id));
      expect((await getGroup(a.auth, g.id)).status).toBe(200);
    });

    it.each(['not-a-uuid', '123', randomUUID(), '00000000-0000-0000-0000-000000000000', `${randomUUID()}x`])(
      'a malformed or unknown id (%s) is 404 not_found',
      async (id) => {
        const { auth } = await game();
        expectNotFound(await getGroup(auth, id));
      },
    );

    it('needs an API key', async () => {
      const { auth } = await game();
      const g = await createGroup(auth);
      expect((await t.http.get(`/v1/groups/${g.id}`)).status).toBe(401);
    });
  });

  describe('GET /v1/groups', () => {
    it('answers a Page of Groups, newest first, only of the calling game', async () => {
      const a = await game();
      const b = await game();
      const made: Group[] = [];
      for (let i = 0; i < 3; i++) {
        made.push(await createGroup(a.auth, { name: `g${i}` }));
        await sleep(3);
      }
      await createGroup(b.auth, { name: 'other tenant' });
      const r = await listGroups(a.auth);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ items: made.slice().reverse(), nextCursor: null });
    });

    it('walks groups created in the same millisecond exactly with limits 1, 2 and 3: id descending tiebreak, no duplicates or skips', async () => {
      const { gameId, auth } = await game();
      const same = '2031-05-05T10:00:00.123Z';
      await insertGroups(gameId, [
        ...Array.from({ length: 7 }, () => ({ createdAt: same })),
        { createdAt: '2031-05-05T10:00:00.124Z' },
        { createdAt: '2031-05-05T10:00:00.122Z' },
        // Sub-millisecond values are stored at millisecond precision (DECISIONS §18).
        { createdAt: '2031-05-05T10:00:00.1234Z' },
        { createdAt: '2031-05-05T10:00:00.1226Z' },
      ]);
      const expected = await expectedOrder(gameId);
      expect(expected).toHaveLength(11);
      for (const limit of [1, 2, 3]) {
        const pages = await walk(auth, '/v1/groups', limit);
        const ids = pages.flatMap((p) => p.items.map((g) => g.id));
        expect(ids).toEqual(expected);
        pages.slice(0, -1).forEach((p) => expect(p.items).toHaveLength(limit));
        expect(pages[pages.length - 1].items.length).toBeLessThanOrEqual(limit);
      }
      const all = (await listGroups(auth)).body.items as Group[];
      const tied = all.filter((g) => g.createdAt === same);
      expect(tied).toHaveLength(9);
      expect(tied.map((g) => g.id)).toEqual(tied.map((g) => g.id).sort().reverse());
      for (const g of all) expect(g.createdAt).toMatch(ISO_MS);
    });

    it('the last full page has no cursor when nothing remains', async () => {
      const { gameId, auth } = await game();
      await insertGroups(gameId, [{ createdAt: '2030-01-01T00:00:00.000Z' }, { createdAt: '2030-01-01T00:00:00.001Z' }]);
      const first = await listGroups(auth, '?limit=1');
      expect(first.body.nextCursor).toEqual(expect.any(String));
      const second = await listGroups(auth, `?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`);
      expect(second.body.items).toHaveLength(1);
      const two = await listGroups(auth, '?limit=2');
      expect(two.body.items).toHaveLength(2);
      expect(two.body.nextCursor).toBeNull();
    });

    it('defaults to 50 items per page and accepts the cap (100)', async () => {
      const { gameId, auth } = await game();
      await insertGroups(gameId, Array.from({ length: 51 }, (_, i) => ({ createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString() })));
      const r = await listGroups(auth);
      expect(r.status).toBe(200);
      expect(r.body.items).toHaveLength(50);
      expect(r.body.nextCursor).toEqual(expect.any(String));
      const rest = await listGroups(auth, `?cursor=${encodeURIComponent(r.body.nextCursor)}`);
      expect(rest.body.items).toHaveLength(1);
      expect(rest.body.nextCursor).toBeNull();
      const capped = await listGroups(auth, '?limit=100');
      expect(capped.status).toBe(200);
      expect(capped.body.items).toHaveLength(51);
    });

    it.each(['0', '101', 'abc', '-1', '1.5', '', '1e1'])('refuses limit=%p with 400 naming limit', async (limit) => {
      const { auth } = await game();
      expectBadRequest(await listGroups(auth, `?limit=${limit}`), 'limit');
    });

    it('honours SVC_MAX_PAGE_SIZE per instance: limit 5 ok, 6 is 400 (never a clamp)', async () => {
      const { gameId, auth } = await game();
      await insertGroups(gameId, Array.from({ length: 8 }, (_, i) => ({ createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString() })));
      const small = await startTestApp({ SVC_MAX_PAGE_SIZE: '5' }, t.db);
      try {
        const ok = await small.http.get('/v1/groups?limit=5').set(auth);
        expect(ok.status).toBe(200);
        expect(ok.body.items).toHaveLength(5);
        expectBadRequest(await small.http.get('/v1/groups?limit=6').set(auth), 'limit');
        expectBadRequest(await small.http.get('/v1/groups?limit=100').set(auth), 'limit');
        const dflt = await small.http.get('/v1/groups').set(auth);
        expect(dflt.status).toBe(200);
        expect(dflt.body.items.length).toBeGreaterThan(0);
        expect(dflt.body.items.length).toBeLessThanOrEqual(5);
        // The other instance keeps its own cap.
        expect((await listGroups(auth, '?limit=6')).status).toBe(200);
      } finally {
        await small.close();
      }
    });

    it("refuses a cursor from another game's list, a garbage cursor and an empty cursor with 400", async () => {
      const a = await game();
      const b = await game();
      await insertGroups(b.gameId, [{ createdAt: '2030-01-01T00:00:00.000Z' }, { createdAt: '2030-01-01T00:00:00.001Z' }]);
      await insertGroups(a.gameId, [{ createdAt: '2030-01-01T00:00:00.000Z' }, { createdAt: '2030-01-01T00:00:00.001Z' }]);
      const foreign = (await listGroups(b.auth, '?limit=1')).body.nextCursor as string;
      expect(foreign).toEqual(expect.any(String));
      expectBadRequest(await listGroups(a.auth, `?cursor=${encodeURIComponent(foreign)}`), 'cursor');
      for (const bad of ['garbage', 'Zm9vYmFy', '', '!!', Buffer.from('["groups:x","2030-01-01T00:00:00.000Z","nope"]').toString('base64url')]) {
        expectBadRequest(await listGroups(a.auth, `?cursor=${encodeURIComponent(bad)}`), 'cursor');
      }
      // The cursor still works where it was issued.
      expect((await listGroups(b.auth, `?cursor=${encodeURIComponent(foreign)}`)).status).toBe(200);
    });

    it('gameId: equal to the calling game is accepted, anything else is 400 naming gameId', async () => {
      const a = await game();
      const b = await game();
      await createGroup(a.auth);
      const ok = await listGroups(a.auth, `?gameId=${a.gameId}`);
      expect(ok.status).toBe(200);
      expect(ok.body.items).toHaveLength(1);
      expectBadRequest(await listGroups(a.auth, `?gameId=${b.gameId}`), 'gameId');
      expectBadRequest(await listGroups(a.auth, `?gameId=${randomUUID()}`), 'gameId');
      expectBadRequest(await listGroups(a.auth, `?gameId=nope`), 'gameId');
    });

    it('viewer hides secret groups the viewer is not an active member of; no viewer shows all', async () => {
      const { gameId, auth } = await game();
      const pub = await createGroup(auth, { visibility: 'public' });
      const inv = await createGroup(auth, { visibility: 'invite-only' });
      const mine = await createGroup(auth, { visibility: 'secret', creatorUserId: 'alice' });
      const left = await createGroup(auth, { visibility: 'secret', creatorUserId: 'alice' });
      expect((await t.http.post(`/v1/groups/${left.id}/leave`).set(auth).send({ userId: 'alice' })).status).toBe(200);
      const theirs = await createGroup(auth, { visibility: 'secret', creatorUserId: 'bob' });
      const ids = async (q: string) => ((await listGroups(auth, q)).body.items as Group[]).map((g) => g.id).sort();

      expect(await ids('')).toEqual([pub.id, inv.id, mine.id, left.id, theirs.id].sort());
      expect(await ids('?viewer=alice')).toEqual([pub.id, inv.id, mine.id].sort());
      expect(await ids('?viewer=bob')).toEqual([pub.id, inv.id, theirs.id].sort());
      expect(await ids('?viewer=stranger')).toEqual([pub.id, inv.id].sort());
      expect(await internalId(gameId, 'stranger')).toBeUndefined();
      // Filtering happens before the page is cut: a page of 1 for alice walks only what she may see.
      const pages = await walk(auth, '/v1/groups?viewer=alice', 1);
      expect(pages.flatMap((p) => p.items.map((g) => g.id)).sort()).toEqual([pub.id, inv.id, mine.id].sort());
    });

    it('excludes soft-deleted groups', async () => {
      const { auth } = await game();
      const keep = await createGroup(auth);
      const gone = await createGroup(auth);
      expect((await t.http.delete(`/v1/groups/${gone.id}`).set(auth)).status).toBe(200);
      const r = await listGroups(auth);
      expect(r.body.items.map((g: Group) => g.id)).toEqual([keep.id]);
      const pages = await walk(auth, '/v1/groups', 1);
      expect(pages.flatMap((p) => p.items.map((g) => g.id))).toEqual([keep.id]);
    });

    it('memberCount counts active members at request time, on list and get alike', async () => {
      const { auth } = await game();
      const g = await createGroup(auth, { visibility: 'public', creatorUserId: 'owner' });
      const countNow = async () => {
        const listed = ((await listGroups(auth)).body.items as Group[]).find((x) => x.id === g.id)!.memberCount;
        const got = (await getGroup(auth, g.id)).body.memberCount;
        expect(listed).toBe(got);
        return got;
      };
      expect(await countNow()).toBe(1);
      for (const u of ['u1', 'u2', 'u3']) expect((await join(auth, g.id, u)).status).toBe(201);
      expect(await countNow()).toBe(4);
      await t.http.post(`/v1/groups/${g.id}/leave`).set(auth).send({ userId: 'u1' });
      expect(await countNow()).toBe(3);
      await t.http.post(`/v1/groups/${g.id}/members/u2/kick`).set(auth).send({});
      expect(await countNow()).toBe(2);
      // Leaving twice changes nothing; rejoining counts again.
      await t.http.post(`/v1/groups/${g.id}/leave`).set(auth).send({ userId: 'u1' });
      expect(await countNow()).toBe(2);
      expect((await join(auth, g.id, 'u1')).status).toBe(201);
      expect(await countNow()).toBe(3);
    });

    it('needs an API key', async () => {
      expect((await t.http.get('/v1/groups')).status).toBe(401);
    });
  });

  describe('PATCH /v1/groups/:id', () => {
    it.each<[string, unknown, unknown]>([
      ['name', 'Renamed', 'Knights'],
      ['visibility', 'secret', 'invite-only'],
      ['defaultRoleId', 'role-7', null],
    ])('changes %s: 200 Group, fresh updatedAt, audit group.updated with only that key', async (field, value, previous) => {
      const { gameId, auth } = await game();
      const g = await createGroup(auth);
      await sleep(5);
      const r = await patchGroup(auth, g.id, { [field]: value });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ ...g, [field]: value, updatedAt: expect.stringMatching(ISO_MS) });
      expect(r.body.updatedAt > g.updatedAt).toBe(true);
      expect(r.body.createdAt).toBe(g.createdAt);
      expect((await getGroup(auth, g.id)).body).toEqual(r.body);
      const updated = (await auditOf(g.id)).filter((a) => a.action === 'group.updated');
      expect(updated).toHaveLength(1);
      expect(updated[0]).toMatchObject({ game_id: gameId, target_id: g.id, actor_user_id: null });
      expect(updated[0].payload).toEqual({ before: { [field]: previous }, after: { [field]: value } });
      const events = (await outboxOf(g.id)).filter((o) => o.type === 'group.updated');
      expect(events).toHaveLength(1);
      expect(events[0].body).toMatchObject({ type: 'group.updated', gameId, groupId: g.id, id: expect.stringMatching(EVENT_ID) });
    });

    it('clears defaultRoleId with null', async () => {
      const { auth } = await game();
      const g = await createGroup(auth, { defaultRoleId: 'r1' });
      const r = await patchGroup(auth, g.id, { defaultRoleId: null });
      expect(r.status).toBe(200);
      expect(r.body.defaultRoleId).toBeNull();
      const updated = (await auditOf(g.id)).filter((a) => a.action === 'group.updated');
      expect(updated.map((a) => a.payload)).toEqual([{ before: { defaultRoleId: 'r1' }, after: { defaultRoleId: null } }]);
    });

    it('replaces metadata wholesale (no merge)', async () => {
      const { auth } = await game();
      const g = await createGroup(auth, { metadata: { a: 1, b: { c: 2 } } });
      const r = await patchGroup(auth, g.id, { metadata: { z: [1] } });
      expect(r.status).toBe(200);
      expect(r.body.metadata).toEqual({ z: [1] });
      expect((await getGroup(auth, g.id)).body.metadata).toEqual({ z: [1] });
      const updated = (await auditOf(g.id)).filter((a) => a.action === 'group.updated');
      expect(updated.map((a) => a.payload)).toEqual([{ before: { metadata: { a: 1, b: { c: 2 } } }, after: { metadata: { z: [1] } } }]);
    });

    it('metadata counts as changed whenever supplied, even when equal', async () => {
      const { auth } = await game();
      const g = await createGroup(auth, { metadata: { a: 1 } });
      await sleep(5);
      const r = await patchGroup(auth, g.id, { metadata: { a: 1 } });
      expect(r.status).toBe(200);
      expect(r.body.updatedAt > g.updatedAt).toBe(true);
      const updated = (await auditOf(g.id)).filter((a) => a.action === 'group.updated');
      expect(updated.map((a) => a.payload)).toEqual([{ before: { metadata: { a: 1 } }, after: { metadata: { a: 1 } } }]);
    });

    it('diffs several fields: only the changed keys land in before/after', async () => {
      const { auth } = await game();
      const g = await createGroup(auth, { name: 'Same', visibility: 'public', defaultRoleId: 'r1' });
      const r = await patchGroup(auth, g.id, { name: 'Same', visibility: 'secret', defaultRoleId: 'r1', metadata: { m: 1 } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ name: 'Same', visibility: 'secret', defaultRoleId: 'r1', metadata: { m: 1 } });
      const updated = (await auditOf(g.id)).filter((a) => a.action === 'group.updated');
      expect(updated.map((a) => a.payload)).toEqual([
        { before: { visibility: 'public', metadata: {} }, after: { visibility: 'secret', metadata: { m: 1 } } },
      ]);
    });

    it('a no-op PATCH answers 200 with the unchanged group: same updatedAt, no audit, no event', async () => {
      const { auth } = await game();
      const g = await createGroup(auth, { name: 'Same', visibility: 'public', defaultRoleId: null });
      const audits = (await auditOf(g.id)).length;
      const events = (await outboxOf(g.id)).length;
      await sleep(5);
      for (const body of [
        { name: 'Same' },
        { visibility: 'public' },
        { defaultRoleId: null },
        { passcode: null },
        { name: 'Same', visibility: 'public', defaultRoleId: null, passcode: null },
      ]) {
        const r = await patchGroup(auth, g.id, body);
        expect(r.status).toBe(200);
        expect(r.body).toEqual(g);
      }
      expect((await getGroup(auth, g.id)).body.updatedAt).toBe(g.updatedAt);
      expect(await auditOf(g.id)).toHaveLength(audits);
      expect(await outboxOf(g.id)).toHaveLength(events);
    });

    it('concurrent identical PATCHes: all 200 with the same result, exactly one audit entry', async () => {
      const { auth } = await game();
      const g = await createGroup(auth, { name: 'before' });
      const results = await Promise.all(Array.from({ length: 5 }, () => patchGroup(auth, g.id, { name: 'after' })));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(new Set(results.map((r) => r.body.updatedAt)).size).toBe(1);
      const updated = (await auditOf(g.id)).filter((a) => a.action === 'group.updated');
      expect(updated.map((a) => a.payload)).toEqual([{ before: { name: 'before' }, after: { name: 'after' } }]);
      expect((await outboxOf(g.id)).filter((o) => o.type === 'group.updated')).toHaveLength(1);
    });

    it('passcode: set, replace, clear; hasPasscode follows; the audit holds hasPasscode booleans, never the text', async () => {
      const { auth } = await game();
      const g = await createGroup(auth, { visibility: 'public' });
      const hashOf = async () =>
        (await t.db.query<{ passcode_hash: string | null }>(`SELECT passcode_hash FROM groups WHERE id = $1`, [g.id]))[0].passcode_hash;

      const set = await patchGroup(auth, g.id, { passcode: 'first-secret' });
      expect(set.status).toBe(200);
      expect(set.body.hasPasscode).toBe(true);
      expect(set.text).not.toContain('first-secret');
      const firstHash = await hashOf();
      expect(firstHash!.startsWith('scrypt$')).toBe(true);
      expect((await join(auth, g.id, 'u1')).body.code).toBe('passcode_required');
      expect((await join(auth, g.id, 'u1', 'first-secret')).status).toBe(201);

      const replaced = await patchGroup(auth, g.id, { passcode: 'second-secret' });
      expect(replaced.status).toBe(200);
      expect(replaced.body.hasPasscode).toBe(true);
      const secondHash = await hashOf();
      expect(secondHash!.startsWith('scrypt$')).toBe(true);
      expect(secondHash).not.toBe(firstHash);
      expect((await join(auth, g.id, 'u2', 'first-secret')).body.code).toBe('passcode_invalid');
      expect((await join(auth, g.id, 'u2', 'second-secret')).status).toBe(201);

      const cleared = await patchGroup(auth, g.id, { passcode: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.hasPasscode).toBe(false);
      expect(await hashOf()).toBeNull();
      expect((await join(auth, g.id, 'u3')).status).toBe(201);

      const updated = (await auditOf(g.id)).filter((a) => a.action === 'group.updated').map((a) => a.payload);
      expect(updated).toHaveLength(3);
      expect(updated[0]).toEqual({ before: { hasPasscode: false }, after: { hasPasscode: true } });
      expect(updated[1]).toEqual({ before: { hasPasscode: true }, after: { hasPasscode: true } });
      expect(updated[2]).toEqual({ before: { hasPasscode: true }, after: { hasPasscode: false } });
      const stored = JSON.stringify([await auditOf(g.id), await outboxOf(g.id)]);
      for (const secret of ['first-secret', 'second-secret', 'scrypt$']) expect(stored).not.toContain(secret);
    });

    it.each<[string, unknown]>([
      ['empty body', {}],
      ['only unknown keys', { colour: 'red', kind: 'clan' }],
    ])('refuses an %s with 400 and changes nothing', async (_case, body) => {
      const { auth } = await game();
      const g = await createGroup(auth);
      const r = await patchGroup(auth, g.id, body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('bad_request');
      expect((await getGroup(auth, g.id)).body).toEqual(g);
      expect((await auditOf(g.id)).filter((a) => a.action === 'group.updated')).toHaveLength(0);
    });

    it('refuses a missing body with 400', async () => {
      const { auth } = await game();
      const g = await createGroup(auth);
      const r = await t.http.patch(`/v1/groups/${g.id}`).set(auth);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('bad_request');
    });

    it('kind is not patchable: a body with kind and a real change ignores kind', async () => {
      const { auth } = await game();
      const g = await createGroup(auth, { kind: 'guild' });
      const r = await patchGroup(auth, g.id, { kind: 'party', name: 'new' });
      expect(r.status).toBe(200);
      expect(r.body.kind).toBe('guild');
    });

    it.each<[string, Record<string, unknown>]>([
      ['name', { name: '' }],
      ['name', { name: 'x'.repeat(121) }],
      ['name', { name: null }],
      ['name', { name: 3 }],
      ['visibility', { visibility: 'hidden' }],
      ['visibility', { visibility: null }],
      ['metadata', { metadata: [] }],
      ['metadata', { metadata: null }],
      ['metadata', { metadata: 'x' }],
      ['defaultRoleId', { defaultRoleId: 9 }],
      ['passcode', { passcode: 'abc' }],
      ['passcode', { passcode: 'x'.repeat(129) }],
      ['passcode', { passcode: 1234 }],
    ])('refuses a bad %s (%j) with 400 naming the field', async (field, body) => {
      const { auth } = await game();
      const g = await createGroup(auth);
      expectBadRequest(await patchGroup(auth, g.id, body), field);
      expect((await getGroup(auth, g.id)).body).toEqual(g);
    });

    it('accepts name of 1 and 120 characters and passcode of 4 and 128', async () => {
      const { auth } = await game();
      const g = await createGroup(auth);
      for (const body of [{ name: 'x' }, { name: 'y'.repeat(120) }, { passcode: '1234' }, { passcode: 'p'.repeat(128) }]) {
        expect((await patchGroup(auth, g.id, body)).status).toBe(200);
      }
    });

    it('404: unknown, malformed, other game, soft-deleted', async () => {
      const a = await game();
      const b = await game();
      const g = await createGroup(a.auth);
      expectNotFound(await patchGroup(a.auth, randomUUID(), { name: 'x' }));
      expectNotFound(await patchGroup(a.auth, 'nope', { name: 'x' }));
      expectNotFound(await patchGroup(b.auth, g.id, { name: 'x' }));
      expect((await getGroup(a.auth, g.id)).body.name).toBe('Knights');
      await t.http.delete(`/v1/groups/${g.id}`).set(a.auth);
      expectNotFound(await patchGroup(a.auth, g.id, { name: 'x' }));
      const [row] = await t.db.query<{ name: string }>(`SELECT name FROM groups WHERE id = $1`, [g.id]);
      expect(row.name).toBe('Knights');
    });

    it('keeps memberCount and parent in the response', async () => {
      const { auth } = await game();
      const g = await createGroup(auth, { creatorUserId: 'alice' });
      const r = await patchGroup(auth, g.id, { name: 'n2' });
      expect(r.body).toMatchObject({ memberCount: 1, parentGroupId: null, hasPasscode: false, softDeletedAt: null });
    });
  });
});
