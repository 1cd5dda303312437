import type { EntityManager } from 'typeorm';
import { InvitationsRepository } from '../../src/invitations/invitations.repository';
import { expectError } from '../helpers/errors';
import { postGroup } from '../helpers/groups';
import { identityOf } from '../helpers/identities';
import { journalAudit, journalEvents } from '../helpers/journal';
import { seqUid as uid } from '../helpers/ids';
import { indexPlanText } from '../helpers/plans';
import { ISO_MS, type Invitation } from '../helpers/shapes';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * EXTENSIONS X6, invitations: who sent an invitation (`invitedByUserId`), the group on the public
 * preview, and a user's inbox `GET /v1/users/:userId/invitations`; SPEC §4 Conventions for its
 * paging, §1.4 for the identities it does and does not create.
 */

type Auth = Record<string, string>;
type GroupSummary = { id: string; name: string; kind: string };
type Listed = Invitation & { group: GroupSummary };
type PageBody = { items: Listed[]; nextCursor: string | null };

describe('invitation inbox and inviter (EXTENSIONS X6)', () => {
  let t: TestApp;
  let gameId: string;
  let auth: Auth;
  let otherGameId: string;
  let otherAuth: Auth;

  beforeAll(async () => {
    t = await startTestApp();
    ({ gameId, auth } = await authedGame(t, 'inbox'));
    ({ gameId: otherGameId, auth: otherAuth } = await authedGame(t, 'inbox other'));
  });
  afterAll(() => t.close());

  const group = (body: Record<string, unknown> = {}, as: Auth = auth) =>
    postGroup<{ id: string; name: string; kind: string }>(t, as, { kind: 'guild', name: 'Night Watch', ...body });
  const createInv = (groupId: string, body: object = {}, as: Auth = auth) => t.http.post(`/v1/groups/${groupId}/invitations`).set(as).send(body);
  async function invite(groupId: string, body: Record<string, unknown> = {}, as: Auth = auth): Promise<Invitation> {
    const r = await createInv(groupId, body, as);
    if (r.status !== 201) throw new Error(`invite: ${r.status} ${r.text}`);
    return r.body;
  }
  const bulk = (groupId: string, body: object, as: Auth = auth) => t.http.post(`/v1/groups/${groupId}/bulk-invite`).set(as).send(body);
  const inbox = (userId: string, query = '', as: Auth | null = auth) => {
    const req = t.http.get(`/v1/users/${encodeURIComponent(userId)}/invitations${query}`);
    return as ? req.set(as) : req;
  };
  async function inboxOk(userId: string, query = '', as: Auth = auth): Promise<PageBody> {
    const r = await inbox(userId, query, as);
    if (r.status !== 200) throw new Error(`inbox: ${r.status} ${r.text}`);
    return r.body;
  }
  /** Every page of a user's inbox, `limit` at a time. */
  async function allPages(userId: string, limit: number): Promise<Listed[][]> {
    const pages: Listed[][] = [];
    let cursor: string | null = null;
    do {
      const q: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await inboxOk(userId, q);
      pages.push(page.items);
      cursor = page.nextCursor;
    } while (cursor !== null && pages.length < 100);
    return pages;
  }
  const ids = (items: { id: string }[]) => items.map((i) => i.id);
  const createdEvent = (invitationId: string) =>
    t.db
      .query<{ body: { invitation: Invitation } }>(`SELECT body FROM ${journalEvents()} WHERE type = 'invitation.created' AND body->'invitation'->>'id' = $1`, [
        invitationId,
      ])
      .then((rows) => rows[0]?.body);
  const invitedAudit = (invitationId: string) =>
    t.db
      .query<{ actor_user_id: string | null; target_id: string | null; payload: Record<string, unknown> }>(
        `SELECT actor_user_id, target_id, payload FROM ${journalAudit()} WHERE action = 'member.invited' AND payload->>'invitationId' = $1`,
        [invitationId],
      )
      .then((rows) => rows[0]);

  describe('invitedByUserId', () => {
    it('is null on every Invitation answer, event and audit payload when not given', async () => {
      const g = await group();
      const target = uid('target');
      const inv = await invite(g.id, { targetUserId: target });
      expect(inv.invitedByUserId).toBeNull();
      const listed = await t.http.get(`/v1/groups/${g.id}/invitations`).set(auth);
      expect(listed.body.items).toEqual([inv]);
      expect((await t.http.get(`/v1/invitations/${inv.code}`)).body.invitedByUserId).toBeNull();
      expect((await inboxOk(target)).items).toEqual([{ ...inv, group: { id: g.id, name: 'Night Watch', kind: 'guild' } }]);
      const rows = await bulk(g.id, { rows: [{ userId: uid() }] });
      expect(rows.status).toBe(200);
      expect(rows.body.results[0].invitation.invitedByUserId).toBeNull();
      expect((await createdEvent(inv.id))?.invitation).toEqual(inv);
      expect(await invitedAudit(inv.id)).toMatchObject({ actor_user_id: null, payload: { invitedByUserId: null } });
    });

    it('is echoed on create, the group list, the preview, the inbox, bulk invite and both invitation events', async () => {
      const g = await group({ kind: 'party', name: 'Raid Night' });
      const target = uid('target');
      const inviter = uid('officer');
      const r = await createInv(g.id, { targetUserId: target, invitedByUserId: inviter, expiresIn: '7d' });
      expect(r.status).toBe(201);
      const inv: Invitation = r.body;
      expect(inv).toMatchObject({ targetUserId: target, invitedByUserId: inviter, createdBy: null });

      const listed = await t.http.get(`/v1/groups/${g.id}/invitations`).set(auth);
      expect(listed.body.items).toEqual([inv]);
      const preview = await t.http.get(`/v1/invitations/${inv.code}`);
      expect(preview.body).toEqual({ ...inv, group: { id: g.id, name: 'Raid Night', kind: 'party' } });
      expect((await inboxOk(target)).items).toEqual([preview.body]);
      expect((await createdEvent(inv.id))?.invitation).toEqual(inv);

      const open = await invite(g.id, { invitedByUserId: inviter, maxUses: 5 });
      expect(open).toMatchObject({ targetUserId: null, invitedByUserId: inviter, maxUses: 5 });

      const batch = await bulk(g.id, { invitedByUserId: inviter, rows: [{ userId: uid() }, { userId: '' }, { userId: uid() }] });
      expect(batch.status).toBe(200);
      expect(batch.body.results.map((x: { invitation?: Invitation }) => x.invitation?.invitedByUserId ?? 'error')).toEqual([inviter, 'error', inviter]);

      expect((await t.http.delete(`/v1/invitations/${open.code}`).set(auth)).status).toBe(204);
      const [revoked] = await t.db.query<{ body: { invitation: Invitation } }>(
        `SELECT body FROM ${journalEvents()} WHERE type = 'invitation.revoked' AND body->'invitation'->>'id' = $1`,
        [open.id],
      );
      expect(revoked.body.invitation).toMatchObject({ id: open.id, invitedByUserId: inviter });
    });

    it('names the inviter like a ban actor: identity created on first use, the audit actor, and in the payload by external id', async () => {
      const g = await group();
      const inviter = uid('new-officer');
      expect(await identityOf(t, gameId, inviter)).toBeNull();
      const inv = await invite(g.id, { targetUserId: uid(), invitedByUserId: inviter });
      const svcId = await identityOf(t, gameId, inviter);
      expect(svcId).not.toBeNull();
      expect(await invitedAudit(inv.id)).toEqual({
        actor_user_id: svcId,
        target_id: inv.targetUserId,
        payload: { invitationId: inv.id, code: inv.code, targetUserId: inv.targetUserId, roleId: null, expiresAt: null, invitedByUserId: inviter },
      });
      // A second invitation by the same inviter reuses the identity.
      const again = await invite(g.id, { invitedByUserId: inviter });
      expect((await invitedAudit(again.id)).actor_user_id).toBe(svcId);

      const batch = await bulk(g.id, { invitedByUserId: inviter, rows: [{ userId: uid() }] });
      expect((await invitedAudit(batch.body.results[0].invitation.id)).actor_user_id).toBe(svcId);
    });

    it('takes any non-empty string, as other external user ids (no length cap)', async () => {
      const g = await group();
      const long = `officer-${'é'.repeat(600)}`;
      const inv = await invite(g.id, { invitedByUserId: long });
      expect(inv.invitedByUserId).toBe(long);
      expect(await identityOf(t, gameId, long)).not.toBeNull();
    });

    it.each<[string, unknown]>([
      ['an empty string', ''],
      ['a number', 42],
      ['an object', { id: 'x' }],
    ])('refuses %s with 400 naming invitedByUserId, on create and on bulk invite, writing nothing', async (_case, value) => {
      const g = await group();
      const r = await createInv(g.id, { targetUserId: uid(), invitedByUserId: value });
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toContain('invitedByUserId');
      const b = await bulk(g.id, { invitedByUserId: value, rows: [{ userId: uid() }] });
      expectError(b, 400, 'bad_request');
      expect(b.body.message).toContain('invitedByUserId');
      expect(await t.db.query('SELECT 1 FROM invitations WHERE group_id = $1', [g.id])).toEqual([]);
    });

    it('an invitation that is refused creates no inviter identity', async () => {
      const inviter = uid('ghost-officer');
      expectError(await createInv('00000000-0000-7000-8000-000000000000', { invitedByUserId: inviter }), 404, 'not_found');
      const g = await group();
      expectError(await createInv(g.id, { invitedByUserId: inviter, expiresIn: 'soon' }), 400, 'bad_request');
      expectError(await createInv(g.id, { invitedByUserId: inviter, targetUserId: uid(), maxUses: 2 }), 400, 'bad_request');
      const other = await group({}, otherAuth);
      expectError(await createInv(other.id, { invitedByUserId: inviter }), 404, 'not_found');
      expect(await identityOf(t, gameId, inviter)).toBeNull();
      expect(await identityOf(t, otherGameId, inviter)).toBeNull();
    });
  });

  describe('GET /v1/invitations/:code', () => {
    it('adds the group as { id, name, kind }, without a key, for open and targeted codes of any visibility', async () => {
      for (const visibility of ['public', 'invite-only', 'secret']) {
        const g = await group({ kind: 'clan', name: `Clan ${visibility}`, visibility });
        for (const body of [{}, { targetUserId: uid() }]) {
          const inv = await invite(g.id, body);
          const r = await t.http.get(`/v1/invitations/${inv.code}`);
          expect(r.status).toBe(200);
          expect(r.body).toEqual({ ...inv, group: { id: g.id, name: `Clan ${visibility}`, kind: 'clan' } });
        }
      }
    });

    it('shows the group as it is now (a renamed group), and 404 once it is soft-deleted', async () => {
      const g = await group();
      const inv = await invite(g.id);
      expect((await t.http.patch(`/v1/groups/${g.id}`).set(auth).send({ name: 'Dawn Patrol' })).status).toBe(200);
      expect((await t.http.get(`/v1/invitations/${inv.code}`)).body.group).toEqual({ id: g.id, name: 'Dawn Patrol', kind: 'guild' });
      expect((await t.http.delete(`/v1/groups/${g.id}`).set(auth)).status).toBe(200);
      expectError(await t.http.get(`/v1/invitations/${inv.code}`), 404, 'not_found');
    });
  });

  describe('GET /v1/users/:userId/invitations', () => {
    it('lists only what the user can accept now: targeted at them, unused, unexpired, in a live group of this game', async () => {
      const me = uid('me');
      const someone = uid('someone');
      const [knights, party, accepted, deleted] = [
        await group({ kind: 'guild', name: 'Knights' }),
        await group({ kind: 'party', name: 'Tuesday Raid', visibility: 'secret' }),
        await group({ name: 'Accepted' }),
        await group({ name: 'Deleted' }),
      ];
      const first = await invite(knights.id, { targetUserId: me, invitedByUserId: someone });
      // Left out: expired, accepted, declined, revoked, another user's, open codes, a deleted group's, another game's.
      const expired = await invite(knights.id, { targetUserId: me, expiresIn: '1h' });
      await t.db.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired.id]);
      const used = await invite(accepted.id, { targetUserId: me });
      expect((await t.http.post(`/v1/invitations/${used.code}/accept`).set(auth).send({ userId: me })).status).toBe(201);
      const declined = await invite(knights.id, { targetUserId: me });
      expect((await t.http.post(`/v1/invitations/${declined.code}/decline`).set(auth).send({ userId: me })).status).toBe(204);
      const declinedAnon = await invite(party.id, { targetUserId: me });
      expect((await t.http.post(`/v1/invitations/${declinedAnon.code}/decline`).set(auth)).status).toBe(204);
      const revoked = await invite(knights.id, { targetUserId: me });
      expect((await t.http.delete(`/v1/invitations/${revoked.code}`).set(auth)).status).toBe(204);
      await invite(knights.id, { targetUserId: someone });
      await invite(knights.id, {});
      await invite(knights.id, { maxUses: 10 });
      const inDeleted = await invite(deleted.id, { targetUserId: me });
      expect((await t.http.delete(`/v1/groups/${deleted.id}`).set(auth)).status).toBe(200);
      const elsewhere = await group({}, otherAuth);
      await invite(elsewhere.id, { targetUserId: me }, otherAuth);

      const second = await invite(party.id, { targetUserId: me, expiresIn: '7d' });
      const third = (await bulk(knights.id, { rows: [{ userId: me }] })).body.results[0].invitation as Invitation;
      const notYetExpired = await invite(party.id, { targetUserId: me, expiresIn: '1h' });

      const page = await inboxOk(me);
      expect(page.nextCursor).toBeNull();
      expect(ids(page.items)).toEqual([notYetExpired.id, third.id, second.id, first.id]);
      expect(page.items[3]).toEqual({ ...first, group: { id: knights.id, name: 'Knights', kind: 'guild' } });
      expect(page.items[2]).toEqual({ ...second, group: { id: party.id, name: 'Tuesday Raid', kind: 'party' } });
      expect(page.items[3].invitedByUserId).toBe(someone);
      for (const item of page.items) {
        expect(item).toMatchObject({ targetUserId: me, usedAt: null, createdAt: expect.stringMatching(ISO_MS) });
      }

      // The other game's key sees only its own invitation for the same id.
      const theirs = await inboxOk(me, '', otherAuth);
      expect(theirs.items).toHaveLength(1);
      expect(theirs.items[0].groupId).toBe(elsewhere.id);

      // Restoring the deleted group brings its invitation back; expiring one takes it away.
      expect((await t.http.post(`/v1/groups/${deleted.id}/restore`).set(auth)).status).toBe(200);
      await t.db.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [notYetExpired.id]);
      const after = await inboxOk(me);
      expect(ids(after.items)).toEqual([third.id, second.id, inDeleted.id, first.id]);
      expect(after.items[2].group).toEqual({ id: deleted.id, name: 'Deleted', kind: 'guild' });
    });

    it('lists an invitation for a user the game has never seen, and creates no identity reading it', async () => {
      const g = await group();
      const stranger = uid('stranger');
      const inv = await invite(g.id, { targetUserId: stranger });
      expect((await inboxOk(stranger)).items).toEqual([{ ...inv, group: { id: g.id, name: 'Night Watch', kind: 'guild' } }]);
      expect(await identityOf(t, gameId, stranger)).toBeNull();
    });

    it('an id with no invitations gets an empty page, never 404, and no identity', async () => {
      const nobody = uid('nobody');
      const r = await inbox(nobody);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ items: [], nextCursor: null });
      expect(await identityOf(t, gameId, nobody)).toBeNull();
    });

    it('matches the id exactly, whatever characters it holds and however long it is', async () => {
      const g = await group();
      const odd = `Ünïcode / player ?#&%${uid()}`;
      const long = `p${'x'.repeat(3000)}${uid()}`;
      const a = await invite(g.id, { targetUserId: odd });
      const b1 = await invite(g.id, { targetUserId: long });
      const b2 = await invite(g.id, { targetUserId: long });
      await invite(g.id, { targetUserId: odd.toLowerCase() });
      await invite(g.id, { targetUserId: `${odd} ` });
      expect(ids((await inboxOk(odd)).items)).toEqual([a.id]);
      // A long id pages too: its cursor stays short.
      const pages = await allPages(long, 1);
      expect(pages.map(ids)).toEqual([[b2.id], [b1.id]]);
    });

    it('pages newest first by (createdAt, id), visiting each invitation once, ties included', async () => {
      const me = uid('pager');
      const gs = [await group({ name: 'A' }), await group({ name: 'B' })];
      const made: Invitation[] = [];
      for (let i = 0; i < 7; i++) made.push(await invite(gs[i % 2].id, { targetUserId: me }));
      // Three share one createdAt: the id breaks the tie.
      await t.db.query(`UPDATE invitations SET created_at = (SELECT created_at FROM invitations WHERE id = $1) WHERE id = ANY($2::uuid[])`, [
        made[3].id,
        [made[2].id, made[3].id, made[4].id],
      ]);
      const stored = await t.db.query<{ id: string }>(
        `SELECT id FROM invitations WHERE target_user_id = $1 ORDER BY created_at DESC, id DESC`,
        [me],
      );
      const expected = stored.map((r) => r.id);
      expect(new Set(expected)).toEqual(new Set(ids(made)));

      for (const limit of [1, 2, 3, 7, 50]) {
        const pages = await allPages(me, limit);
        expect(pages.flat().map((i) => i.id)).toEqual(expected);
        expect(pages.every((p, i) => p.length === limit || i === pages.length - 1)).toBe(true);
      }
      const full = await inboxOk(me, '?limit=7');
      expect(full.items).toHaveLength(7);
      expect(full.nextCursor).toBeNull();
      // Default page size 50.
      expect((await inboxOk(me)).items).toHaveLength(7);
    });

    it('an invitation accepted between pages is not shown again, and the pages still end', async () => {
      const me = uid('mover');
      const made: Invitation[] = [];
      for (let i = 0; i < 4; i++) made.push(await invite((await group()).id, { targetUserId: me }));
      const p1 = await inboxOk(me, '?limit=2');
      expect(ids(p1.items)).toEqual([made[3].id, made[2].id]);
      expect((await t.http.post(`/v1/invitations/${made[1].code}/accept`).set(auth).send({ userId: me })).status).toBe(201);
      const p2 = await inboxOk(me, `?limit=2&cursor=${encodeURIComponent(p1.nextCursor!)}`);
      expect(ids(p2.items)).toEqual([made[0].id]);
      expect(p2.nextCursor).toBeNull();
    });

    it.each<[string, string]>([
      ['limit 0', '?limit=0'],
      ['limit over the page cap', '?limit=101'],
      ['a limit that is not an integer', '?limit=ten'],
      ['a fractional limit', '?limit=1.5'],
    ])('refuses %s with 400 naming limit', async (_case, query) => {
      const r = await inbox(uid(), query);
      expectError(r, 400, 'bad_request');
      expect(r.body.message).toContain('limit');
    });

    it('refuses a cursor that is garbage, or from another user, game or list, with 400 naming cursor', async () => {
      const me = uid('cursor');
      const other = uid('cursor-other');
      const g = await group();
      for (let i = 0; i < 2; i++) {
        await invite(g.id, { targetUserId: me });
        await invite(g.id, { targetUserId: other });
      }
      const mine = (await inboxOk(me, '?limit=1')).nextCursor!;
      const theirs = (await inboxOk(other, '?limit=1')).nextCursor!;
      const groupList = (await t.http.get(`/v1/groups/${g.id}/invitations?limit=1`).set(auth)).body.nextCursor as string;
      expect(mine && theirs && groupList).toBeTruthy();
      const elsewhere = await group({}, otherAuth);
      for (let i = 0; i < 2; i++) await invite(elsewhere.id, { targetUserId: me }, otherAuth);
      const otherGame = (await inboxOk(me, '?limit=1', otherAuth)).nextCursor!;

      for (const [cursor, as] of [
        ['not-a-cursor', auth],
        ['', auth],
        [theirs, auth],
        [groupList, auth],
        [otherGame, auth],
      ] as const) {
        const r = await inbox(me, `?cursor=${encodeURIComponent(cursor)}`, as);
        expectError(r, 400, 'bad_request');
        expect(r.body.message).toContain('cursor');
      }
      expect((await inbox(me, `?cursor=${encodeURIComponent(mine)}`)).status).toBe(200);
    });

    it('needs the API key', async () => {
      expectError(await inbox(uid(), '', null), 401, 'invalid_api_key');
      expectError(await inbox(uid(), '', { authorization: 'Bearer nope' }), 401, 'invalid_api_key');
    });

    it('a page is one statement read in order from invitations_target_inbox: no sort, no scan of other users or games', async () => {
      const me = uid('plan');
      const g = await group();
      await invite(g.id, { targetUserId: me });
      // Capture the statement the repository runs, then have Postgres explain it.
      const statements: { sql: string; params: unknown[] }[] = [];
      const capture = {
        query: async (sql: string, params: unknown[]) => {
          statements.push({ sql, params });
          return [];
        },
      } as unknown as EntityManager;
      const repo = t.app.get(InvitationsRepository);
      for (const after of [undefined, { createdAt: new Date().toISOString(), id: '01a21b74-0000-7000-8000-000000000000' }]) {
        statements.length = 0;
        await repo.inbox(capture, gameId, me, { after, limit: 50 });
        expect(statements).toHaveLength(1);
        const text = await indexPlanText(t.db, statements[0].sql, statements[0].params);
        expect(text).toMatch(/Index Scan using invitations_target_inbox on invitations i[^\n]*\n\s+Index Cond: \(\(game_id = [^\n]*svc_external_key\(target_user_id\) = /);
        expect(text).not.toMatch(/Sort Key/);
      }
    });
  });
});
