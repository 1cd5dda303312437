import { DataSource } from 'typeorm';
import { joinOk, postGroup } from '../helpers/groups';
import { seqUid as uid } from '../helpers/ids';
import { invite } from '../helpers/notification-stream';
import { notificationsOf, notificationsPath } from '../helpers/notifications';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { removeNotificationsBeyondCap } from '../../src/notifications/notification-retention';

/**
 * The unread counts are cached by each instance (issue 46), so two instances on one database must
 * each drop a player's counts when any change to that player's unread ones commits, wherever it
 * was made: a new notification, read marks, a dismissal, the sweep, an erasure. Instance B reads
 * (and so caches) the counts, instance A changes them; B answers the change once A's signal has
 * reached it, well within FRESH_MS (the cache's time to live is 60 s). Two apps in this process,
 * as notification-stream-scale-out.e2e-spec.ts starts them.
 */
jest.setTimeout(30_000);

type Auth = Record<string, string>;
type Counts = { unread: number; byKind: Record<string, number> };
const ENV = { WEBHOOK_WORKER_ENABLED: 'false' };
/** How long a signal may take from A's commit to B's cache, on a loaded machine. */
const FRESH_MS = 3_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let a: TestApp;
let b: TestApp;
let auth: Auth;
let groupId: string;

beforeAll(async () => {
  a = await startTestApp(ENV);
  b = await startTestApp(ENV, a.db);
  ({ auth } = await authedGame(a, 'two instances'));
  groupId = (await postGroup(a, auth, { kind: 'guild', name: 'Both', visibility: 'public' })).id;
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

async function counts(t: TestApp, userId: string): Promise<Counts> {
  const r = await t.http.get(`${notificationsPath(userId)}/counts`).set(auth);
  if (r.status !== 200) throw new Error(`counts of ${userId}: ${r.status} ${r.text}`);
  return r.body;
}

/** B's counts of the player, asked until they are `unread`; fails past FRESH_MS. */
async function onBUntil(userId: string, unread: number): Promise<Counts> {
  const until = Date.now() + FRESH_MS;
  for (;;) {
    const now = await counts(b, userId);
    if (now.unread === unread) return now;
    if (Date.now() > until) throw new Error(`B still counts ${JSON.stringify(now)} for ${userId}, expected ${unread} unread`);
    await sleep(20);
  }
}

/** A player the game has seen (a member of a lobby) with `n` unread invitations, whose counts B has cached. */
async function player(n: number): Promise<string> {
  const userId = uid('p');
  await joinOk(a, auth, (await postGroup(a, auth, { kind: 'guild', name: 'lobby', visibility: 'public' })).id, userId);
  for (let i = 0; i < n; i++) await invite(a, auth, groupId, userId);
  await onBUntil(userId, n);
  expect(await counts(b, userId)).toEqual({ unread: n, byKind: n ? { 'invitation.received': n } : {} });
  return userId;
}

it('a notification written on A reaches the counts B had cached', async () => {
  const userId = await player(0);
  await invite(a, auth, groupId, userId);
  expect(await onBUntil(userId, 1)).toEqual({ unread: 1, byKind: { 'invitation.received': 1 } });
});

it('read marks made on A reach the counts B had cached, ids then all', async () => {
  const userId = await player(3);
  const [first] = await notificationsOf(a, auth, userId);
  expect((await a.http.post(`${notificationsPath(userId)}/read`).set(auth).send({ ids: [first.id] })).body).toEqual({ marked: 1 });
  await onBUntil(userId, 2);
  expect((await a.http.post(`${notificationsPath(userId)}/read`).set(auth).send({ all: true })).body).toEqual({ marked: 2 });
  expect(await onBUntil(userId, 0)).toEqual({ unread: 0, byKind: {} });
});

it('a mark made on B is in the very next counts B answers', async () => {
  const userId = await player(2);
  const [first] = await notificationsOf(b, auth, userId);
  await b.http.post(`${notificationsPath(userId)}/read`).set(auth).send({ ids: [first.id] }).expect(200);
  expect((await counts(b, userId)).unread).toBe(1);
  await b.http.delete(`${notificationsPath(userId)}/${(await notificationsOf(b, auth, userId))[1].id}`).set(auth).expect(204);
  expect(await counts(b, userId)).toEqual({ unread: 0, byKind: {} });
});

it("counts asked with a mark's consistency token see the mark on B at once, whether or not B has heard of it", async () => {
  const userId = await player(2);
  const marked = await a.http.post(`${notificationsPath(userId)}/read`).set(auth).send({ all: true }).expect(200);
  const token = marked.headers['x-svc-consistency'];
  expect(token).toEqual(expect.any(String));
  const r = await b.http.get(`${notificationsPath(userId)}/counts`).set({ ...auth, 'x-svc-consistency': token });
  expect(r.body).toEqual({ unread: 0, byKind: {} });
});

it('a dismissal of an unread one on A reaches the counts B had cached', async () => {
  const userId = await player(2);
  const [first] = await notificationsOf(a, auth, userId);
  await a.http.delete(`${notificationsPath(userId)}/${first.id}`).set(auth).expect(204);
  await onBUntil(userId, 1);
});

it('an erasure on A leaves B counting zero for the erased id', async () => {
  const userId = await player(2);
  await a.http.delete(`/v1/users/${encodeURIComponent(userId)}`).set(auth).expect(200);
  expect(await onBUntil(userId, 0)).toEqual({ unread: 0, byKind: {} });
});

// Last: the cap's sweep trims every player of the database notified lately.
it("the sweep's removal of unread ones reaches the counts B had cached", async () => {
  const userId = await player(3);
  expect(await removeNotificationsBeyondCap(a.app.get(DataSource).manager, 1)).toBeGreaterThanOrEqual(2);
  expect(await onBUntil(userId, 1)).toEqual({ unread: 1, byKind: { 'invitation.received': 1 } });
});
