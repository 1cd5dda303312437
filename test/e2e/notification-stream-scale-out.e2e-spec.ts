import type { AddressInfo } from 'node:net';
import { joinOk, postGroup } from '../helpers/groups';
import { seqUid as uid } from '../helpers/ids';
import { invite, notificationFrames, notificationsOn, openNotificationStream, readsOn } from '../helpers/notification-stream';
import { notificationsOf, notificationsPath } from '../helpers/notifications';
import type { SseStream } from '../helpers/sse';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * A player's notification stream across two instances on one database (EXTENSIONS X9, issue 46:
 * "a player's stream on instance B receives a notification caused on instance A and the read
 * marks made on A"): the notifications' signal is a Postgres NOTIFY, heard by every instance, the
 * sender included; each instance's tail reads the notifications themselves. Two apps in this
 * process, as live-stream.e2e-spec.ts starts them (startTestApp with the first one's database).
 */
jest.setTimeout(30_000);

type Auth = Record<string, string>;
const ENV = { WEBHOOK_WORKER_ENABLED: 'false' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let a: TestApp;
let b: TestApp;
const base: Record<'a' | 'b', string> = { a: '', b: '' };
let auth: Auth;
let groupId: string;
const streams: SseStream[] = [];

async function listen(app: TestApp): Promise<string> {
  await app.app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${(app.app.getHttpServer().address() as AddressInfo).port}`;
}

beforeAll(async () => {
  a = await startTestApp(ENV);
  b = await startTestApp(ENV, a.db);
  [base.a, base.b] = [await listen(a), await listen(b)];
  ({ auth } = await authedGame(a, 'two instances'));
  groupId = (await postGroup(a, auth, { kind: 'guild', name: 'Both', visibility: 'public' })).id;
});
afterEach(() => {
  for (const s of streams.splice(0)) s.close();
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

const stream = async (on: 'a' | 'b', userId: string, headers: Record<string, string> = auth) => {
  const s = await openNotificationStream(base[on], userId, headers);
  streams.push(s);
  expect(s.status).toBe(200);
  return s;
};
async function player(): Promise<string> {
  const userId = uid('p');
  await joinOk(a, auth, (await postGroup(a, auth, { kind: 'guild', name: 'lobby', visibility: 'public' })).id, userId);
  return userId;
}

it('a notification caused on instance A reaches the player\'s streams on B and on A, each once', async () => {
  const userId = await player();
  const remote = await stream('b', userId);
  const local = await stream('a', userId);
  await invite(a, auth, groupId, userId);
  await remote.waitFor(() => notificationFrames(remote).length === 1, 10_000, 'the invitation on B');
  await local.waitFor(() => notificationFrames(local).length === 1, 10_000, 'the invitation on A');
  const listed = await notificationsOf(b, auth, userId);
  expect(notificationsOn(remote)).toEqual(listed);
  expect(notificationFrames(remote)).toEqual(notificationFrames(local));
  await sleep(300);
  expect(remote.ids()).toEqual([listed[0].id]);
  expect(local.ids()).toEqual([listed[0].id]);
});

it('read marks made on instance A reach the player\'s stream on B as notifications.read frames', async () => {
  const userId = await player();
  const remote = await stream('b', userId);
  for (let i = 0; i < 3; i++) await invite(a, auth, groupId, userId);
  await remote.waitFor(() => notificationFrames(remote).length === 3, 10_000, 'three invitations on B');
  const [first, second] = remote.ids();
  const marked = await a.http.post(`${notificationsPath(userId)}/read`).set(auth).send({ ids: [first, second] });
  expect(marked.body).toEqual({ marked: 2 });
  await remote.waitFor(() => readsOn(remote).length === 1, 10_000, 'the read frame on B');
  expect((readsOn(remote)[0] as { ids: string[] }).ids.sort()).toEqual([first, second].sort());
  expect((await a.http.post(`${notificationsPath(userId)}/read`).set(auth).send({ all: true })).body).toEqual({ marked: 1 });
  await remote.waitFor(() => readsOn(remote).length === 2, 10_000, 'the read-all frame on B');
  expect(readsOn(remote)[1]).toEqual({ all: true, before: expect.any(String) });
});

it('a stream resumed on the other instance with Last-Event-ID continues exactly', async () => {
  const userId = await player();
  const onA = await stream('a', userId);
  await invite(b, auth, groupId, userId);
  await onA.waitFor(() => onA.ids().length === 1, 10_000, 'the invitation caused on B, on A');
  onA.close();
  // While the player is between connections, one caused on each instance.
  await invite(a, auth, groupId, userId);
  await invite(b, auth, groupId, userId);
  const onB = await stream('b', userId, { ...auth, 'last-event-id': onA.ids()[0] });
  await onB.waitFor(() => onB.ids().length === 2, 10_000, 'the two of the gap, on B');
  await invite(a, auth, groupId, userId);
  await onB.waitFor(() => onB.ids().length === 3, 10_000, 'the live one caused on A, on B');
  const all = (await notificationsOf(a, auth, userId)).map((n) => n.id).reverse();
  expect([...onA.ids(), ...onB.ids()]).toEqual(all);
});
