import { untakenSql } from '../../src/webhooks/position-sql';
import { expectError } from '../helpers/errors';
import { joinOk, postGroup } from '../helpers/groups';
import { journalEvents } from '../helpers/journal';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Release 1.3.0 reads events from the journal (docs/design/write-path.md section 4): the feed, its
 * `after` cursor and the delivery log answer from an event's journal row, not from outbox_events,
 * and a row whose event has expired (its body emptied, its audit part kept) answers as a gone event.
 * Each test rewrites the journal's row to show that it was read.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false', WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
});
afterAll(() => t.close());

type Auth = Record<string, string>;
const feed = (auth: Auth, query = '') => t.http.get(`/v1/events/feed${query}`).set(auth);

/** A game with a group its creator and two players joined, and its event ids in feed order, once the feed shows them all. */
async function joinedGame() {
  const g = await authedGame(t);
  const hook = await t.http.post('/v1/webhooks').set(g.auth).send({ url: 'http://127.0.0.1:9/hook' });
  expect(hook.status).toBe(201);
  const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Readers', visibility: 'public' });
  for (const u of ['r1', 'r2']) await joinOk(t, g.auth, group.id, u);
  const ids = (await t.db.query<{ id: string }>(`SELECT id FROM ${journalEvents()} WHERE game_id = $1 ORDER BY era, xid, seq`, [g.gameId])).map((r) => r.id);
  const until = Date.now() + 15_000;
  while ((await feed(g.auth)).body.items.length < ids.length && Date.now() < until) await new Promise((ok) => setTimeout(ok, 25));
  return { ...g, hookId: hook.body.id as string, ids };
}

const journalEvent = (id: string) => `id = ('${id}' || '00000000')::uuid`;

it('the feed serves each event as its journal row holds it', async () => {
  const g = await joinedGame();
  await t.db.query(`UPDATE journal SET body = body || '{"readFrom": "journal"}' WHERE ${journalEvent(g.ids[1])}`);
  const page = await feed(g.auth);
  expect(page.status).toBe(200);
  expect(page.body.items.map((e: { id: string }) => e.id)).toEqual(g.ids);
  expect(page.body.items[1].readFrom).toBe('journal');
  expect(page.body.items.filter((e: { readFrom?: string }) => e.readFrom)).toHaveLength(1);
});

/** The delivery row of `eventId` to the game's endpoint, as a worker writes it once it has taken the delivery up. */
async function deliveryRow(hookId: string, eventId: string): Promise<void> {
  await t.db.query(
    `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, status, attempts, created_at)
     SELECT d.id, d.endpoint_id, d.event_id, 'failed', 1, d.created_at FROM (${untakenSql('p.endpoint_id = $1')}) d WHERE d.event_id = $2`,
    [hookId, eventId],
  );
}

it('an event whose journal row lost its body is gone: left out of the feed, 410 as a cursor, and typeless in the delivery log', async () => {
  const g = await joinedGame();
  const gone = g.ids[1];
  await deliveryRow(g.hookId, gone);
  await t.db.query(`UPDATE journal SET body = NULL, trace_context = NULL WHERE ${journalEvent(gone)}`);
  // Its audit part stays, as an expired event's does.
  expect((await t.db.query<{ action: string }>(`SELECT action FROM journal WHERE ${journalEvent(gone)}`))[0].action).not.toBeNull();

  expect((await feed(g.auth)).body.items.map((e: { id: string }) => e.id)).toEqual(g.ids.filter((id) => id !== gone));
  expectError(await feed(g.auth, `?after=${gone}`), 410, 'events_expired');
  expect((await feed(g.auth, `?after=${g.ids[0]}`)).body.items.map((e: { id: string }) => e.id)).toEqual(g.ids.slice(2));

  const log = await t.http.get(`/v1/webhooks/${g.hookId}/deliveries`).set(g.auth);
  expect(log.status).toBe(200);
  const types = new Map(log.body.items.map((d: { eventId: string; eventType: string | null }) => [d.eventId, d.eventType]));
  expect(types.get(gone)).toBeNull();
  expect(types.get(g.ids[2])).toBe('member.joined');
});

it('a delivery not taken up whose event lost its body is dropped unsent: the delivery log no longer lists it', async () => {
  const g = await joinedGame();
  const listed = async () =>
    (await t.http.get(`/v1/webhooks/${g.hookId}/deliveries`).set(g.auth)).body.items.map((d: { eventId: string }) => d.eventId).sort();
  expect(await listed()).toEqual([...g.ids].sort());
  await t.db.query(`UPDATE journal SET body = NULL, trace_context = NULL WHERE ${journalEvent(g.ids[1])}`);
  expect(await listed()).toEqual(g.ids.filter((id) => id !== g.ids[1]).sort());
});
