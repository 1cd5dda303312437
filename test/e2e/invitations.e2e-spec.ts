import { randomUUID } from 'node:crypto';
import { expectError } from '../helpers/errors';
import { postGroup } from '../helpers/groups';
import { identityOf } from '../helpers/identities';
import { journalAudit, journalEvents } from '../helpers/journal';
import { seqUid as uid } from '../helpers/ids';
import { ISO_MS, UUID, type Invitation } from '../helpers/shapes';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * SPEC §2 Invitation, §3 Invitation, §4 Groups (invitations) and Invitations by code, §7, §8;
 * DECISIONS §17. Bans are not built yet and are not exercised here.
 */

const CODE = /^[0-9a-f]{16}$/;

interface AuditDbRow {
  id: string;
  group_id: string | null;
  actor_user_id: string | null;
  action: string;
  target_id: string | null;
  payload: Record<string, unknown>;
}

describe('invitations', () => {
  let t: TestApp;
  let gameId: string;
  let auth: Record<string, string>;
  let otherAuth: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp();
    ({ gameId, auth } = await authedGame(t, 'invitations'));
    ({ auth: otherAuth } = await authedGame(t, 'invitations other'));
  });
  afterAll(() => t.close());

  function createGroup(body: Record<string, unknown> = {}, as = auth): Promise<{ id: string }> {
    return postGroup(t, as, { kind: 'guild', name: 'G', ...body });
  }
  const createInv = (groupId: string, body: unknown = {}, as = auth) =>
    t.http.post(`/v1/groups/${groupId}/invitations`).set(as).send(body as object);
  async function invite(groupId: string, body: Record<string, unknown> = {}): Promise<Invitation> {
    const r = await createInv(groupId, body);
    if (r.status !== 201) throw new Error(`invite: ${r.status} ${r.text}`);
    return r.body;
  }
  const accept = (code: string, body: unknown, as = auth) => t.http.post(`/v1/invitations/${code}/accept`).set(as).send(body as object);
  const decline = (code: string, body?: unknown, as = auth) => {
    const req = t.http.post(`/v1/invitations/${code}/decline`).set(as);
    return body === undefined ? req : req.send(body as object);
  };
  const preview = (code: string) => t.http.get(`/v1/invitations/${code}`);
  const revoke = (code: string, as: Record<string, string> | null = auth) => {
    const req = t.http.delete(`/v1/invitations/${code}`);
    return as ? req.set(as) : req;
  };
  function svcIdOf(userId: string): Promise<string | null> {
    return identityOf(t, gameId, userId);
  }
  const audits = (groupId: string, action?: string) =>
    t.db.query<AuditDbRow>(
      `SELECT * FROM ${journalAudit()} WHERE group_id = $1 ${action ? 'AND action = $2' : ''} ORDER BY created_at, id`,
      action ? [groupId, action] : [groupId],
    );
  const invRow = async (code: string) =>
    (
      await t.db.query<{ used_at: Date | null; used_by: string | null }>('SELECT used_at, used_by FROM invitations WHERE code = $1', [code])
    )[0];
  const memberRows = (groupId: string) => t.db.query<{ id: string; status: string }>('SELECT id, status FROM members WHERE group_id = $1', [groupId]);
  const expire = (code: string) => t.db.query(`UPDATE invitations SET expires_at = now() - interval '1 minute' WHERE code = $1`, [code]);

  describe('POST /v1/groups/:id/invitations', () => {
    it('creates an open code: 201 Invitation with a 16 lowercase hex code and nulls', async () => {
      const g = await createGroup();
      const r = await createInv(g.id, {});
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: expect.stringMatching(UUID),
        groupId: g.id,
        code: expect.stringMatching(CODE),
        roleId: null,
        targetUserId: null,
        invitedByUserId: null,
        createdBy: null,
        createdAt: expect.stringMatching(ISO_MS),
        expiresAt: null,
        usedAt: null,
        usedBy: null,
        maxUses: 1,
        uses: 0,
      });
    });

    it('accepts no body at all as an open code', async () => {
      const g = await createGroup();
      const r = await t.http.post(`/v1/groups/${g.id}/invitations`).set(auth);
      expect(r.status).toBe(201);
      expect(r.body.targetUserId).toBeNull();
    });

    it('creates a targeted code, storing roleId without validating it; no identity is created for the target', async () => {
      const g = await createGroup();
      const target = uid('target');
      const r = await createInv(g.id, { targetUserId: target, roleId: 'no-such-role' });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ targetUserId: target, roleId: 'no-such-role', code: expect.stringMatching(CODE) });
      const [row] = await t.db.query<{ role_id: string; target_user_id: string }>(
        'SELECT role_id, target_user_id FROM invitations WHERE id = $1',
        [r.body.id],
      );
      expect(row).toEqual({ role_id: 'no-such-role', target_user_id: target });
    });

    it('codes are unique', async () => {
      const g = await createGroup();
      const codes = await Promise.all(Array.from({ length: 40 }, () => invite(g.id).then((i) => i.code)));
      expect(new Set(codes).size).toBe(40);
      for (const c of codes) expect(c).toMatch(CODE);
    });

    it.each([
      ['30s', 30_000],
      ['5m', 300_000],
      ['2h', 7_200_000],
      ['7d', 604_800_000],
      ['1s', 1_000],
    ])('expiresIn %s sets expiresAt = now + duration', async (expiresIn, ms) => {
      const g = await createGroup();
      const before = Date.now();
      const r = await createInv(g.id, { expiresIn });
      const after = Date.now();
      expect(r.status).toBe(201);
      expect(r.body.expiresAt).toMatch(ISO_MS);
      const at = Date.parse(r.body.expiresAt);
      expect(at).toBeGreaterThanOrEqual(before + ms - 5);
      expect(at).toBeLessThanOrEqual(after + ms + 5);
    });

    it('a large but representable expiresIn (36500d) is accepted: no upper bound', async () => {
      const g = await createGroup();
      const r = await createInv(g.id, { expiresIn: '36500d' });
      expect(r.status).toBe(201);
      expect(Date.parse(r.body.expiresAt) - Date.now()).toBeGreaterThan(36499 * 86_400_000);
    });

    it.each([['0s'], ['10x'], ['-1m'], ['5'], ['1.5h'], [''], ['m'], [' 5m'], ['5m '], ['5M'], ['1h30m'], ['0d']])(
      'malformed expiresIn %p is 400 naming expiresIn, nothing created',
      async (expiresIn) => {
        const g = await createGroup();
        const r = await createInv(g.id, { expiresIn });
        expectError(r, 400, 'bad_request');
        expect(r.body.message).toMatch(/expiresIn/);
        expect(await t.db.query('SELECT 1 FROM invitations WHERE group_id = $1', [g.id])).toHaveLength(0);
        expect(await audits(g.id, 'member.invited')).toHaveLength(0);
      },
    );

    it.each([[5], [null], [true]])('a non-string expiresIn %p is 400 naming expiresIn', async (expiresIn) => {
      const g = await createGroup();
      const r = await createInv(g.id, { expiresIn });
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toMatch(/expiresIn/);
    });

    it.each([['99999999999d'], ['9'.repeat(400) + 's']])('a value past any timestamp (%s) is 400, not 500', async (expiresIn) => {
      const g = await createGroup();
      const r = await createInv(g.id, { expiresIn });
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toMatch(/expiresIn/);
    });

    it('an empty or non-string targetUserId is 400 naming targetUserId', async () => {
      const g = await createGroup();
      for (const targetUserId of ['', 12]) {
        const r = await createInv(g.id, { targetUserId });
        expectError(r, 400, 'bad_request');
        expect(r.body.message).toMatch(/targetUserId/);
      }
    });

    it('unknown, soft-deleted or other-game group is 404; no key is 401', async () => {
      expectError(await createInv(randomUUID()), 404, 'not_found');
      expectError(await createInv('nope'), 404, 'not_found');
      const theirs = await createGroup({}, otherAuth);
      expectError(await createInv(theirs.id), 404, 'not_found');
      const gone = await createGroup();
      await t.http.delete(`/v1/groups/${gone.id}`).set(auth);
      expectError(await createInv(gone.id), 404, 'not_found');
      const g = await createGroup();
      expectError(await t.http.post(`/v1/groups/${g.id}/invitations`).send({}), 401, 'invalid_api_key');
    });

    it('audits member.invited: targetId the target user, payload invitationId, code, targetUserId, roleId, expiresAt', async () => {
      const g = await createGroup();
      const target = uid('target');
      const direct = await invite(g.id, { targetUserId: target, roleId: 'r1', expiresIn: '1h' });
      const open = await invite(g.id);
      const rows = await audits(g.id, 'member.invited');
      expect(rows).toHaveLength(2);
      expect(rows[0]).toMatchObject({ target_id: target, actor_user_id: null });
      expect(rows[0].payload).toEqual({
        invitationId: direct.id,
        code: direct.code,
        targetUserId: target,
        roleId: 'r1',
        expiresAt: direct.expiresAt,
        invitedByUserId: null,
      });
      expect(rows[1].target_id).toBeNull();
      expect(rows[1].payload).toEqual({ invitationId: open.id, code: open.code, targetUserId: null, roleId: null, expiresAt: null, invitedByUserId: null });
    });
  });

  describe('GET /v1/groups/:id/invitations', () => {
    let g: { id: string };
    let fresh: Invitation;
    let used: Invitation;
    let expired: Invitation;
    let usedExpired: Invitation;
    let forever: Invitation;
    const list = (query: string, groupId = g.id, as = auth) => t.http.get(`/v1/groups/${groupId}/invitations${query}`).set(as);
    const ids = (r: { body: { items: Invitation[] } }) => r.body.items.map((i) => i.id);

    beforeAll(async () => {
      g = await createGroup();
      forever = await invite(g.id);
      fresh = await invite(g.id, { expiresIn: '1d' });
      used = await invite(g.id);
      expect((await accept(used.code, { userId: uid() })).status).toBe(201);
      expired = await invite(g.id, { expiresIn: '1d' });
      await expire(expired.code);
      usedExpired = await invite(g.id, { expiresIn: '1d' });
      expect((await decline(usedExpired.code)).status).toBe(204);
      await expire(usedExpired.code);
    });

    it('by default excludes used and expired codes, newest first', async () => {
      const r = await list('');
      expect(r.status).toBe(200);
      expect(r.body.nextCursor).toBeNull();
      expect(ids(r)).toEqual([fresh.id, forever.id]);
      expect(r.body.items[1]).toEqual(forever);
      expect((await list('?includeUsed=false&includeExpired=false')).body).toEqual(r.body);
    });

    it('includeUsed=true brings used codes in (not expired ones)', async () => {
      expect(ids(await list('?includeUsed=true'))).toEqual([used.id, fresh.id, forever.id]);
    });

    it('includeExpired=true brings expired codes in (not used ones)', async () => {
      expect(ids(await list('?includeExpired=true'))).toEqual([expired.id, fresh.id, forever.id]);
    });

    it('both bring everything in', async () => {
      expect(ids(await list('?includeExpired=true&includeUsed=true'))).toEqual([usedExpired.id, expired.id, used.id, fresh.id, forever.id]);
    });

    it.each([['includeUsed=yes', 'includeUsed'], ['includeExpired=1', 'includeExpired'], ['includeUsed=TRUE', 'includeUsed']])(
      '%s is 400 naming the flag',
      async (query, field) => {
        const r = await list(`?${query}`);
        expectError(r, 400, 'bad_request');
        expect(r.body.message).toMatch(new RegExp(field));
      },
    );

    it('walks newest first with limit and cursor, without duplicates, including same-createdAt ties', async () => {
      const walkGroup = await createGroup();
      const made: Invitation[] = [];
      for (let i = 0; i < 7; i++) made.push(await invite(walkGroup.id));
      // force ties on createdAt for part of the set: the id breaks them
      await t.db.query(`UPDATE invitations SET created_at = '2030-05-05T05:05:05.555Z' WHERE id = ANY($1::uuid[])`, [
        made.slice(2, 6).map((i) => i.id),
      ]);
      const all = (await list('?limit=100', walkGroup.id)).body.items as Invitation[];
      for (let i = 1; i < all.length; i++) {
        const [a, b] = [all[i - 1], all[i]];
        expect(a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id)).toBe(true);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r = await list(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, walkGroup.id);
        expect(r.status).toBe(200);
        seen.push(...ids(r));
        cursor = r.body.nextCursor;
        pages++;
      } while (cursor && pages < 20);
      expect(seen).toEqual(all.map((i) => i.id));
      expect(new Set(seen).size).toBe(7);
      expect(pages).toBe(4);
    });

    it('limit 1..cap; 0, 101 and abc are 400 naming limit', async () => {
      expect((await list('?limit=1')).body.items).toHaveLength(1);
      expect((await list('?limit=100')).status).toBe(200);
      for (const bad of ['0', '101', 'abc']) {
        const r = await list(`?limit=${bad}`);
        expectError(r, 400, 'bad_request');
        expect(r.body.message).toMatch(/limit/);
      }
    });

    it('a cursor from another group, or garbage, is 400', async () => {
      const other = await createGroup();
      await invite(other.id);
      await invite(other.id);
      const foreign = (await list('?limit=1', other.id)).body.nextCursor;
      expect(foreign).toEqual(expect.any(String));
      expectError(await list(`?cursor=${encodeURIComponent(foreign)}`), 400, 'bad_request');
      expectError(await list('?cursor=%%%'), 400, 'bad_request');
      expectError(await list('?cursor=abc'), 400, 'bad_request');
    });

    it('unknown, other-game or soft-deleted group is 404; no key 401', async () => {
      expectError(await list('', randomUUID()), 404, 'not_found');
      expectError(await list('', g.id, otherAuth), 404, 'not_found');
      const gone = await createGroup();
      await t.http.delete(`/v1/groups/${gone.id}`).set(auth);
      expectError(await list('', gone.id), 404, 'not_found');
      expectError(await t.http.get(`/v1/groups/${g.id}/invitations`), 401, 'invalid_api_key');
    });
  });

  describe('GET /v1/invitations/:code (public preview)', () => {
    it('answers without any Authorization header', async () => {
      const g = await createGroup({ visibility: 'secret' });
      const inv = await invite(g.id, { targetUserId: uid(), roleId: 'hint', expiresIn: '2h' });
      const r = await preview(inv.code);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ ...inv, group: { id: g.id, name: 'G', kind: 'guild' } });
    });

    it('an expired code still previews (no expiry gate)', async () => {
      const g = await createGroup();
      const inv = await invite(g.id, { expiresIn: '1m' });
      await expire(inv.code);
      const r = await preview(inv.code);
      expect(r.status).toBe(200);
      expect(Date.parse(r.body.expiresAt)).toBeLessThan(Date.now());
    });

    it('a used code previews with usedAt and usedBy', async () => {
      const g = await createGroup();
      const inv = await invite(g.id);
      const userId = uid();
      await accept(inv.code, { userId });
      const r = await preview(inv.code);
      expect(r.status).toBe(200);
      expect(r.body.usedAt).toMatch(ISO_MS);
      expect(r.body.usedBy).toBe(await svcIdOf(userId));
    });

    it('an unknown or malformed code is 404 not_found', async () => {
      for (const code of ['0123456789abcdef', 'nope', 'zzzzzzzzzzzzzzzz', '0123456789abcdef0', "'; DROP TABLE x"]) {
        expectError(await preview(encodeURIComponent(code)), 404, 'not_found');
      }
    });

    it('the code of a soft-deleted group is 404', async () => {
      const g = await createGroup();
      const inv = await invite(g.id);
      await t.http.delete(`/v1/groups/${g.id}`).set(auth);
      expectError(await preview(inv.code), 404, 'not_found');
    });
  });

  describe('POST /v1/invitations/:code/accept', () => {
    it('redeems an open code: 201 Member, code used by the internal id, audit member.joined, event member.joined', async () => {
      const g = await createGroup();
      const inv = await invite(g.id, { roleId: 'ignored-hint' });
      const userId = uid();
      const r = await accept(inv.code, { userId });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: expect.stringMatching(UUID),
        groupId: g.id,
        userId,
        status: 'active',
        roles: [],
        roleGrants: [],
        metadata: {},
        notesPublic: null,
        notesPrivate: null,
        joinedAt: expect.stringMatching(ISO_MS),
        leftAt: null,
        bannedUntil: null,
        timedOutUntil: null,
      });
      const svc = await svcIdOf(userId);
      expect(svc).toMatch(UUID);
      const row = await invRow(inv.code);
      expect(row.used_at).not.toBeNull();
      expect(row.used_by).toBe(svc);
      const p = await preview(inv.code);
      expect(p.body.usedBy).toBe(svc);
      expect(p.body.usedBy).not.toBe(userId);
      const rows = await audits(g.id, 'member.joined');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ actor_user_id: svc, target_id: userId });
      expect(rows[0].payload).toEqual({ memberId: r.body.id, invitationId: inv.id, code: inv.code });
      const events = await t.db.query<{ body: Record<string, unknown> }>(
        `SELECT body FROM ${journalEvents()} WHERE group_id = $1 AND type = 'member.joined'`,
        [g.id],
      );
      expect(events).toHaveLength(1);
      expect(events[0].body).toMatchObject({ type: 'member.joined', gameId, groupId: g.id, member: r.body });
      const count = await t.http.get(`/v1/groups/${g.id}`).set(auth);
      expect(count.body.memberCount).toBe(1);
    });

    it('a direct code used by another user is 403 permission_denied, and the target can still accept it', async () => {
      const g = await createGroup();
      const target = uid('target');
      const intruder = uid('intruder');
      const inv = await invite(g.id, { targetUserId: target });
      const r = await accept(inv.code, { userId: intruder });
      expectError(r, 403, 'permission_denied');
      expect((await invRow(inv.code)).used_at).toBeNull();
      expect(await memberRows(g.id)).toHaveLength(0);
      const ok = await accept(inv.code, { userId: target });
      expect(ok.status).toBe(201);
      expect(ok.body.userId).toBe(target);
    });

    it('a used code is 410 invitation_used', async () => {
      const g = await createGroup();
      const inv = await invite(g.id);
      await accept(inv.code, { userId: uid() });
      const second = uid();
      expectError(await accept(inv.code, { userId: second }), 410, 'invitation_used');
      expect(await svcIdOf(second)).toBeNull();
    });

    it('a declined code is 410 invitation_used on accept', async () => {
      const g = await createGroup();
      const inv = await invite(g.id);
      await decline(inv.code);
      expectError(await accept(inv.code, { userId: uid() }), 410, 'invitation_used');
    });

    it('an expired code is 410 invitation_expired and stays unused', async () => {
      const g = await createGroup();
      const inv = await invite(g.id, { expiresIn: '1h' });
      await expire(inv.code);
      expectError(await accept(inv.code, { userId: uid() }), 410, 'invitation_expired');
      expect((await invRow(inv.code)).used_at).toBeNull();
      expect(await memberRows(g.id)).toHaveLength(0);
    });

    it('a code both used and expired reports invitation_used', async () => {
      const g = await createGroup();
      const inv = await invite(g.id, { expiresIn: '1h' });
      await accept(inv.code, { userId: uid() });
      await expire(inv.code);
      expectError(await accept(inv.code, { userId: uid() }), 410, 'invitation_used');
      expectError(await decline(inv.code, {}), 410, 'invitation_used');
    });

    it('an already active member is 409 already_member and the code stays unused', async () => {
      const g = await createGroup({ creatorUserId: 'boss-' + randomUUID() });
      const userId = uid();
      const first = await invite(g.id);
      await accept(first.code, { userId });
      const second = await invite(g.id);
      expectError(await accept(second.code, { userId }), 409, 'already_member');
      const row = await invRow(second.code);
      expect(row).toEqual({ used_at: null, used_by: null });
      expect((await preview(second.code)).body.usedAt).toBeNull();
      expect(await audits(g.id, 'member.joined')).toHaveLength(2);
    });

    it('never asks for the passcode, and works on invite-only and public groups alike', async () => {
      const locked = await createGroup({ visibility: 'public', passcode: 'letmein!' });
      const inv = await invite(locked.id);
      const r = await accept(inv.code, { userId: uid() });
      expect(r.status).toBe(201);
      const inviteOnly = await createGroup({ visibility: 'invite-only', passcode: 'letmein!' });
      expect((await accept((await invite(inviteOnly.id)).code, { userId: uid() })).status).toBe(201);
    });

    it('into a secret group: afterwards GET with that viewer is 200 (404 before)', async () => {
      const g = await createGroup({ visibility: 'secret' });
      const userId = uid();
      await accept((await invite(g.id)).code, { userId: uid('someone-else') });
      expectError(await t.http.get(`/v1/groups/${g.id}?viewer=${userId}`).set(auth), 404, 'not_found');
      const inv = await invite(g.id, { targetUserId: userId });
      expect((await accept(inv.code, { userId })).status).toBe(201);
      const r = await t.http.get(`/v1/groups/${g.id}?viewer=${userId}`).set(auth);
      expect(r.status).toBe(200);
      expect(r.body.id).toBe(g.id);
      expect(r.body.memberCount).toBe(2);
    });

    it('after leaving, accepting reuses the member row (same id, joinedAt kept, leftAt cleared)', async () => {
      const g = await createGroup();
      const userId = uid();
      const first = (await accept((await invite(g.id)).code, { userId })).body;
      const left = await t.http.post(`/v1/groups/${g.id}/leave`).set(auth).send({ userId });
      expect(left.body.status).toBe('left');
      const r = await accept((await invite(g.id)).code, { userId });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ id: first.id, joinedAt: first.joinedAt, leftAt: null, status: 'active' });
      expect(await memberRows(g.id)).toEqual([{ id: first.id, status: 'active' }]);
    });

    it('after a kick, accepting reuses the member row', async () => {
      const g = await createGroup();
      const userId = uid();
      const first = (await accept((await invite(g.id)).code, { userId })).body;
      await t.http.post(`/v1/groups/${g.id}/members/${userId}/kick`).set(auth).send({});
      const r = await accept((await invite(g.id)).code, { userId });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ id: first.id, joinedAt: first.joinedAt, status: 'active', leftAt: null });
    });

    it('a missing, empty or non-string userId is 400 naming userId; the code stays unused', async () => {
      const g = await createGroup();
      const inv = await invite(g.id);
      for (const body of [{}, { userId: '' }, { userId: 3 }]) {
        const r = await accept(inv.code, body);
        expectError(r, 400, 'bad_request');
        expect(r.body.message).toMatch(/userId/);
      }
      const none = await t.http.post(`/v1/invitations/${inv.code}/accept`).set(auth);
      expectError(none, 400, 'bad_request');
      expect((await invRow(inv.code)).used_at).toBeNull();
    });

    it('an unknown or malformed code, another game, or a soft-deleted group is 404; no key is 401', async () => {
      expectError(await accept('0123456789abcdef', { userId: uid() }), 404, 'not_found');
      expectError(await accept('nope', { userId: uid() }), 404, 'not_found');
      const g = await createGroup();
      const inv = await invite(g.id);
      expectError(await accept(inv.code, { userId: uid() }, otherAuth), 404, 'not_found');
      expectError(await t.http.post(`/v1/invitations/${inv.code}/accept`).send({ userId: uid() }), 401, 'invalid_api_key');
      expect((await invRow(inv.code)).used_at).toBeNull();
      await t.http.delete(`/v1/groups/${g.id}`).set(auth);
      expectError(await accept(inv.code, { userId: uid() }), 404, 'not_found');
    });
  });

  describe('races', () => {
    it('two concurrent accepts of one open code by two users: one 201, the other 410 invitation_used, one member row', async () => {
      for (let round = 0; round < 3; round++) {
        const g = await createGroup();
        const inv = await invite(g.id);
        const [a, b] = [uid('a'), uid('b')];
        const rs = await Promise.all([accept(inv.code, { userId: a }), accept(inv.code, { userId: b })]);
        expect(rs.map((r) => r.status).sort()).toEqual([201, 410]);
        const loser = rs.find((r) => r.status === 410)!;
        expect(loser.body.code).toBe('invitation_used');
        const winner = rs.find((r) => r.status === 201)!;
        expect(await memberRows(g.id)).toEqual([{ id: winner.body.id, status: 'active' }]);
        expect((await invRow(inv.code)).used_by).toBe(await svcIdOf(winner.body.userId));
        expect(await audits(g.id, 'member.joined')).toHaveLength(1);
      }
    });

    it('two different codes accepted at once by the same user: one 201, the other 409 already_member and its code stays unused', async () => {
      const g = await createGroup();
      const [c1, c2] = [await invite(g.id), await invite(g.id)];
      const userId = uid('twice');
      const rs = await Promise.all([accept(c1.code, { userId }), accept(c2.code, { userId })]);
      expect(rs.map((r) => r.status).sort()).toEqual([201, 409]);
      const loserCode = rs[0].status === 409 ? c1.code : c2.code;
      expect(rs.find((r) => r.status === 409)!.body.code).toBe('already_member');
      expect(await invRow(loserCode)).toEqual({ used_at: null, used_by: null });
      expect(await memberRows(g.id)).toHaveLength(1);
    });

    it('a join and an accept of the same user at once: one 201, the other 409 already_member', async () => {
      for (let round = 0; round < 3; round++) {
        const g = await createGroup({ visibility: 'public' });
        const inv = await invite(g.id);
        const userId = uid('both');
        const rs = await Promise.all([
          t.http.post(`/v1/groups/${g.id}/join`).set(auth).send({ userId }),
          accept(inv.code, { userId }),
        ]);
        expect(rs.map((r) => r.status).sort()).toEqual([201, 409]);
        expect(rs.find((r) => r.status === 409)!.body.code).toBe('already_member');
        expect(await memberRows(g.id)).toHaveLength(1);
        expect(await audits(g.id, 'member.joined')).toHaveLength(1);
        const row = await invRow(inv.code);
        // the code is consumed only if the accept won
        expect(row.used_at === null).toBe(rs[1].status === 409);
      }
    });
  });

  describe('POST /v1/invitations/:code/decline', () => {
    it('204 with no body; usedAt set, usedBy null; no audit entry; no identity created', async () => {
      const g = await createGroup();
      const inv = await invite(g.id);
      const before = (await audits(g.id)).length;
      const r = await decline(inv.code);
      expect(r.status).toBe(204);
      expect(r.text).toBe('');
      const row = await invRow(inv.code);
      expect(row.used_at).not.toBeNull();
      expect(row.used_by).toBeNull();
      expect((await audits(g.id)).length).toBe(before);
      const p = await preview(inv.code);
      expect(p.body.usedAt).toMatch(ISO_MS);
      expect(p.body.usedBy).toBeNull();
    });

    it('accepts {} and an empty application/json body alike (DECISIONS §17)', async () => {
      const g = await createGroup();
      const a = await invite(g.id);
      const b = await invite(g.id);
      expect((await decline(a.code, {})).status).toBe(204);
      const r = await t.http.post(`/v1/invitations/${b.code}/decline`).set(auth).set('content-type', 'application/json').send('');
      expect(r.status).toBe(204);
      expect((await invRow(b.code)).used_at).not.toBeNull();
    });

    it('a direct code declined with the matching userId is 204; usedBy is the internal id of a known user', async () => {
      const g = await createGroup();
      const target = uid('target');
      await t.http.post(`/v1/groups/${(await createGroup({ visibility: 'public' })).id}/join`).set(auth).send({ userId: target });
      const svc = await svcIdOf(target);
      const inv = await invite(g.id, { targetUserId: target });
      const r = await decline(inv.code, { userId: target });
      expect(r.status).toBe(204);
      expect(await invRow(inv.code)).toEqual({ used_at: expect.any(Date), used_by: svc });
      expect(await audits(g.id, 'member.joined')).toHaveLength(0);
    });

    it('a direct code may be declined without a userId: 204, usedBy null', async () => {
      const g = await createGroup();
      const inv = await invite(g.id, { targetUserId: uid('target') });
      expect((await decline(inv.code)).status).toBe(204);
      expect(await invRow(inv.code)).toEqual({ used_at: expect.any(Date), used_by: null });
    });

    it('an open code declined with the userId of a known user records that internal id', async () => {
      const g = await createGroup({ visibility: 'public' });
      const userId = uid();
      await t.http.post(`/v1/groups/${g.id}/join`).set(auth).send({ userId });
      const inv = await invite(g.id);
      expect((await decline(inv.code, { userId })).status).toBe(204);
      expect((await invRow(inv.code)).used_by).toBe(await svcIdOf(userId));
    });

    it('a never-seen user declining creates no identity (decline is not an auto-creating write)', async () => {
      const g = await createGroup();
      const target = uid('target');
      const inv = await invite(g.id, { targetUserId: target });
      expect((await decline(inv.code, { userId: target })).status).toBe(204);
      expect(await svcIdOf(target)).toBeNull();
    });

    it('a direct code declined by a different userId is 403 permission_denied and stays unused', async () => {
      const g = await createGroup();
      const target = uid('target');
      const inv = await invite(g.id, { targetUserId: target });
      expectError(await decline(inv.code, { userId: uid('other') }), 403, 'permission_denied');
      expect(await invRow(inv.code)).toEqual({ used_at: null, used_by: null });
      expect((await accept(inv.code, { userId: target })).status).toBe(201);
    });

    it('after use (accept or decline) it is 410 invitation_used; an expired code is 410 invitation_expired', async () => {
      const g = await createGroup();
      const accepted = await invite(g.id);
      await accept(accepted.code, { userId: uid() });
      expectError(await decline(accepted.code), 410, 'invitation_used');
      const declined = await invite(g.id);
      await decline(declined.code);
      expectError(await decline(declined.code), 410, 'invitation_used');
      const old = await invite(g.id, { expiresIn: '5m' });
      await expire(old.code);
      expectError(await decline(old.code), 410, 'invitation_expired');
      expect((await invRow(old.code)).used_at).toBeNull();
    });

    it('an empty userId is 400; unknown code, other game 404; no key 401', async () => {
      const g = await createGroup();
      const inv = await invite(g.id);
      expectError(await decline(inv.code, { userId: '' }), 400, 'bad_request');
      expectError(await decline('0123456789abcdef'), 404, 'not_found');
      expectError(await decline(inv.code, {}, otherAuth), 404, 'not_found');
      expectError(await t.http.post(`/v1/invitations/${inv.code}/decline`), 401, 'invalid_api_key');
      expect((await invRow(inv.code)).used_at).toBeNull();
    });
  });

  describe('DELETE /v1/invitations/:code (revoke)', () => {
    it('an unused code: 204, removed (then 404, preview 404), audit invitation.revoked', async () => {
      const g = await createGroup();
      const target = uid('target');
      const inv = await invite(g.id, { targetUserId: target });
      const r = await revoke(inv.code);
      expect(r.status).toBe(204);
      expect(r.text).toBe('');
      expect(await t.db.query('SELECT 1 FROM invitations WHERE id = $1', [inv.id])).toHaveLength(0);
      expectError(await revoke(inv.code), 404, 'not_found');
      expectError(await preview(inv.code), 404, 'not_found');
      expectError(await accept(inv.code, { userId: target }), 404, 'not_found');
      const rows = await audits(g.id, 'invitation.revoked');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ target_id: target, payload: { invitationId: inv.id, code: inv.code } });
      const listed = await t.http.get(`/v1/groups/${g.id}/invitations?includeUsed=true&includeExpired=true`).set(auth);
      expect(listed.body.items).toEqual([]);
    });

    it('an unused expired code can be revoked', async () => {
      const g = await createGroup();
      const inv = await invite(g.id, { expiresIn: '1m' });
      await expire(inv.code);
      expect((await revoke(inv.code)).status).toBe(204);
      expectError(await revoke(inv.code), 404, 'not_found');
    });

    it('a used code: 204 every time, kept, no audit entry', async () => {
      const g = await createGroup();
      const inv = await invite(g.id);
      await accept(inv.code, { userId: uid() });
      for (let i = 0; i < 3; i++) expect((await revoke(inv.code)).status).toBe(204);
      const p = await preview(inv.code);
      expect(p.status).toBe(200);
      expect(p.body.usedAt).toMatch(ISO_MS);
      expect(await audits(g.id, 'invitation.revoked')).toHaveLength(0);
      const declined = await invite(g.id);
      await decline(declined.code);
      expect((await revoke(declined.code)).status).toBe(204);
      expect((await preview(declined.code)).status).toBe(200);
    });

    it("another game's key is 404 and the code survives; no key is 401", async () => {
      const g = await createGroup();
      const inv = await invite(g.id);
      expectError(await revoke(inv.code, otherAuth), 404, 'not_found');
      expectError(await revoke(inv.code, null), 401, 'invalid_api_key');
      expect((await preview(inv.code)).status).toBe(200);
      expect((await accept(inv.code, { userId: uid() })).status).toBe(201);
    });

    it('an unknown or malformed code is 404', async () => {
      expectError(await revoke('0123456789abcdef'), 404, 'not_found');
      expectError(await revoke('not-a-code'), 404, 'not_found');
    });
  });
});
