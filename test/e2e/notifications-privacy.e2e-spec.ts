import { friendsClient, sendPending } from '../helpers/friends';
import { joinOk, postGroup } from '../helpers/groups';
import { seqUid as uid } from '../helpers/ids';
import { notificationsOf, type Notification } from '../helpers/notifications';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * EXTENSIONS X9 with X7: a player's export includes their notifications; their erasure removes
 * them, names the pseudonym in the notifications they caused to others, and notifies the heir of
 * the groups they owned.
 */

type Auth = Record<string, string>;
const enc = encodeURIComponent;

describe("a player's notifications in their export and erasure (EXTENSIONS X9, X7)", () => {
  let t: TestApp;
  let gameId: string;
  let auth: Auth;

  beforeAll(async () => {
    t = await startTestApp();
    ({ gameId, auth } = await authedGame(t, 'privacy'));
  });
  afterAll(() => t.close());

  const ok = async (path: string, body: object = {}, status = 200) => {
    const r = await t.http.post(path).set(auth).send(body);
    if (r.status !== status) throw new Error(`${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const of = (userId: string) => notificationsOf(t, auth, userId);
  const group = (body: Record<string, unknown> = {}) => postGroup<{ id: string; name: string; kind: string }>(t, auth, { kind: 'guild', name: 'G', visibility: 'public', ...body });
  const exported = async (userId: string) => {
    const r = await t.http.get(`/v1/users/${enc(userId)}/export`).set(auth);
    expect(r.status).toBe(200);
    return JSON.parse(r.text) as { notifications: Notification[] };
  };
  const erase = async (userId: string) => {
    const r = await t.http.delete(`/v1/users/${enc(userId)}`).set(auth);
    expect(r.status).toBe(200);
    return r.body as { pseudonym: string };
  };

  it('the export holds the player\'s own notifications, read or not, oldest first, as the list shows them; not those they caused', async () => {
    const [me, friend] = [uid('me'), uid('friend')];
    const g = await group();
    await joinOk(t, auth, g.id, me);
    await ok(`/v1/groups/${g.id}/members/${enc(me)}/kick`, { reason: 'r' });
    const f = friendsClient(t, gameId, auth.authorization.slice('Bearer '.length));
    await sendPending(f, friend, me);
    await sendPending(f, me, uid('other'));
    const listed = await of(me);
    await ok(`/v1/users/${enc(me)}/notifications/read`, { ids: [listed[1].id] });

    const doc = await exported(me);
    expect(doc.notifications).toEqual([...(await of(me))].reverse());
    expect(doc.notifications.map((n) => [n.kind, n.readAt === null])).toEqual([
      ['member.kicked', false],
      ['friend.request.received', true],
    ]);
    expect((await exported(friend)).notifications).toEqual([]);
  });

  it('erasure removes the player\'s notifications, and names the pseudonym as the actor of those they caused', async () => {
    const [erased, officerTarget, friendTarget, bystander] = [uid('erased'), uid('t'), uid('t'), uid('b')];
    const g = await group({ visibility: 'invite-only' });
    // Notifications to the erased player...
    await ok(`/v1/groups/${g.id}/bans`, { userId: erased, actorUserId: bystander }, 201);
    // ...and by them, to others.
    await joinOk(t, auth, (await group()).id, officerTarget);
    await ok(`/v1/groups/${g.id}/invitations`, { targetUserId: officerTarget, invitedByUserId: erased }, 201);
    const f = friendsClient(t, gameId, auth.authorization.slice('Bearer '.length));
    await sendPending(f, erased, friendTarget);
    const [svc] = await t.db.query<{ user_id: string }>(`SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = $2`, [gameId, erased]);
    expect(await of(erased)).toHaveLength(1);

    const { pseudonym } = await erase(erased);

    expect(await t.db.query(`SELECT 1 FROM notifications WHERE user_id = $1 OR actor_user_id = $1`, [svc.user_id])).toEqual([]);
    expect(await of(erased)).toEqual([]);
    expect(await of(officerTarget)).toEqual([expect.objectContaining({ kind: 'invitation.received', actorUserId: pseudonym })]);
    // The request went with the erased player; the notification of it stays, naming the pseudonym.
    expect(await of(friendTarget)).toEqual([expect.objectContaining({ kind: 'friend.request.received', actorUserId: pseudonym })]);
    expect(await of(bystander)).toEqual([]);
    // The same id later is a new player with no past.
    await joinOk(t, auth, (await group()).id, erased);
    expect(await of(erased)).toEqual([]);
  });

  it("the heir of a group the erased player owned is notified of it, by no one", async () => {
    const [owner, elder, younger] = [uid('owner'), uid('elder'), uid('younger')];
    const g = await group({ creatorUserId: owner });
    await joinOk(t, auth, g.id, elder);
    await joinOk(t, auth, g.id, younger);
    await erase(owner);
    expect(await of(elder)).toEqual([
      expect.objectContaining({ kind: 'group.ownership_received', groupId: g.id, actorUserId: null, data: { group: { id: g.id, name: g.name, kind: g.kind } } }),
    ]);
    expect(await of(younger)).toEqual([]);
  });

  it('erasing a player the game has never seen touches no notification', async () => {
    const target = uid('t');
    const g = await group();
    await joinOk(t, auth, g.id, target);
    await ok(`/v1/groups/${g.id}/members/${enc(target)}/kick`);
    const before = await t.db.query(`SELECT id, user_id, actor_user_id, actor_pseudonym, read_at FROM notifications ORDER BY id`);
    await erase(uid('never'));
    expect(await t.db.query(`SELECT id, user_id, actor_user_id, actor_pseudonym, read_at FROM notifications ORDER BY id`)).toEqual(before);
  });
});
