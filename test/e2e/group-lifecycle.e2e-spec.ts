import { randomUUID } from 'node:crypto';
import { SweeperService } from '../../src/sweeper/sweeper.service';
import { journalAudit } from '../helpers/journal';
import { asAdmin, bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * SPEC §3 Group lifecycle (soft delete, restore, hard delete, sweeper), §4 DELETE/restore,
 * "soft-deleted groups are invisible to every read path", and the admin game counts.
 */

// ---------------------------------------------------------------------------------------------
// helpers

interface Group {
  id: string;
  gameId: string;
  name: string;
  visibility: string;
  memberCount: number;
  parentGroupId: string | null;
  createdAt: string;
  updatedAt: string;
  softDeletedAt: string | null;
}
type Auth = Record<string, string>;
interface AuditRow {
  action: string;
  target_id: string | null;
  actor_user_id: string | null;
  payload: Record<string, unknown>;
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;

async function game(): Promise<{ gameId: string; auth: Auth }> {
  const g = await newGame(t);
  return { gameId: g.gameId, auth: bearer(g.key) };
}

async function createGroup(auth: Auth, body: Record<string, unknown> = {}): Promise<Group> {
  const r = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'Knights', visibility: 'public', ...body });
  if (r.status !== 201) throw new Error(`create group: ${r.status} ${r.text}`);
  return r.body;
}

const softDelete = (auth: Auth, id: string) => t.http.delete(`/v1/groups/${id}`).set(auth);
const hardDelete = (auth: Auth, id: string) => t.http.delete(`/v1/groups/${id}?hard=true`).set(auth);
const restore = (auth: Auth, id: string) => t.http.post(`/v1/groups/${id}/restore`).set(auth);
const getGroup = (auth: Auth, id: string) => t.http.get(`/v1/groups/${id}`).set(auth);

async function join(auth: Auth, groupId: string, userId: string) {
  const r = await t.http.post(`/v1/groups/${groupId}/join`).set(auth).send({ userId });
  if (r.status !== 201) throw new Error(`join: ${r.status} ${r.text}`);
  return r.body as { id: string };
}

async function invite(auth: Auth, groupId: string, body: Record<string, unknown> = {}): Promise<{ id: string; code: string }> {
  const r = await t.http.post(`/v1/groups/${groupId}/invitations`).set(auth).send(body);
  if (r.status !== 201) throw new Error(`invite: ${r.status} ${r.text}`);
  return r.body;
}

const auditOf = (groupId: string) =>
  t.db.query<AuditRow>(`SELECT action, target_id, actor_user_id, payload FROM ${journalAudit()} WHERE group_id = $1 ORDER BY created_at, id`, [
    groupId,
  ]);

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params);
  return row.n;
}

/** Every row that hangs off a group. */
async function rowsOf(groupId: string) {
  return {
    groups: await count('groups WHERE id = $1', [groupId]),
    members: await count('members WHERE group_id = $1', [groupId]),
    invitations: await count('invitations WHERE group_id = $1', [groupId]),
    audit: await count(`${journalAudit()} WHERE group_id = $1`, [groupId]),
  };
}

/** A group with members (one left), an open and a direct invitation, and audit history. */
async function populated(auth: Auth, body: Record<string, unknown> = {}) {
  const g = await createGroup(auth, { creatorUserId: 'owner', ...body });
  const member = await join(auth, g.id, 'm1');
  await join(auth, g.id, 'm2');
  await t.http.post(`/v1/groups/${g.id}/leave`).set(auth).send({ userId: 'm2' });
  const open = await invite(auth, g.id);
  const direct = await invite(auth, g.id, { targetUserId: 'invitee' });
  return { group: g, memberId: member.id, open, direct };
}

const setSoftDeletedAt = (groupId: string, interval: string) =>
  t.db.query(`UPDATE groups SET soft_deleted_at = now() - $2::interval WHERE id = $1`, [groupId, interval]);

function expectNotFound(r: { status: number; body: { code?: string } }) {
  expect(r.status).toBe(404);
  expect(r.body.code).toBe('not_found');
}

const adminGame = async (gameId: string) => {
  const r = await t.http.get(`/v1/admin/games/${gameId}`).set(asAdmin);
  expect(r.status).toBe(200);
  return r.body as { groupCount: number; activeMemberCount: number };
};

// ---------------------------------------------------------------------------------------------

