import { accept, AUTO, block, cancel, decline, friendsClient, patchGameConfig, send, sendPending, type FriendsGame } from '../helpers/friends';
import { joinOk, postGroup } from '../helpers/groups';
import { seqUid as uid } from '../helpers/ids';
import { listenToNotifications, notificationsOf, type Notification } from '../helpers/notifications';
import { asAdmin, authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * EXTENSIONS X9, the writing side: each kind of the table is written to the player it concerns, in
 * the transaction of the change that causes it, with the data a screen needs; nothing else writes
 * one; none when the player made the change; none that would tell a player of another's block.
 */

type Auth = Record<string, string>;
type Group = { id: string; name: string; kind: string };

describe('notifications written with the changes that cause them (EXTENSIONS X9)', () => {
  let t: TestApp;
  let gameId: string;
  let auth: Auth;

  beforeAll(async () => {
    t = await startTestApp();
    ({ gameId, auth } = await authedGame(t, 'notified'));
  });
  afterAll(() => t.close());

  const post = (path: string, body: object = {}) => t.http.post(path).set(auth).send(body);
  const ok = async (path: string, body: object = {}, status = 200) => {
    const r = await post(path, body);
    if (r.status !== status) throw new Error(`${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const group = (body: Record<string, unknown> = {}) => postGroup<Group>(t, auth, { kind: 'guild', name: 'Night Watch', visibility: 'public', ...body });
  const summary = (g: Group) => ({ id: g.id, name: g.name, kind: g.kind });
  const of = (userId: string) => notificationsOf(t, auth, userId);
  /** Someone the game knows (an identity), as most players are: they joined a group once. */
  async function known(prefix = 'p'): Promise<string> {
    const userId = uid(prefix);
    await joinOk(t, auth, (await group({ name: 'lobby' })).id, userId);
    return userId;
  }
  const rowsOf = (userId: string) =>
    t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notifications n JOIN user_identities ui ON ui.user_id = n.user_id AND ui.game_id = n.game_id WHERE ui.external_id = $1`,
      [userId],
    );

  describe('invitation.received', () => {
    it('goes to the target of an invitation, from the inviter, with the group, code, expiry and role hint', async () => {
      const [target, inviter] = [await known('target'), uid('inviter')];
      const g = await group({ visibility: 'invite-only' });
      const inv = await ok(`/v1/groups/${g.id}/invitations`, { targetUserId: target, invitedByUserId: inviter, expiresIn: '7d', roleId: 'officer' }, 201);

      const [n] = await of(target);
      expect(n).toEqual<Notification>({
        id: expect.any(String),
        kind: 'invitation.received',
        userId: target,
        groupId: g.id,
        actorUserId: inviter,
        createdAt: expect.any(String),
        readAt: null,
        data: { group: summary(g), invitationId: inv.id, code: inv.code, expiresAt: inv.expiresAt, roleId: 'officer' },
      });
      expect(inv.expiresAt).not.toBeNull();
    });

    it('has no actor when the invitation names no inviter, and a null expiry for one that never expires', async () => {
      const target = await known('target');
      const g = await group();
      await ok(`/v1/groups/${g.id}/invitations`, { targetUserId: target }, 201);
      expect(await of(target)).toEqual([expect.objectContaining({ kind: 'invitation.received', actorUserId: null, data: expect.objectContaining({ expiresAt: null, roleId: null }) })]);
    });

    it('goes to each invitee of a bulk invite, and not to a banned row', async () => {
      const [a, b, banned] = [await known('a'), await known('b'), await known('banned')];
      const g = await group();
      await ok(`/v1/groups/${g.id}/bans`, { userId: banned }, 201);
      const r = await ok(`/v1/groups/${g.id}/bulk-invite`, { rows: [{ userId: a }, { userId: b, expiresIn: '1h' }, { userId: banned }], invitedByUserId: 'recruiter' });
      expect(r.results.map((x: { error?: unknown }) => x.error === undefined)).toEqual([true, true, false]);

      for (const [userId, result] of [[a, r.results[0]], [b, r.results[1]]] as const) {
        expect(await of(userId)).toEqual([
          expect.objectContaining({ kind: 'invitation.received', groupId: g.id, data: expect.objectContaining({ code: result.invitation.code, expiresAt: result.invitation.expiresAt }) }),
        ]);
      }
      expect((await of(banned)).filter((n) => n.kind === 'invitation.received')).toEqual([]);
    });

    it('is not written for an open code, for a player inviting themselves, or for an id the game has never seen', async () => {
      const self = await known('self');
      const never = uid('never');
      const g = await group();
      await ok(`/v1/groups/${g.id}/invitations`, {}, 201);
      await ok(`/v1/groups/${g.id}/invitations`, { targetUserId: self, invitedByUserId: self }, 201);
      await ok(`/v1/groups/${g.id}/invitations`, { targetUserId: never }, 201);
      await ok(`/v1/groups/${g.id}/bulk-invite`, { rows: [{ userId: uid('never') }] });

      expect(await of(self)).toEqual([]);
      expect(await of(never)).toEqual([]);
      // Nor does the write create the identity to hang one on (SPEC §1.4: inviting is not in its list).
      expect(await t.db.query(`SELECT 1 FROM user_identities WHERE external_id = $1`, [never])).toEqual([]);
    });
  });

  describe('join_request.approved and join_request.declined', () => {
    const request = async (g: Group, userId: string, message: string | null = 'let me in') =>
      (await ok(`/v1/groups/${g.id}/join-requests`, { userId, message }, 201)) as { id: string };

    it('go to the requester when an officer decides, with the group, the request and its message, and the reason of a decline', async () => {
      const g = await group({ visibility: 'invite-only' });
      const [approvedUser, declinedUser] = [uid('req'), uid('req')];
      const approved = await request(g, approvedUser);
      const declined = await request(g, declinedUser, null);
      await ok(`/v1/join-requests/${approved.id}/approve`, { actorUserId: 'officer' });
      await ok(`/v1/join-requests/${declined.id}/decline`, { actorUserId: 'officer', reason: 'full roster' });

      expect(await of(approvedUser)).toEqual([
        expect.objectContaining({ kind: 'join_request.approved', groupId: g.id, actorUserId: 'officer', data: { group: summary(g), joinRequestId: approved.id, message: 'let me in' } }),
      ]);
      expect(await of(declinedUser)).toEqual([
        expect.objectContaining({
          kind: 'join_request.declined',
          groupId: g.id,
          actorUserId: 'officer',
          data: { group: summary(g), joinRequestId: declined.id, message: null, reason: 'full roster' },
        }),
      ]);
    });

    it('are written without an actor when none is named, and not when the requester decides or cancels', async () => {
      const g = await group({ visibility: 'invite-only' });
      const [plain, selfDecided, cancelling] = [uid('req'), uid('req'), uid('req')];
      await ok(`/v1/join-requests/${(await request(g, plain)).id}/decline`);
      await ok(`/v1/join-requests/${(await request(g, selfDecided)).id}/approve`, { actorUserId: selfDecided });
      await ok(`/v1/join-requests/${(await request(g, cancelling)).id}/cancel`);

      expect(await of(plain)).toEqual([expect.objectContaining({ kind: 'join_request.declined', actorUserId: null, data: expect.objectContaining({ reason: null }) })]);
      expect(await of(selfDecided)).toEqual([]);
      expect(await of(cancelling)).toEqual([]);
    });
  });

  describe('member.kicked and member.banned', () => {
    it('member.kicked goes to an active member kicked, with the reason; kicking again or leaving writes none', async () => {
      const g = await group();
      const [kicked, leaver] = [uid('k'), uid('l')];
      await joinOk(t, auth, g.id, kicked);
      await joinOk(t, auth, g.id, leaver);
      await ok(`/v1/groups/${g.id}/members/${kicked}/kick`, { reason: 'afk' });
      await ok(`/v1/groups/${g.id}/members/${kicked}/kick`, { reason: 'again' });
      await ok(`/v1/groups/${g.id}/leave`, { userId: leaver });

      expect(await of(kicked)).toEqual([expect.objectContaining({ kind: 'member.kicked', groupId: g.id, actorUserId: null, data: { group: summary(g), reason: 'afk' } })]);
      expect(await of(leaver)).toEqual([]);
    });

    it('member.banned goes to whoever is banned in a group, member or not, with the reason, the end and the moderator', async () => {
      const g = await group();
      const [member, stranger] = [uid('m'), uid('s')];
      await joinOk(t, auth, g.id, member);
      const until = new Date(Date.now() + 86_400_000).toISOString();
      await ok(`/v1/groups/${g.id}/bans`, { userId: member, reason: 'griefing', expiresAt: until, actorUserId: 'mod' }, 201);
      await ok(`/v1/groups/${g.id}/bans`, { userId: stranger }, 201);

      expect(await of(member)).toEqual([
        expect.objectContaining({ kind: 'member.banned', groupId: g.id, actorUserId: 'mod', data: { group: summary(g), reason: 'griefing', expiresAt: until } }),
      ]);
      expect(await of(stranger)).toEqual([expect.objectContaining({ kind: 'member.banned', actorUserId: null, data: { group: summary(g), reason: null, expiresAt: null } })]);
    });

    it('none for a ban the player sets on themselves, nor for a game-wide ban (no group)', async () => {
      const g = await group();
      const [self, gameBanned] = [uid('self'), uid('gb')];
      await ok(`/v1/groups/${g.id}/bans`, { userId: self, actorUserId: self }, 201);
      await ok(`/v1/bans`, { userId: gameBanned, reason: 'cheating' }, 201);
      expect(await of(self)).toEqual([]);
      expect(await of(gameBanned)).toEqual([]);
    });

    it('none when the change fails: a rolled-back ban leaves no notification', async () => {
      const owner = uid('owner');
      const g = await group({ creatorUserId: owner });
      await joinOk(t, auth, g.id, uid('other'));
      const r = await post(`/v1/groups/${g.id}/bans`, { userId: owner, actorUserId: 'mod' });
      expect(r.body.code).toBe('owner_must_transfer');
      expect(await of(owner)).toEqual([]);
      expect(await rowsOf(owner)).toEqual([{ n: 0 }]);
    });
  });

  describe('member.roles_changed', () => {
    it('goes to the member on each assignment and removal that changes something, with the role and the change', async () => {
      const g = await group();
      const member = uid('m');
      await joinOk(t, auth, g.id, member);
      const role = await ok(`/v1/groups/${g.id}/roles`, { name: 'officer', priority: 10 }, 201);
      const until = new Date(Date.now() + 3_600_000).toISOString();
      const path = `/v1/groups/${g.id}/members/${member}/roles/${role.id}`;
      await ok(path, { expiresAt: until });
      await ok(path, { expiresAt: until });
      const r = await t.http.delete(path).set(auth);
      expect(r.status).toBe(200);
      expect((await t.http.delete(path).set(auth)).status).toBe(200);

      const listed = await of(member);
      expect(listed.map((n) => n.data)).toEqual([
        { group: summary(g), roleId: role.id, change: 'removed' },
        { group: summary(g), roleId: role.id, change: 'assigned', expiresAt: until },
      ]);
      expect(listed.every((n) => n.kind === 'member.roles_changed' && n.groupId === g.id && n.actorUserId === null)).toBe(true);
    });
  });

  describe('group.ownership_received', () => {
    it('goes to the member made owner, from who made the change; the creator of a group and an owner named again get none', async () => {
      const [owner, heir] = [uid('owner'), uid('heir')];
      const g = await group({ creatorUserId: owner });
      await joinOk(t, auth, g.id, heir);
      await ok(`/v1/groups/${g.id}/owner`, { userId: heir, actorUserId: owner });
      await ok(`/v1/groups/${g.id}/owner`, { userId: heir, actorUserId: owner });

      expect(await of(heir)).toEqual([expect.objectContaining({ kind: 'group.ownership_received', groupId: g.id, actorUserId: owner, data: { group: summary(g) } })]);
      expect(await of(owner)).toEqual([]);
    });
  });

  describe('friend.request.received and friend.request.accepted', () => {
    let f: FriendsGame;
    beforeAll(() => {
      f = friendsClient(t, gameId, auth.authorization.slice('Bearer '.length));
    });

    it('received goes to the recipient with the request to answer; accepted to the sender, from the recipient', async () => {
      const [a, b] = [uid('a'), uid('b')];
      const requestId = await sendPending(f, a, b);
      expect(await of(b)).toEqual([
        expect.objectContaining({ kind: 'friend.request.received', userId: b, groupId: null, actorUserId: a, data: { requestId, status: 'pending' } }),
      ]);
      expect(await of(a)).toEqual([]);

      expect((await accept(f, requestId)).status).toBe(200);
      expect(await of(a)).toEqual([expect.objectContaining({ kind: 'friend.request.accepted', userId: a, groupId: null, actorUserId: b, data: { requestId } })]);
      expect(await of(b)).toHaveLength(1);
    });

    it('a declined or cancelled request tells the sender nothing', async () => {
      const [a, b, c] = [uid('a'), uid('b'), uid('c')];
      expect((await decline(f, await sendPending(f, a, b))).status).toBe(204);
      expect((await cancel(f, await sendPending(f, a, c))).status).toBe(204);
      expect(await of(a)).toEqual([]);
    });

    it('none tells a player of a block: a request from the blocked is refused and written nowhere; a request withdrawn by a block tells its sender nothing', async () => {
      const [blocker, blocked, sender] = [uid('blocker'), uid('blocked'), uid('sender')];
      expect((await block(f, blocker, blocked)).status).toBe(201);
      expect((await send(f, blocked, blocker)).status).toBe(404);
      expect(await of(blocker)).toEqual([]);
      expect(await of(blocked)).toEqual([]);

      await sendPending(f, sender, blocker);
      expect((await block(f, blocker, sender)).status).toBe(201);
      expect(await of(sender)).toEqual([]);
      // The recipient keeps what they were told before they blocked.
      expect((await of(blocker)).map((n) => n.kind)).toEqual(['friend.request.received']);
    });

    it('in a game that takes requests as accepted at once, the recipient hears of the request, accepted', async () => {
      const { gameId: autoGame, auth: autoAuth } = await authedGame(t, 'auto friends');
      await patchGameConfig(t, autoGame, { config: AUTO });
      const g = friendsClient(t, autoGame, autoAuth.authorization.slice('Bearer '.length));
      const [a, b] = [uid('a'), uid('b')];
      expect((await send(g, a, b)).body.status).toBe('auto-accepted');
      expect(await notificationsOf(t, autoAuth, b)).toEqual([
        expect.objectContaining({ kind: 'friend.request.received', actorUserId: a, data: { requestId: null, status: 'accepted' } }),
      ]);
      expect(await notificationsOf(t, autoAuth, a)).toEqual([]);
    });
  });

  describe('through the operator routes', () => {
    it('a kick and a role given by an operator notify the member the same way, with no actor', async () => {
      const g = await group();
      const member = uid('m');
      await joinOk(t, auth, g.id, member);
      const role = await ok(`/v1/groups/${g.id}/roles`, { name: 'officer', priority: 10 }, 201);
      const admin = `/v1/admin/games/${gameId}/groups/${g.id}/members/${member}`;
      expect((await t.http.post(`${admin}/roles/${role.id}`).set(asAdmin).send({})).status).toBe(200);
      expect((await t.http.post(`${admin}/kick`).set(asAdmin).send({ reason: 'tos' })).status).toBe(200);
      expect(await of(member)).toEqual([
        expect.objectContaining({ kind: 'member.kicked', actorUserId: null, data: { group: summary(g), reason: 'tos' } }),
        expect.objectContaining({ kind: 'member.roles_changed', actorUserId: null, data: { group: summary(g), roleId: role.id, change: 'assigned', expiresAt: null } }),
      ]);
    });
  });

  describe('what is not a notification', () => {
    it('joining, leaving, accepting an invitation, creating groups and roles, game bans and blocks write none', async () => {
      const player = uid('quiet');
      const g = await group({ creatorUserId: player });
      const other = await group({ visibility: 'invite-only' });
      const code = (await ok(`/v1/groups/${other.id}/invitations`, {}, 201)).code;
      await ok(`/v1/invitations/${code}/accept`, { userId: player }, 201);
      await ok(`/v1/groups/${g.id}/roles`, { name: 'r', priority: 1 }, 201);
      await ok(`/v1/groups/${other.id}/leave`, { userId: player });
      expect(await of(player)).toEqual([]);
    });
  });

  describe('the signal', () => {
    it('one NOTIFY {t: new} per player notified, with the commit, whatever the number of their notifications in it', async () => {
      const [a, b] = [await known('a'), await known('b')];
      const g = await group();
      const listener = await listenToNotifications(t.db.url);
      try {
        await ok(`/v1/groups/${g.id}/bulk-invite`, { rows: [{ userId: a }, { userId: a }, { userId: b }] });
        const deadline = Date.now() + 5000;
        while (listener.payloads.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        await new Promise((r) => setTimeout(r, 100));
        const ids = await t.db.query<{ external_id: string; user_id: string }>(`SELECT external_id, user_id FROM user_identities WHERE game_id = $1 AND external_id = ANY($2)`, [
          gameId,
          [a, b],
        ]);
        const signals = listener.payloads.map((p) => JSON.parse(p));
        expect(signals).toHaveLength(2);
        expect(signals).toEqual(expect.arrayContaining(ids.map((i) => ({ t: 'new', g: gameId, u: i.user_id }))));
        expect(await of(a)).toHaveLength(2);
      } finally {
        await listener.close();
      }
    });
  });
});
