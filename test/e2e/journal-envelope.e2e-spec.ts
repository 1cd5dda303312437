import type { IncomingMessage, ServerResponse } from 'node:http';
import { DataSource } from 'typeorm';
import { EventEnvelopeFromColumns1768400000000, WHOLE_AGAIN, WHOLE_AGAIN_BATCH } from '../../migrations/1768400000000-event-envelope-from-columns';
import { MemberSnapshotsShort1768500000000 } from '../../migrations/1768500000000-member-snapshots-short';
import { MIGRATIONS } from '../../migrations';
import { oldestReleaseFor } from '../../migrations/release';
import { nameHash } from '../../src/db/journal-names';
import { FEED_START } from '../../src/events/feed-position';
import { FeedRepository } from '../../src/events/feed.repository';
import { DeliveryWorker } from '../../src/webhooks/delivery-worker';
import { joinOk, postGroup } from '../helpers/groups';
import { expectBatchesAsOneStatement, expectNoTableChanged } from '../helpers/journal';
import { withQueryRunner } from '../helpers/query-runner';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { listenLocal, type LocalServer } from '../helpers/webhook-receiver';

/**
 * From release 1.11.0 a write stores each event without the fields its journal row's columns hold
 * (its id, type, game, group and instant: src/db/event-envelope.ts), and every reader adds them back
 * (eventBodySql, since 1.10.0). Each answer is compared with the same read once migration
 * EventEnvelopeFromColumns' down has stored the bodies whole again, as every release before wrote
 * them: byte for byte the same.
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

const storedBodies = (gameId: string) =>
  t.db.query<{ body: Record<string, unknown>; names: number[] }>(`SELECT body, names FROM journal WHERE game_id = $1 AND type IS NOT NULL ORDER BY seq`, [gameId]);

/**
 * The migration's down: every body stored without its envelope is stored whole again. After the
 * down of the release after it (MemberSnapshotsShort, which makes member snapshots whole), as
 * `migrate down` runs them, the later first.
 */
const storeWhole = () =>
  withQueryRunner(t.app.get(DataSource), async (q) => {
    await new MemberSnapshotsShort1768500000000().down(q);
    await new EventEnvelopeFromColumns1768400000000().down(q);
  });

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

/** The events section of bob's export, each as JSON text. */
const exportedEvents = async (auth: Auth) => {
  const r = await t.http.get('/v1/users/bob/export').set(auth);
  expect(r.status).toBe(200);
  return (JSON.parse(r.text) as { events: unknown[] }).events.map((e) => JSON.stringify(e));
};

it('a write stores its events without the envelope, and leaves the envelope\'s strings out of their names', async () => {
  const g = await playedGame();
  const rows = await storedBodies(g.gameId);
  expect(rows).toHaveLength(5);
  const feed = JSON.parse(await feedText(g.auth)).items as Record<string, string>[];
  rows.forEach(({ body, names }, i) => {
    for (const k of ENVELOPE) expect(body).not.toHaveProperty(k);
    expect(names).not.toContain(nameHash(feed[i].id));
    // The game's id is in a group's body (group.created), not in a member's or a ban's.
    if (feed[i].type !== 'group.created') expect(names).not.toContain(nameHash(feed[i].gameId));
  });
  expect(feed[4]).not.toHaveProperty('groupId');
  expect(feed.slice(0, 4).every((e) => e.groupId === g.groupId)).toBe(true);
});

it('the pull feed, the export, the streams\' pages and tail answer each event as its whole body reads', async () => {
  const g = await playedGame();
  const feed = t.app.get(FeedRepository);
  const read = async () => ({
    text: await feedText(g.auth),
    exported: await exportedEvents(g.auth),
    page: await feed.page({ gameId: g.gameId }, FEED_START, 100),
    groupPage: await feed.page({ gameId: g.gameId, groupId: g.groupId }, FEED_START, 100),
    tail: (await feed.tail([{ gameId: g.gameId, position: FEED_START, furthest: null }], 100)).events.get(g.gameId),
  });
  const stripped = await read();
  expect(stripped.exported).toHaveLength(1);
  expect(stripped.page.map((e) => e.body.type)).toEqual(['member.joined', 'group.created', 'member.joined', 'member.joined', 'game.user.banned']);

  await storeWhole();
  for (const { body } of await storedBodies(g.gameId)) for (const k of ['id', 'type', 'gameId', 'occurredAt']) expect(body).toHaveProperty(k);
  expect(await read()).toEqual(stripped);
});

