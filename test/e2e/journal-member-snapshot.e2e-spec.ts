import type { IncomingMessage, ServerResponse } from 'node:http';
import { FEED_START } from '../../src/events/feed-position';
import { FeedRepository } from '../../src/events/feed.repository';
import { DeliveryWorker } from '../../src/webhooks/delivery-worker';
import { joinOk, postGroup, postLeave } from '../helpers/groups';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { listenLocal, type LocalServer } from '../helpers/webhook-receiver';

/**
 * A member snapshot stored short (src/db/member-snapshot.ts): without its group and without each
 * field at its usual value. Every reader makes it whole (eventBodySql): the feed, the export, the
 * streams' pages and tail, and the webhooks answer byte for byte what they answered for the whole
 * snapshot.
 */
let t: TestApp;
let receiver: LocalServer;
const received: string[] = [];
beforeAll(async () => {
  receiver = await listenLocal((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(body);
      res.writeHead(500).end();
    });
  });
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false', WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

type Auth = Record<string, string>;
type Body = Record<string, unknown> & { member?: Record<string, unknown> };

const storedBodies = (gameId: string) =>
  t.db.query<{ type: string; body: Body }>(`SELECT type, body FROM journal WHERE game_id = $1 AND type IS NOT NULL ORDER BY seq`, [gameId]);

/** The fields a short snapshot leaves out at these values, spelled out apart from the source's list. */
const USUAL = `'{"status": "active", "roles": [], "roleGrants": [], "metadata": {}, "notesPublic": null, "notesPrivate": null, "leftAt": null, "bannedUntil": null, "timedOutUntil": null}'::jsonb`;

/** Each stored snapshot of the game made short as a writer of release 1.13.0 stores it. */
const storeShort = (gameId: string) =>
  t.db.query(
    `UPDATE journal j SET body = jsonb_set(j.body, '{member}', (
       SELECT coalesce(jsonb_object_agg(f.key, f.value), '{}') FROM jsonb_each(j.body->'member') f
       WHERE f.key <> 'groupId' AND (NOT ${USUAL} ? f.key OR ${USUAL}->f.key <> f.value)))
     WHERE j.game_id = $1 AND j.body ? 'member' AND NOT j.body ? 'id' AND j.body->'member'->>'groupId' = j.group_id::text`,
    [gameId],
  );

/**
 * A group with members of every kind of snapshot: one as joined, one with metadata, notes and a
 * role, one who left, one banned with a reason, and a game-wide ban (a body without a member).
 */
async function playedGame() {
  const g = await authedGame(t);
  const hook = await t.http.post('/v1/webhooks').set(g.auth).send({ url: receiver.url });
  expect(hook.status).toBe(201);
  const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Snapshots', visibility: 'public', creatorUserId: 'alice' });
  for (const u of ['bob', 'carol', 'dave']) await joinOk(t, g.auth, group.id, u);
  const patched = await t.http
    .patch(`/v1/groups/${group.id}/members/bob`)
    .set(g.auth)
    .send({ metadata: { class: 'mage', level: 12 }, notesPublic: 'tank', notesPrivate: 'late payer' });
  expect(patched.status).toBe(200);
  const role = await t.http.post(`/v1/groups/${group.id}/roles`).set(g.auth).send({ name: 'officer', priority: 10 });
  expect(role.status).toBe(201);
  expect((await t.http.post(`/v1/groups/${group.id}/members/bob/roles/${role.body.id}`).set(g.auth).send({})).status).toBe(200);
  expect((await postLeave(t, g.auth, group.id, { userId: 'carol' })).status).toBe(200);
  expect((await t.http.post(`/v1/groups/${group.id}/bans`).set(g.auth).send({ userId: 'dave', reason: 'griefing' })).status).toBe(201);
  expect((await t.http.post('/v1/bans').set(g.auth).send({ userId: 'mallory', reason: 'cheating' })).status).toBe(201);
  return { ...g, groupId: group.id };
}

