import type { IncomingMessage, ServerResponse } from 'node:http';
import { DataSource } from 'typeorm';
import { MEMBERS_WHOLE, MEMBERS_WHOLE_BATCH, MemberSnapshotsShort1768500000000 } from '../../migrations/1768500000000-member-snapshots-short';
import { MIGRATIONS } from '../../migrations';
import { oldestReleaseFor } from '../../migrations/release';
import { nameHash } from '../../src/db/journal-names';
import { FEED_START } from '../../src/events/feed-position';
import { FeedRepository } from '../../src/events/feed.repository';
import { joinOk, postGroup, postLeave } from '../helpers/groups';
import { expectBatchesAsOneStatement, expectNoTableChanged } from '../helpers/journal';
import { withQueryRunner } from '../helpers/query-runner';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { listenLocal, type LocalServer } from '../helpers/webhook-receiver';
import { tickPastHorizon } from '../helpers/delivery-ticks';

/**
 * From release 1.13.0 a write stores a member event's member snapshot short (src/db/member-snapshot.ts):
 * without its group and without each field at its usual value. Every reader makes it whole
 * (eventBodySql, since 1.12.0): the feed, the export, the streams' pages and tail, and the webhooks
 * answer it as the write answered the member, and byte for byte as once migration
 * MemberSnapshotsShort's down has stored it whole, as every release before wrote it.
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
  t.db.query<{ type: string; body: Body; names: number[] }>(`SELECT type, body, names FROM journal WHERE game_id = $1 AND type IS NOT NULL ORDER BY seq`, [gameId]);

/**
 * A group with members of every kind of snapshot: one as joined, one with metadata, notes and a
 * role, one who left, one banned with a reason, and a game-wide ban (a body without a member).
 * Answers the members the writes answered, each as its event's snapshot.
 */
async function playedGame() {
  const g = await authedGame(t);
  const hook = await t.http.post('/v1/webhooks').set(g.auth).send({ url: receiver.url });
  expect(hook.status).toBe(201);
  const group = await postGroup(t, g.auth, { kind: 'guild', name: 'Snapshots', visibility: 'public', creatorUserId: 'alice' });
  const answered: unknown[] = [];
  const ok = async (r: Promise<{ status: number; body: unknown }>, status: number) => {
    const res = await r;
    expect(res.status).toBe(status);
    answered.push(res.body);
  };
  for (const u of ['bob', 'carol', 'dave']) answered.push(await joinOk(t, g.auth, group.id, u));
  const notes = { metadata: { class: 'mage', level: 12 }, notesPublic: 'tank', notesPrivate: 'late payer' };
  await ok(t.http.patch(`/v1/groups/${group.id}/members/bob`).set(g.auth).send(notes), 200);
  const role = await t.http.post(`/v1/groups/${group.id}/roles`).set(g.auth).send({ name: 'officer', priority: 10 });
  expect(role.status).toBe(201);
  await ok(t.http.post(`/v1/groups/${group.id}/members/bob/roles/${role.body.id}`).set(g.auth).send({}), 200);
  await ok(postLeave(t, g.auth, group.id, { userId: 'carol' }), 200);
  await ok(t.http.post(`/v1/groups/${group.id}/bans`).set(g.auth).send({ userId: 'dave', reason: 'griefing' }), 201);
  expect((await t.http.post('/v1/bans').set(g.auth).send({ userId: 'mallory', reason: 'cheating' })).status).toBe(201);
  return { ...g, groupId: group.id, answered };
}

/** MemberSnapshotsShort's down: every short snapshot is made whole again. */
const storeWhole = () => withQueryRunner(t.app.get(DataSource), (q) => new MemberSnapshotsShort1768500000000().down(q));

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
  await tickPastHorizon(t.app);
  return {
    text: text.text,
    exported: (JSON.parse(exported.text) as { events: unknown[] }).events.map((e) => JSON.stringify(e)),
    page: await feed.page({ gameId: g.gameId }, FEED_START, 100),
    groupPage: await feed.page({ gameId: g.gameId, groupId: g.groupId }, FEED_START, 100),
    tail: (await feed.tail([{ gameId: g.gameId, position: FEED_START, furthest: null }], 100)).events.get(g.gameId),
    // The other tests' games are the receiver's too.
    webhooks: received.filter((b) => (JSON.parse(b) as { gameId: string }).gameId === g.gameId).sort(),
  };
}