it('a body whose instant is not its id\'s millisecond keeps that field, and is answered as stored', async () => {
  const g = await playedGame();
  await storeWhole();
  // A body as an earlier release may have stored it: its instant a millisecond after its id's.
  await t.db.query(
    `UPDATE journal SET body = jsonb_set(body, '{occurredAt}', to_jsonb(to_char(((body->>'occurredAt')::timestamptz + interval '1 ms') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
     WHERE game_id = $1 AND type = 'game.user.banned'`,
    [g.gameId],
  );
  const shifted = await feedText(g.auth);
  await t.db.query(`UPDATE journal SET body = body - 'id' - 'type' - 'gameId' - 'groupId' WHERE game_id = $1`, [g.gameId]);
  expect(await feedText(g.auth)).toBe(shifted);
});

it('webhooks send each event whole: first attempts and retries carry the feed\'s bytes', async () => {
  const g = await authedGame(t);
  const hook = await t.http.post('/v1/webhooks').set(g.auth).send({ url: receiver.url });
  expect(hook.status).toBe(201);
  const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Hooked', visibility: 'public', creatorUserId: 'alice' });
  await joinOk(t, g.auth, group.id, 'bob');
  for (const { body } of await storedBodies(g.gameId)) expect(body).not.toHaveProperty('id');
  const feed = JSON.parse(await feedText(g.auth)).items as { id: string }[];
  expect(feed).toHaveLength(3);
  const worker = t.app.get(DeliveryWorker);

  // First attempts, taken up from the endpoint's position: refused, so each is retried from its row.
  answer = 500;
  await worker.tick();
  expect(sent()).toEqual([...feed].sort((a, b) => a.id.localeCompare(b.id)));
  received.length = 0;
  answer = 200;
  await t.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1`, [hook.body.id]);
  await worker.tick();
  expect(sent()).toEqual([...feed].sort((a, b) => a.id.localeCompare(b.id)));
});

describe('EventEnvelopeFromColumns1768400000000', () => {
  it('is an expand of 1.11.0 that lets 1.10.0 run beside it, not 1.9.0, and changes no table', async () => {
    const migration = new EventEnvelopeFromColumns1768400000000();
    expect(migration.release).toEqual({ version: '1.11.0', kind: 'expand' });
    expect(oldestReleaseFor(migration.release)).toBe('1.10.0');
    expect(MIGRATIONS).toContain(EventEnvelopeFromColumns1768400000000);
    await expectNoTableChanged(t.db, () => migration.up());
  });

  it('its down stores each short body whole with its whole names, as svc_journal_names gives them, and leaves whole ones alone', async () => {
    const g = await playedGame();
    const whole = await authedGame(t);
    await postGroup(t, whole.auth, { kind: 'guild', name: 'Whole', visibility: 'public', creatorUserId: 'zed' });
    await t.db.query(
      `UPDATE journal SET body = body || jsonb_build_object('id', left(replace(id::text, '-', ''), 24), 'kept', true) WHERE game_id = $1 AND type IS NOT NULL`,
      [whole.gameId],
    );
    const untouched = await storedBodies(whole.gameId);
    await storeWhole();
    expect(await storedBodies(whole.gameId)).toEqual(untouched);
    const rows = await t.db.query<{ same: boolean; whole: boolean }>(
      `SELECT names = svc_journal_names(actor_user_id, target_id, payload, body) AS same, body ? 'id' AND body ? 'occurredAt' AS whole
       FROM journal WHERE game_id = $1 AND type IS NOT NULL`,
      [g.gameId],
    );
    expect(rows).toEqual(Array(5).fill({ same: true, whole: true }));
  });

  it('its down goes in batches of rows by id, each its own transaction, to the bodies the one statement gives', async () => {
    const g = await playedGame();
    expect((await storedBodies(g.gameId)).filter((r) => 'id' in r.body)).toEqual([]);
    const expected = await expectBatchesAsOneStatement(t.app.get(DataSource), t.db, g.gameId, WHOLE_AGAIN, WHOLE_AGAIN_BATCH);
    expect(expected.filter((r) => r.body !== null && !('id' in r.body))).toEqual([]);
  });
});