/** The same snapshots made whole again in SQL: the usual values and the group under what the row holds. */
const storeWhole = (gameId: string) =>
  t.db.query(
    `UPDATE journal j SET body = jsonb_set(j.body, '{member}', ${USUAL} || jsonb_build_object('groupId', j.group_id) || (j.body->'member'))
     WHERE j.game_id = $1 AND j.body ? 'member' AND NOT j.body->'member' ? 'groupId'`,
    [gameId],
  );

/**
 * What each reader answers for the game's events. Webhooks: the worker's tick sends what waits to be
 * sent, first attempts (read from the endpoint's position) or, once those were refused, retries
 * (read from their delivery rows); the receiver refuses them all, so each is sent again next time.
 */
async function everyReader(g: { auth: Auth; gameId: string; groupId: string }) {
  const feed = t.app.get(FeedRepository);
  const text = await t.http.get('/v1/events/feed?limit=100').set(g.auth);
  expect(text.status).toBe(200);
  const exported = await t.http.get('/v1/users/bob/export').set(g.auth);
  expect(exported.status).toBe(200);
  received.length = 0;
  await t.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id IN (SELECT id FROM webhook_endpoints WHERE game_id = $1)`, [g.gameId]);
  await t.app.get(DeliveryWorker).tick();
  return {
    text: text.text,
    exported: (JSON.parse(exported.text) as { events: unknown[] }).events.map((e) => JSON.stringify(e)),
    page: await feed.page({ gameId: g.gameId }, FEED_START, 100),
    groupPage: await feed.page({ gameId: g.gameId, groupId: g.groupId }, FEED_START, 100),
    tail: (await feed.tail([{ gameId: g.gameId, position: FEED_START, furthest: null }], 100)).events.get(g.gameId),
    webhooks: [...received].sort(),
  };
}

it('every reader answers a short member snapshot as its whole one', async () => {
  const g = await playedGame();
  const stored = await storedBodies(g.gameId);
  const members = stored.filter((r) => r.body.member);
  expect(members.length).toBeGreaterThanOrEqual(8);
  expect(members.every((r) => r.body.member!.groupId === g.groupId)).toBe(true);

  await storeShort(g.gameId);
  const short = (await storedBodies(g.gameId)).filter((r) => r.body.member);
  expect(short.map((r) => r.body.member!.groupId)).toEqual(short.map(() => undefined));
  // What differs from the usual values stays in the row: bob's metadata, notes and role, carol's leaving, dave's ban.
  const kept = short.map((r) => Object.keys(r.body.member!).sort().join(','));
  expect(kept).toContain('id,joinedAt,userId');
  expect(kept.some((k) => k.includes('metadata') && k.includes('notesPrivate') && k.includes('roles'))).toBe(true);
  expect(kept.some((k) => k.includes('leftAt') && k.includes('status'))).toBe(true);
  expect(short.some((r) => r.type === 'member.banned' && 'status' in r.body.member!)).toBe(true);
  // First attempts, from the endpoint's position.
  const fromShort = await everyReader(g);

  await storeWhole(g.gameId);
  expect(await storedBodies(g.gameId)).toEqual(stored);
  // Retries, from the delivery rows.
  const fromWhole = await everyReader(g);
  expect(fromWhole.webhooks).toHaveLength(stored.length);
  expect(fromShort).toEqual(fromWhole);
  expect(fromShort.text).toBe(fromWhole.text);
});

it('a snapshot that keeps its group is answered as stored, whatever else it lacks', async () => {
  const g = await playedGame();
  await t.db.query(`UPDATE journal SET body = body #- '{member,roles}' WHERE game_id = $1 AND type = 'member.joined' AND NOT body ? 'id'`, [g.gameId]);
  const events = JSON.parse((await t.http.get('/v1/events/feed?limit=100').set(g.auth)).text).items as Body[];
  const joined = events.filter((e) => e.type === 'member.joined');
  expect(joined.length).toBeGreaterThan(0);
  for (const e of joined) {
    expect(e.member).not.toHaveProperty('roles');
    expect(e.member!.groupId).toBe(g.groupId);
  }
});
