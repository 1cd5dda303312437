import type { IncomingMessage, ServerResponse } from 'node:http';
import { FEED_START } from '../../src/events/feed-position';
import { FeedRepository } from '../../src/events/feed.repository';
import { DeliveryWorker } from '../../src/webhooks/delivery-worker';
import { joinOk, postGroup } from '../helpers/groups';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { listenLocal, type LocalServer } from '../helpers/webhook-receiver';

/**
 * Release 1.10.0 reads an event body stored without the fields its journal row's columns hold (its
 * id, type, game, group and instant), as release 1.11.0's writers store it: every reader answers the
 * whole body, byte for byte as when it was stored whole. Each test strips the stored bodies of a
 * game after reading its answers, then reads them again.
 */
let t: TestApp;
let receiver: LocalServer;
const received: string[] = [];
let answer = 200;
const sent = () => received.map((b) => JSON.parse(b) as { id: string }).sort((a, b) => a.id.localeCompare(b.id));
beforeAll(async () => {
  receiver = await listenLocal((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(body);
      res.writeHead(answer).end();
    });
  });
  // The worker runs only when a test calls it: it reads what the test stored, not what the commits did.
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false', WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

type Auth = Record<string, string>;
const ENVELOPE = ['id', 'type', 'gameId', 'groupId', 'occurredAt'];

/** A game's stored bodies without the envelope (as 1.11.0 writes them); returns how many were stripped. */
async function strip(gameId: string): Promise<number> {
  const rows = await t.db.query<{ id: string }>(
    `UPDATE journal SET body = body ${ENVELOPE.map((k) => `- '${k}'`).join(' ')} WHERE game_id = $1 AND body ? 'id' RETURNING id`,
    [gameId],
  );
  return rows.length;
}

/** A game with a group (created, then joined by two players) and a game-wide ban: events with and without a group. */
async function playedGame() {
  const g = await authedGame(t);
  const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Envelope', visibility: 'public', creatorUserId: 'alice' });
  for (const u of ['bob', 'carol']) await joinOk(t, g.auth, group.id, u);
  expect((await t.http.post('/v1/bans').set(g.auth).send({ userId: 'mallory', reason: 'cheating' })).status).toBe(201);
  return { ...g, groupId: group.id };
}

const feedText = async (auth: Auth) => {
  const r = await t.http.get('/v1/events/feed?limit=100').set(auth);
  expect(r.status).toBe(200);
  return r.text;
};

/** The events section of bob's export, as its JSON text. */
const exportedEvents = async (auth: Auth) => {
  const r = await t.http.get('/v1/users/bob/export').set(auth);
  expect(r.status).toBe(200);
  return (JSON.parse(r.text) as { events: unknown[] }).events.map((e) => JSON.stringify(e));
};

it('the pull feed, the export, the streams\' pages and tail answer a stripped body whole, with and without a group', async () => {
  const g = await playedGame();
  const feed = t.app.get(FeedRepository);
  const before = { text: await feedText(g.auth), page: await feed.page({ gameId: g.gameId }, FEED_START, 100), exported: await exportedEvents(g.auth) };
  expect(before.exported).toHaveLength(1);
  const groupPage = await feed.page({ gameId: g.gameId, groupId: g.groupId }, FEED_START, 100);
  const types = before.page.map((e) => e.body.type);
  expect(types).toEqual(['member.joined', 'group.created', 'member.joined', 'member.joined', 'game.user.banned']);
  expect(before.page[4].body).not.toHaveProperty('groupId');

  expect(await strip(g.gameId)).toBe(5);
  const stored = await t.db.query<{ body: Record<string, unknown> }>(`SELECT body FROM journal WHERE game_id = $1 AND type IS NOT NULL`, [g.gameId]);
  for (const { body } of stored) for (const k of ENVELOPE) expect(body).not.toHaveProperty(k);

  expect(await feedText(g.auth)).toBe(before.text);
  expect(await exportedEvents(g.auth)).toEqual(before.exported);
  expect(await feed.page({ gameId: g.gameId }, FEED_START, 100)).toEqual(before.page);
  expect(await feed.page({ gameId: g.gameId, groupId: g.groupId }, FEED_START, 100)).toEqual(groupPage);
  const tail = await feed.tail([{ gameId: g.gameId, position: FEED_START, furthest: null }], 100);
  expect(tail.events.get(g.gameId)).toEqual(before.page);
});

it('a stripped body whose instant is not its id\'s millisecond keeps that field, and is answered as stored', async () => {
  const g = await playedGame();
  const before = await feedText(g.auth);
  // A body as an earlier release may have stored it: its instant a millisecond after its id's.
  await t.db.query(
    `UPDATE journal SET body = jsonb_set(body, '{occurredAt}', to_jsonb(to_char(((body->>'occurredAt')::timestamptz + interval '1 ms') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
     WHERE game_id = $1 AND type = 'game.user.banned'`,
    [g.gameId],
  );
  const shifted = await feedText(g.auth);
  expect(shifted).not.toBe(before);
  await t.db.query(`UPDATE journal SET body = body - 'id' - 'type' - 'gameId' - 'groupId' WHERE game_id = $1`, [g.gameId]);
  expect(await feedText(g.auth)).toBe(shifted);
});

it('webhooks send a stripped body whole: first attempts and retries carry the feed\'s bytes', async () => {
  const g = await authedGame(t);
  const hook = await t.http.post('/v1/webhooks').set(g.auth).send({ url: receiver.url });
  expect(hook.status).toBe(201);
  const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Hooked', visibility: 'public', creatorUserId: 'alice' });
  await joinOk(t, g.auth, group.id, 'bob');
  const feed = JSON.parse(await feedText(g.auth)).items as { id: string }[];
  expect(await strip(g.gameId)).toBe(3);
  const worker = t.app.get(DeliveryWorker);

  // First attempts, taken up from the endpoint's position: refused, so each is retried from its row.
  answer = 500;
  await worker.tick();
  expect(sent().map((e) => e.id)).toEqual(feed.map((e) => e.id));
  expect(sent()).toEqual(feed);
  received.length = 0;
  answer = 200;
  await t.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1`, [hook.body.id]);
  await worker.tick();
  expect(sent()).toEqual(feed);
});
