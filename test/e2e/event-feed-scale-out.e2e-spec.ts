import { openSse, type SseStream } from '../helpers/sse';
import { journalEvents } from '../helpers/journal';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { http, killAll, requireBuild, sleep, startServerProcess, TEST_ADMIN_TOKEN, type RunningServer } from '../helpers/process';

/**
 * The event feed across two BUILT server processes on one database: an event caused on one
 * instance is read from the other's feed and streamed by the other's game and group streams, in
 * the same order, and a stream resumed on the other instance with Last-Event-ID continues exactly.
 */
jest.setTimeout(90_000);

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
let db: TestDatabase;
let one: RunningServer;
let two: RunningServer;
const streams: SseStream[] = [];

beforeAll(async () => {
  requireBuild();
  db = await createTestDatabase();
  one = await startServerProcess(db.url, { WEBHOOK_WORKER_ENABLED: 'false' }, 30_000);
  two = await startServerProcess(db.url, { WEBHOOK_WORKER_ENABLED: 'false' }, 30_000);
});
afterAll(async () => {
  for (const s of streams) s.close();
  await killAll();
  await db?.drop();
});

async function call(base: string, key: string, method: string, path: string, body?: unknown, status = 201) {
  const r = await http(`${base}${path}`, { method, headers: { authorization: `Bearer ${key}` }, body });
  if (r.status !== status) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
}

it('an event caused on one instance is paged and streamed by the other, in the same order', async () => {
  const game = (await http(`${one.url}/v1/admin/games`, { method: 'POST', headers: ADMIN, body: { name: 'two instances' } })).body;
  const { key } = (await http(`${one.url}/v1/admin/games/${game.id}/api-keys`, { method: 'POST', headers: ADMIN })).body;
  const auth = { authorization: `Bearer ${key}` };
  const group = await call(one.url, key, 'POST', '/v1/groups', { kind: 'guild', name: 'Both', visibility: 'public' });

  const live = await openSse(two.url, '/v1/events', auth);
  streams.push(live);
  expect(live.status).toBe(200);
  // Caused on both instances, alternately.
  for (let i = 0; i < 6; i++) await call(i % 2 ? two.url : one.url, key, 'POST', `/v1/groups/${group.id}/join`, { userId: `p${i}` });
  await call(one.url, key, 'POST', '/v1/bans', { userId: 'p9', reason: 'x' });
  await live.waitFor(() => live.ids().length === 7, 20_000, 'the seven live events on instance two');

  const ids = (await db.query<{ id: string }>(`SELECT id FROM ${journalEvents()} WHERE game_id = $1 ORDER BY era, xid, seq`, [game.id])).map((r) => r.id);
  expect(live.ids()).toEqual(ids.slice(1));
  let page = await call(two.url, key, 'GET', '/v1/events/feed?limit=1000', undefined, 200);
  for (let i = 0; page.items.length < ids.length && i < 100; i++) {
    await sleep(100);
    page = await call(two.url, key, 'GET', '/v1/events/feed?limit=1000', undefined, 200);
  }
  expect(page.items.map((e: { id: string }) => e.id)).toEqual(ids);

  // A group stream on instance one resumed from the first join, and the game stream resumed on
  // instance one from where instance two's stream was cut.
  const groupStream = await openSse(one.url, `/v1/events/${group.id}?after=${ids[1]}`, auth);
  const resumed = await openSse(one.url, '/v1/events', { ...auth, 'last-event-id': ids[3] });
  streams.push(groupStream, resumed);
  await call(two.url, key, 'POST', `/v1/groups/${group.id}/leave`, { userId: 'p0' }, 200);
  const all = (await db.query<{ id: string }>(`SELECT id FROM ${journalEvents()} WHERE game_id = $1 ORDER BY era, xid, seq`, [game.id])).map((r) => r.id);
  await resumed.waitFor(() => resumed.ids().length === all.length - 4, 20_000, 'replay and live on instance one');
  await groupStream.waitFor(() => groupStream.ids().length === 6, 20_000, 'the group replay and the leave');
  expect(resumed.ids()).toEqual(all.slice(4));
  expect(groupStream.ids()).toEqual([...all.slice(2, 7), all[8]]);
});