describe('group lifecycle', () => {
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  describe('soft delete', () => {
    it('200 Group with softDeletedAt; audit group.deleted {kind soft, softDeletedAt, retentionDays 7}', async () => {
      const { auth } = await game();
      const g = await createGroup(auth, { creatorUserId: 'owner' });
      const r = await softDelete(auth, g.id);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id: g.id, name: g.name, memberCount: 1, softDeletedAt: expect.stringMatching(ISO_MS) });
      expect(r.body.softDeletedAt >= g.createdAt).toBe(true);
      const deleted = (await auditOf(g.id)).filter((a) => a.action === 'group.deleted');
      expect(deleted).toHaveLength(1);
      expect(deleted[0]).toMatchObject({ target_id: g.id, actor_user_id: null });
      expect(deleted[0].payload).toEqual({ kind: 'soft', softDeletedAt: r.body.softDeletedAt, retentionDays: 7 });
      // The rows stay for the restore window.
      expect(await rowsOf(g.id)).toMatchObject({ groups: 1, members: 1 });
    });

    it('is idempotent: a second DELETE keeps the same softDeletedAt and writes no second audit entry', async () => {
      const { auth } = await game();
      const g = await createGroup(auth);
      const first = await softDelete(auth, g.id);
      const audits = (await auditOf(g.id)).length;
      await sleep(5);
      const second = await softDelete(auth, g.id);
      expect(second.status).toBe(200);
      expect(second.body.softDeletedAt).toBe(first.body.softDeletedAt);
      expect(second.body.updatedAt).toBe(first.body.updatedAt);
      expect(await auditOf(g.id)).toHaveLength(audits);
      const [row] = await t.db.query<{ at: Date }>(`SELECT soft_deleted_at AS at FROM groups WHERE id = $1`, [g.id]);
      expect(row.at.toISOString()).toBe(first.body.softDeletedAt);
    });

    it('concurrent soft deletes: all 200 with one softDeletedAt, one audit entry', async () => {
      const { auth } = await game();
      const g = await createGroup(auth);
      const results = await Promise.all(Array.from({ length: 4 }, () => softDelete(auth, g.id)));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(new Set(results.map((r) => r.body.softDeletedAt)).size).toBe(1);
      expect((await auditOf(g.id)).filter((a) => a.action === 'group.deleted')).toHaveLength(1);
    });

    it.each(['TRUE', 'True', '1', 'yes', 'false', ''])('hard=%p is a soft delete (only the literal "true" hard-deletes)', async (hard) => {
      const { auth } = await game();
      const g = await createGroup(auth);
      const r = await t.http.delete(`/v1/groups/${g.id}?hard=${hard}`).set(auth);
      expect(r.status).toBe(200);
      expect(r.body.softDeletedAt).toMatch(ISO_MS);
      expect(await count('groups WHERE id = $1', [g.id])).toBe(1);
    });

    it('404: unknown, malformed, another game', async () => {
      const a = await game();
      const b = await game();
      const g = await createGroup(a.auth);
      expectNotFound(await softDelete(a.auth, randomUUID()));
      expectNotFound(await softDelete(a.auth, 'nope'));
      expectNotFound(await softDelete(b.auth, g.id));
      expectNotFound(await hardDelete(b.auth, g.id));
      expect((await getGroup(a.auth, g.id)).body.softDeletedAt).toBeNull();
      expect(await count('groups WHERE id = $1', [g.id])).toBe(1);
    });

    it('needs an API key', async () => {
      const { auth } = await game();
      const g = await createGroup(auth);
      expect((await t.http.delete(`/v1/groups/${g.id}`)).status).toBe(401);
    });
  });

  describe('a soft-deleted group is invisible to every path', () => {
    let auth: Auth;
    let gameId: string;
    let g: Group;
    let parent: Group;
    let memberId: string;
    let open: { code: string };
    let direct: { code: string };
    beforeAll(async () => {
      ({ auth, gameId } = await game());
      ({ group: g, memberId, open, direct } = await populated(auth));
      parent = await createGroup(auth, { name: 'a live parent' });
      expect((await softDelete(auth, g.id)).status).toBe(200);
    });

    type Req = () => Promise<{ status: number; body: { code?: string } }>;
    const paths: [string, Req][] = [
      ['GET /v1/groups/:id', () => getGroup(auth, g.id)],
      ['GET /v1/groups/:id?viewer=owner', () => t.http.get(`/v1/groups/${g.id}?viewer=owner`).set(auth)],
      ['PATCH /v1/groups/:id', () => t.http.patch(`/v1/groups/${g.id}`).set(auth).send({ name: 'x' })],
      ['POST /v1/groups/:id/join', () => t.http.post(`/v1/groups/${g.id}/join`).set(auth).send({ userId: 'newcomer' })],
      ['POST /v1/groups/:id/leave', () => t.http.post(`/v1/groups/${g.id}/leave`).set(auth).send({ userId: 'm1' })],
      ['POST /v1/groups/:id/members/:userId/kick', () => t.http.post(`/v1/groups/${g.id}/members/m1/kick`).set(auth).send({})],
      ['GET /v1/groups/:id/members', () => t.http.get(`/v1/groups/${g.id}/members`).set(auth)],
      ['GET /v1/groups/:id/members/:userId', () => t.http.get(`/v1/groups/${g.id}/members/m1`).set(auth)],
      ['PATCH /v1/groups/:id/members/:userId', () => t.http.patch(`/v1/groups/${g.id}/members/m1`).set(auth).send({ notesPublic: 'x' })],
      ['POST /v1/groups/:id/invitations', () => t.http.post(`/v1/groups/${g.id}/invitations`).set(auth).send({})],
      ['GET /v1/groups/:id/invitations', () => t.http.get(`/v1/groups/${g.id}/invitations`).set(auth)],
      ['GET /v1/groups/:id/audit', () => t.http.get(`/v1/groups/${g.id}/audit`).set(auth)],
      ['GET /v1/members/:id', () => t.http.get(`/v1/members/${memberId}`).set(auth)],
      ['GET /v1/invitations/:code (public preview)', () => t.http.get(`/v1/invitations/${open.code}`)],
      ['POST /v1/invitations/:code/accept', () => t.http.post(`/v1/invitations/${open.code}/accept`).set(auth).send({ userId: 'newcomer' })],
      ['POST /v1/invitations/:code/accept (direct)', () => t.http.post(`/v1/invitations/${direct.code}/accept`).set(auth).send({ userId: 'invitee' })],
      ['POST /v1/invitations/:code/decline', () => t.http.post(`/v1/invitations/${open.code}/decline`).set(auth).send({})],
      ['DELETE /v1/invitations/:code', () => t.http.delete(`/v1/invitations/${open.code}`).set(auth)],
      ['PUT /v1/groups/:id/parent', () => t.http.put(`/v1/groups/${g.id}/parent`).set(auth).send({ parentGroupId: parent.id })],
      ['PUT /v1/groups/:id/parent (as parent)', () => t.http.put(`/v1/groups/${parent.id}/parent`).set(auth).send({ parentGroupId: g.id })],
      ['GET /v1/groups/:id/children', () => t.http.get(`/v1/groups/${g.id}/children`).set(auth)],
    ];

    it.each(paths)('%s answers 404 not_found', async (_name, req) => {
      expectNotFound(await req());
    });

    it('nothing changed behind the 404s: members, invitations and identities untouched', async () => {
      const members = await t.db.query<{ external_user_id: string; status: string }>(
        `SELECT external_user_id, status FROM members WHERE group_id = $1 ORDER BY external_user_id`,
        [g.id],
      );
      expect(members).toEqual([
        { external_user_id: 'm1', status: 'active' },
        { external_user_id: 'm2', status: 'left' },
        { external_user_id: 'owner', status: 'active' },
      ]);
      expect(await count('invitations WHERE group_id = $1 AND used_at IS NULL', [g.id])).toBe(2);
      expect(await count(`user_identities WHERE game_id = $1 AND external_id = 'newcomer'`, [gameId])).toBe(0);
      expect(await count(`${journalAudit()} WHERE group_id = $1 AND action <> 'group.deleted' AND created_at > (SELECT soft_deleted_at FROM groups WHERE id = $1)`, [g.id])).toBe(0);
      const [row] = await t.db.query<{ parent: string | null }>(`SELECT parent_group_id AS parent FROM groups WHERE id = $1`, [parent.id]);
      expect(row.parent).toBeNull();
    });

    it('GET /v1/groups omits it; GET /v1/users/:userId/members omits the membership', async () => {
      const list = await t.http.get('/v1/groups?limit=100').set(auth);
      expect(list.body.items.map((x: Group) => x.id)).toEqual([parent.id]);
      const mine = await t.http.get('/v1/users/m1/members').set(auth);
      expect(mine.status).toBe(200);
      expect(mine.body).toEqual([]);
    });
  });

  describe('restore', () => {
    it('within the window: 200 live Group, audit group.restored {previousSoftDeletedAt}, members kept', async () => {
      const { auth } = await game();
      const { group: g } = await populated(auth);
      const deleted = (await softDelete(auth, g.id)).body as Group;
      const r = await restore(auth, g.id);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id: g.id, softDeletedAt: null, memberCount: 2 });
      expect((await getGroup(auth, g.id)).body).toEqual(r.body);
      const restored = (await auditOf(g.id)).filter((a) => a.action === 'group.restored');
      expect(restored).toHaveLength(1);
      expect(restored[0]).toMatchObject({ target_id: g.id, actor_user_id: null });
      expect(restored[0].payload).toEqual({ previousSoftDeletedAt: deleted.softDeletedAt });
      expect((await t.http.get(`/v1/groups/${g.id}/members/m1`).set(auth)).body.status).toBe('active');
      expect((await t.http.get(`/v1/groups/${g.id}/invitations`).set(auth)).body.items).toHaveLength(2);
      // Deleting again starts a new window with a new audit entry.
      await sleep(5);
      const again = await softDelete(auth, g.id);
      expect(again.body.softDeletedAt > deleted.softDeletedAt!).toBe(true);
      expect((await auditOf(g.id)).filter((a) => a.action === 'group.deleted')).toHaveLength(2);
    });

    it('shortly before the 7-day window closes still restores', async () => {
      const { auth } = await game();
      const g = await createGroup(auth);
      await softDelete(auth, g.id);
      await setSoftDeletedAt(g.id, '6 days 23 hours');
      const r = await restore(auth, g.id);
      expect(r.status).toBe(200);
      expect(r.body.softDeletedAt).toBeNull();
    });

    it('of a live group: 200 unchanged, same updatedAt, no audit', async () => {
      const { auth } = await game();
      const g = await createGroup(auth);
      const audits = (await auditOf(g.id)).length;
      await sleep(5);
      const r = await restore(auth, g.id);
      expect(r.status).toBe(200);
      expect(r.body).toEqual(g);
      expect(await auditOf(g.id)).toHaveLength(audits);
    });

    it.each<[string, (req: ReturnType<typeof t.http.post>) => unknown]>([
      ['no body', (req) => req],
      ['{}', (req) => req.send({})],
      ['an empty JSON body', (req) => req.set('content-type', 'application/json').send('')],
    ])('accepts %s (DECISIONS §17)', async (_case, withBody) => {
      const { auth } = await game();
      const g = await createGroup(auth);
      await softDelete(auth, g.id);
      const r = (await withBody(t.http.post(`/v1/groups/${g.id}/restore`).set(auth))) as { status: number; body: Group };
      expect(r.status).toBe(200);
      expect(r.body.softDeletedAt).toBeNull();
    });

    it.each(['8 days', '7 days 1 minute', '400 days'])(
      'past the window (%s ago): 410 restore_window_expired, the group stays soft-deleted, no audit',
      async (ago) => {
        const { auth } = await game();
        const g = await createGroup(auth);
        await softDelete(auth, g.id);
        await setSoftDeletedAt(g.id, ago);
        const [before] = await t.db.query<{ at: Date }>(`SELECT soft_deleted_at AS at FROM groups WHERE id = $1`, [g.id]);
        const audits = (await auditOf(g.id)).length;
        const r = await restore(auth, g.id);
        expect(r.status).toBe(410);
        expect(r.body).toMatchObject({ code: 'restore_window_expired', status: 410, message: expect.any(String) });
        const [after] = await t.db.query<{ at: Date }>(`SELECT soft_deleted_at AS at FROM groups WHERE id = $1`, [g.id]);
        expect(after.at.toISOString()).toBe(before.at.toISOString());
        expect(await auditOf(g.id)).toHaveLength(audits);
        expectNotFound(await getGroup(auth, g.id));
      },
    );

    it('404: unknown, malformed, another game, hard-deleted', async () => {
      const a = await game();
      const b = await game();
      const g = await createGroup(a.auth);
      await softDelete(a.auth, g.id);
      expectNotFound(await restore(a.auth, randomUUID()));
      expectNotFound(await restore(a.auth, 'nope'));
      expectNotFound(await restore(b.auth, g.id));
      expectNotFound(await getGroup(a.auth, g.id));
      expect((await hardDelete(a.auth, g.id)).status).toBe(204);
      expectNotFound(await restore(a.auth, g.id));
    });
  });

  describe('hard delete', () => {
    it('204 with no body; cascades to members, invitations and the audit history; writes no audit entry', async () => {
      const { gameId, auth } = await game();
      const { group: g, memberId, open } = await populated(auth);
      const keep = await populated(auth, { name: 'bystander' });
      const before = await rowsOf(g.id);
      expect(before).toEqual({ groups: 1, members: 3, invitations: 2, audit: expect.any(Number) });
      expect(before.audit).toBeGreaterThanOrEqual(5);
      const gameAudit = await count(`${journalAudit()} WHERE game_id = $1`, [gameId]);
      const keepRows = await rowsOf(keep.group.id);

      const r = await hardDelete(auth, g.id);
      expect(r.status).toBe(204);
      expect(r.text).toBe('');
      expect(await rowsOf(g.id)).toEqual({ groups: 0, members: 0, invitations: 0, audit: 0 });
      expect(await count(`${journalAudit()} WHERE game_id = $1`, [gameId])).toBe(gameAudit - before.audit);
      expect(await count(`${journalAudit()} WHERE target_id = $1`, [g.id])).toBe(0);
      expect(await rowsOf(keep.group.id)).toEqual(keepRows);

      expectNotFound(await getGroup(auth, g.id));
      expectNotFound(await t.http.get(`/v1/members/${memberId}`).set(auth));
      expectNotFound(await t.http.get(`/v1/invitations/${open.code}`));
      expectNotFound(await hardDelete(auth, g.id));
      expectNotFound(await softDelete(auth, g.id));
    });

    it('removes a soft-deleted group too', async () => {
      const { auth } = await game();
      const { group: g } = await populated(auth);
      await softDelete(auth, g.id);
      const r = await hardDelete(auth, g.id);
      expect(r.status).toBe(204);
      expect(await rowsOf(g.id)).toEqual({ groups: 0, members: 0, invitations: 0, audit: 0 });
    });

    it('removes a soft-deleted group whose restore window has passed', async () => {
      const { auth } = await game();
      const g = await createGroup(auth);
      await softDelete(auth, g.id);
      await setSoftDeletedAt(g.id, '30 days');
      expect((await hardDelete(auth, g.id)).status).toBe(204);
      expect(await count('groups WHERE id = $1', [g.id])).toBe(0);
    });
  });

  describe('writes racing a hard delete', () => {
    // Whichever commits first, a write on a group being hard-deleted answers as if it ran alone
    // before (success) or after (404) the delete: never a 500.
    const ops: [string, (auth: Auth, id: string) => Promise<{ status: number; body: { code?: string } }>, number[]][] = [
      ['POST /v1/groups/:id/invitations', (auth, id) => t.http.post(`/v1/groups/${id}/invitations`).set(auth).send({}), [201, 404]],
      ['POST /v1/groups/:id/join', (auth, id) => t.http.post(`/v1/groups/${id}/join`).set(auth).send({ userId: 'racer' }), [201, 404]],
      ['POST /v1/groups/:id/leave', (auth, id) => t.http.post(`/v1/groups/${id}/leave`).set(auth).send({ userId: 'owner' }), [200, 404]],
      ['PATCH /v1/groups/:id', (auth, id) => t.http.patch(`/v1/groups/${id}`).set(auth).send({ name: 'racing' }), [200, 404]],
      ['DELETE /v1/groups/:id (soft)', (auth, id) => softDelete(auth, id), [200, 404]],
    ];

    it.each(ops)('%s answers success or 404, never 500', async (_name, op, allowed) => {
      const { auth } = await game();
      const seen: number[] = [];
      for (let round = 0; round < 12; round++) {
        const g = await createGroup(auth, { creatorUserId: 'owner' });
        const [del, res] = await Promise.all([hardDelete(auth, g.id), op(auth, g.id)]);
        expect(del.status).toBe(204);
        seen.push(res.status);
        expect(await rowsOf(g.id)).toEqual({ groups: 0, members: 0, invitations: 0, audit: 0 });
      }
      expect(seen.filter((s) => !allowed.includes(s))).toEqual([]);
    });
  });

  describe('sweeper', () => {
    it('removes groups soft-deleted more than 7 days ago with their rows; keeps younger and live ones', async () => {
      const { auth } = await game();
      const old = await populated(auth, { name: 'old' });
      const justPast = await populated(auth, { name: 'just past' });
      const young = await populated(auth, { name: 'young' });
      const live = await populated(auth, { name: 'live' });
      for (const [x, ago] of [
        [old, '8 days'],
        [justPast, '7 days 5 minutes'],
        [young, '6 days'],
      ] as const) {
        expect((await softDelete(auth, x.group.id)).status).toBe(200);
        await setSoftDeletedAt(x.group.id, ago);
      }
      const youngRows = await rowsOf(young.group.id);
      const liveRows = await rowsOf(live.group.id);

      const result = await t.app.get(SweeperService).sweep();
      expect(result.swept).toBe(true);
      expect(result.groupsRemoved).toBeGreaterThanOrEqual(2);

      for (const gone of [old, justPast]) {
        expect(await rowsOf(gone.group.id)).toEqual({ groups: 0, members: 0, invitations: 0, audit: 0 });
      }
      expect(await rowsOf(young.group.id)).toEqual(youngRows);
      expect(await rowsOf(live.group.id)).toEqual(liveRows);
      expect(youngRows).toMatchObject({ groups: 1, members: 3, invitations: 2 });
      // The young one can still be restored, the swept ones are gone for good.
      expect((await restore(auth, young.group.id)).status).toBe(200);
      expectNotFound(await restore(auth, old.group.id));
      // A second sweep finds nothing more of these.
      await t.app.get(SweeperService).sweep();
      expect(await rowsOf(live.group.id)).toEqual(liveRows);
      expect((await rowsOf(young.group.id)).groups).toBe(1);
    });

    it('children of a swept group become roots', async () => {
      const { auth } = await game();
      const parent = await createGroup(auth, { name: 'parent' });
      const child = await createGroup(auth, { name: 'child' });
      expect((await t.http.put(`/v1/groups/${child.id}/parent`).set(auth).send({ parentGroupId: parent.id })).status).toBe(200);
      await softDelete(auth, parent.id);
      await setSoftDeletedAt(parent.id, '9 days');
      await t.app.get(SweeperService).sweep();
      expect(await count('groups WHERE id = $1', [parent.id])).toBe(0);
      expect((await getGroup(auth, child.id)).body.parentGroupId).toBeNull();
    });
  });

  describe('admin game counts', () => {
    it('groupCount excludes soft-deleted groups; activeMemberCount counts active members of live groups only', async () => {
      const { gameId, auth } = await game();
      expect(await adminGame(gameId)).toMatchObject({ groupCount: 0, activeMemberCount: 0 });

      const a = await createGroup(auth, { creatorUserId: 'owner' });
      const b = await createGroup(auth);
      expect(await adminGame(gameId)).toMatchObject({ groupCount: 2, activeMemberCount: 1 });

      await join(auth, a.id, 'u1');
      await join(auth, a.id, 'u2');
      await join(auth, b.id, 'u1');
      expect(await adminGame(gameId)).toMatchObject({ groupCount: 2, activeMemberCount: 4 });

      await t.http.post(`/v1/groups/${a.id}/leave`).set(auth).send({ userId: 'u1' });
      expect(await adminGame(gameId)).toMatchObject({ activeMemberCount: 3 });
      await t.http.post(`/v1/groups/${a.id}/members/u2/kick`).set(auth).send({});
      expect(await adminGame(gameId)).toMatchObject({ activeMemberCount: 2 });
      await join(auth, a.id, 'u1');
      expect(await adminGame(gameId)).toMatchObject({ activeMemberCount: 3 });

      await softDelete(auth, a.id);
      expect(await adminGame(gameId)).toMatchObject({ groupCount: 1, activeMemberCount: 1 });
      await restore(auth, a.id);
      expect(await adminGame(gameId)).toMatchObject({ groupCount: 2, activeMemberCount: 3 });

      const listed = await t.http.get('/v1/admin/games?limit=200').set(asAdmin);
      expect(listed.body.items.find((x: { id: string }) => x.id === gameId)).toMatchObject({ groupCount: 2, activeMemberCount: 3 });

      await hardDelete(auth, a.id);
      expect(await adminGame(gameId)).toMatchObject({ groupCount: 1, activeMemberCount: 1 });
    });

    it('counts only the path game', async () => {
      const a = await game();
      const b = await game();
      await createGroup(b.auth, { creatorUserId: 'x' });
      expect(await adminGame(a.gameId)).toMatchObject({ groupCount: 0, activeMemberCount: 0 });
      expect(await adminGame(b.gameId)).toMatchObject({ groupCount: 1, activeMemberCount: 1 });
    });
  });
});