it('a write stores each member short: without its group and the fields at their usual values, the group\'s id out of its names', async () => {
  const g = await playedGame();
  const members = (await storedBodies(g.gameId)).filter((r) => r.body.member);
  expect(members.length).toBeGreaterThanOrEqual(8);
  for (const { body, names } of members) {
    expect(body.member).not.toHaveProperty('groupId');
    expect(names).not.toContain(nameHash(g.groupId));
  }
  // What differs from the usual values stays in the row: bob's metadata, notes and role, carol's leaving, dave's ban.
  const kept = members.map((r) => Object.keys(r.body.member!).sort().join(','));
  expect(kept).toContain('id,joinedAt,userId');
  expect(kept).toContain('id,joinedAt,metadata,notesPrivate,notesPublic,roleGrants,roles,userId');
  expect(kept).toContain('id,joinedAt,leftAt,status,userId');
  expect(members.some((r) => r.type === 'member.banned' && r.body.member!.status === 'banned')).toBe(true);
});

it('every reader answers each member as the write answered it, and as its whole snapshot reads', async () => {
  const g = await playedGame();
  // First attempts, from the endpoint's position.
  const fromShort = await everyReader(g);
  const snapshots = (JSON.parse(fromShort.text).items as Body[]).filter((e) => e.member).map((e) => e.member);
  for (const member of g.answered) expect(snapshots).toContainEqual(member);

  await storeWhole();
  const whole = (await storedBodies(g.gameId)).filter((r) => r.body.member);
  expect(whole.every((r) => r.body.member!.groupId === g.groupId && 'timedOutUntil' in r.body.member!)).toBe(true);
  // Retries, from the delivery rows.
  const fromWhole = await everyReader(g);
  expect(fromWhole.webhooks).toHaveLength((await storedBodies(g.gameId)).length);
  expect(fromShort).toEqual(fromWhole);
  expect(fromShort.text).toBe(fromWhole.text);
});

it('a snapshot that keeps its group is answered as stored, whatever else it lacks', async () => {
  const g = await playedGame();
  await storeWhole();
  await t.db.query(`UPDATE journal SET body = body #- '{member,roles}' WHERE game_id = $1 AND type = 'member.joined'`, [g.gameId]);
  const events = JSON.parse((await t.http.get('/v1/events/feed?limit=100').set(g.auth)).text).items as Body[];
  const joined = events.filter((e) => e.type === 'member.joined');
  expect(joined.length).toBeGreaterThan(0);
  for (const e of joined) {
    expect(e.member).not.toHaveProperty('roles');
    expect(e.member!.groupId).toBe(g.groupId);
  }
});

describe('MemberSnapshotsShort1768500000000', () => {
  it('is an expand of 1.13.0 that lets 1.12.0 run beside it, not 1.11.0, and changes no table', async () => {
    const migration = new MemberSnapshotsShort1768500000000();
    expect(migration.release).toEqual({ version: '1.13.0', kind: 'expand' });
    expect(oldestReleaseFor(migration.release)).toBe('1.12.0');
    expect(MIGRATIONS).toContain(MemberSnapshotsShort1768500000000);
    await expectNoTableChanged(t.db, () => migration.up());
  });

  it('its down makes each short snapshot whole with its whole names, as svc_journal_names gives them, and leaves whole ones alone', async () => {
    const g = await playedGame();
    const other = await playedGame();
    await t.db.query(`UPDATE journal SET body = jsonb_set(body, '{member,groupId}', to_jsonb(group_id)) WHERE game_id = $1 AND body ? 'member'`, [other.gameId]);
    const untouched = await storedBodies(other.gameId);
    await storeWhole();
    expect(await storedBodies(other.gameId)).toEqual(untouched);
    const rows = await t.db.query<{ same: boolean; whole: boolean }>(
      `SELECT names = svc_journal_names(actor_user_id, target_id, payload, body) AS same, body->'member' ? 'groupId' AND body->'member' ? 'status' AS whole
       FROM journal WHERE game_id = $1 AND body ? 'member'`,
      [g.gameId],
    );
    expect(rows.length).toBeGreaterThanOrEqual(8);
    expect(rows.every((r) => r.same && r.whole)).toBe(true);
  });

  it('its down goes in batches of rows by id, each its own transaction, to the bodies the one statement gives', async () => {
    const g = await playedGame();
    const expected = await expectBatchesAsOneStatement(t.app.get(DataSource), t.db, g.gameId, MEMBERS_WHOLE, MEMBERS_WHOLE_BATCH);
    const members = expected.filter((r) => (r.body as Body | null)?.member) as { body: Body }[];
    expect(members.length).toBeGreaterThanOrEqual(8);
    expect(members.every((r) => r.body.member!.groupId === g.groupId)).toBe(true);
  });
});
