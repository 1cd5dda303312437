import { join } from 'node:path';
import { Client } from 'pg';
import type { TestDatabase } from '../helpers/test-db';
import { http, sleep, withTimeout } from '../helpers/process';
import { openSse, type SseStream } from '../helpers/sse';
import { clusterAt, initCluster, removeScratch, requestRecovery, run, scratchDir, serverFolder, type Build, type Cluster } from './helpers/pg-cluster';
import { createGame, expectStatus, SecretLedger, startInstance, type Game, type Instance } from './helpers/service';

/**
 * Backups that restore (issue 28): the game's feed and streams after each documented restore path,
 * on real clusters. A consumer keeps a position saved before the backup; after the restore it must
 * receive every later event exactly once, in order, the events written after the restore included;
 * every restored event keeps its id and its place; a position the backup never saw is 410.
 *
 * The source cluster has run more transactions than the one restored into (as any database in use
 * has), so a feed ordered by transaction ids alone sorts the new events before the restored ones.
 */

const DB = 'guildhall';
/** Transactions the source cluster runs before the service starts: it has been in use. */
const SOURCE_HISTORY = 3_000;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
}, 90_000);

/** Runs `n` transactions, each assigned an id: the cluster's transaction counter moves on by `n`. */
async function burnTransactions(cluster: Cluster, n: number): Promise<void> {
  const c = new Client({ connectionString: cluster.url(DB) });
  await c.connect();
  for (let i = 0; i < n; i++) await c.query('SELECT pg_current_xact_id()');
  await c.end();
}

async function startedCluster(build: Build, dir: string, settings: Record<string, string> = {}): Promise<Cluster> {
  const cluster = await initCluster(build, dir, settings);
  await cluster.start();
  cleanups.push(() => cluster.stop('immediate'));
  return cluster;
}

async function instanceOn(cluster: Cluster): Promise<Instance> {
  const instance = await startInstance({ url: cluster.url(DB) } as TestDatabase);
  cleanups.push(() => instance.stop());
  return instance;
}

interface World {
  game: Game;
  groupId: string;
  auth: Record<string, string>;
}

async function arrange(base: string): Promise<World> {
  const game = await createGame(base, 'restored', new SecretLedger());
  const auth = { authorization: `Bearer ${game.key}` };
  const group = await expectStatus(
    http(`${base}/v1/groups`, { method: 'POST', headers: auth, body: { kind: 'guild', name: 'Keepers', visibility: 'public', creatorUserId: 'founder' } }),
    201,
  );
  return { game, groupId: group.body.id, auth };
}

/** A public join, retried while the service answers 503 (its database coming back). */
async function joinGroup(base: string, w: World, userId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await http(`${base}/v1/groups/${w.groupId}/join`, { method: 'POST', headers: w.auth, body: { userId } }).catch((err: Error) => ({ status: 0, text: err.message }));
    if (r.status === 201) return;
    if (r.status !== 503 && r.status !== 0) throw new Error(`join ${userId}: ${r.status} ${r.text}`);
    if (Date.now() > deadline) throw new Error(`join ${userId}: still ${r.status} after 60 s`);
    await sleep(250);
  }
}

/** The pull feed from `after` to its end, following nextAfter: the event ids, in order. */
async function feed(base: string, w: World, after?: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor = after;
  for (;;) {
    const r = await expectStatus(http(`${base}/v1/events/feed?limit=3${cursor ? `&after=${cursor}` : ''}`, { headers: w.auth }), 200);
    const page = r.body as { items: { id: string }[]; nextAfter: string | null };
    if (!page.items.length) return ids;
    ids.push(...page.items.map((e) => e.id));
    cursor = page.nextAfter!;
  }
}

/** The users of the feed's member.joined events, in feed order. */
async function joinedUsers(base: string, w: World): Promise<string[]> {
  const r = await expectStatus(http(`${base}/v1/events/feed?limit=1000&types=member.joined`, { headers: w.auth }), 200);
  return (r.body.items as { member: { userId: string } }[]).map((e) => e.member.userId);
}

/** A stream resumed with `Last-Event-ID`, the way EventSource reconnects. */
function resume(base: string, w: World, path: string, lastEventId: string): Promise<SseStream> {
  return openSse(base, path, { ...w.auth, 'last-event-id': lastEventId });
}

/**
 * What a consumer holding `saved` (a position from before the backup) and one holding `unknown` (a
 * position the backup never saw) get from the restored service, on the pull feed and on both
 * streams: the events after `saved` that the restored database holds (`expected`), then one more
 * written live.
 */
async function expectResumable(base: string, w: World, saved: string, expected: string[], unknown: string, liveUser: string): Promise<void> {
  expect(await feed(base, w, saved)).toEqual(expected);

  const expired = await http(`${base}/v1/events/feed?after=${unknown}`, { headers: w.auth });
  expect(expired.status).toBe(410);
  expect(expired.body.code).toBe('events_expired');

  const gameStream = await resume(base, w, '/v1/events', saved);
  const groupStream = await resume(base, w, `/v1/events/${w.groupId}`, saved);
  try {
    expect([gameStream.status, groupStream.status]).toEqual([200, 200]);
    await gameStream.waitFor(() => gameStream.ids().length >= expected.length, 15_000, 'the game stream replay');
    await groupStream.waitFor(() => groupStream.ids().length >= expected.length, 15_000, 'the group stream replay');
    await joinGroup(base, w, liveUser);
    const all = await feed(base, w);
    const live = all[all.length - 1];
    await gameStream.waitFor(() => gameStream.ids().includes(live), 15_000, 'the live join on the game stream');
    await groupStream.waitFor(() => groupStream.ids().includes(live), 15_000, 'the live join on the group stream');
    expect(gameStream.ids()).toEqual([...expected, live]);
    expect(groupStream.ids()).toEqual([...expected, live]);
  } finally {
    gameStream.close();
    groupStream.close();
  }
  const gone = await resume(base, w, '/v1/events', unknown);
  expect(gone.status).toBe(410);
  expect(gone.body?.code).toBe('events_expired');
}

/** pg_dump -Fc of the source, pg_restore into a new cluster of `target`, as docs/operations.md tells. */
async function dumpAndRestore(target: Build): Promise<void> {
  const scratch = scratchDir();
  cleanups.push(async () => removeScratch(scratch));
  const source = await startedCluster('pg15', join(scratch, 'source'));
  await source.sql('postgres', `CREATE DATABASE ${DB}`);
  await burnTransactions(source, SOURCE_HISTORY);
  const before = await instanceOn(source);
  const w = await arrange(before.base);
  for (const u of ['u1', 'u2', 'u3', 'u4', 'u5']) await joinGroup(before.base, w, u);
  const backedUp = await feed(before.base, w);
  expect(backedUp).toHaveLength(7); // group.created, the founder's member.joined, five joins
  const saved = backedUp[2];

  const dump = join(scratch, 'guildhall.dump');
  await run('pg15', 'pg_dump', ['-Fc', '-f', dump, source.url(DB)]);
  // Written after the backup: lost with the source, so unknown to the restored database.
  await joinGroup(before.base, w, 'after-backup');
  const unknown = (await feed(before.base, w)).at(-1)!;
  await before.stop();
  await source.stop();

  const restored = await startedCluster(target, join(scratch, 'restored'));
  await restored.sql('postgres', `CREATE DATABASE ${DB}`);
  await run('pg15', 'pg_restore', ['--no-owner', '-d', restored.url(DB), dump]);
  const after = await instanceOn(restored);
  expect(after.logs()).toContain('new events start feed era 2');
  for (const u of ['n1', 'n2', 'n3']) await joinGroup(after.base, w, u);

  const all = await feed(after.base, w);
  expect(all.slice(0, backedUp.length)).toEqual(backedUp);
  expect(all).toHaveLength(backedUp.length + 3);
  expect(await joinedUsers(after.base, w)).toEqual(['founder', 'u1', 'u2', 'u3', 'u4', 'u5', 'n1', 'n2', 'n3']);
  await expectResumable(after.base, w, saved, all.slice(3), unknown, 'n4');
}

describe('backup and restore: the event feed', () => {
  it('pg_dump, then pg_restore into a fresh PostgreSQL 15 cluster', () => dumpAndRestore('pg15'), 300_000);

  it('a major-version move by dump: PostgreSQL 15 to the embedded 18', () => dumpAndRestore('embedded'), 300_000);

  it('pg_basebackup and WAL replay to a chosen time, under a service that stays up', async () => {
    const scratch = scratchDir();
    cleanups.push(async () => removeScratch(scratch));
    const archive = serverFolder(join(scratch, 'archive'));
    const source = await startedCluster('pg15', join(scratch, 'source'), {
      wal_level: 'replica',
      archive_mode: 'on',
      archive_command: `'cp %p ${archive}/%f'`,
    });
    await source.sql('postgres', `CREATE DATABASE ${DB}`);
    await burnTransactions(source, SOURCE_HISTORY);
    const service = await instanceOn(source);
    const w = await arrange(service.base);
    for (const u of ['u1', 'u2']) await joinGroup(service.base, w, u);
    const saved = (await feed(service.base, w))[1];

    const base = serverFolder(join(scratch, 'base'));
    await run('pg15', 'pg_basebackup', ['-D', base, '-X', 'stream', '-c', 'fast', '-d', source.url()], 'server');
    for (const u of ['u3', 'u4']) await joinGroup(service.base, w, u);
    const kept = await feed(service.base, w);
    await sleep(300);
    const [{ t: target }] = await source.sql<{ t: string }>(DB, `SELECT to_char(clock_timestamp(), 'YYYY-MM-DD HH24:MI:SS.US+00') AS t`);
    await sleep(300);

    // Past the target: a live stream and a pull consumer see these; the replay will not bring them back.
    const live = await openSse(service.base, '/v1/events', w.auth);
    cleanups.push(async () => live.close());
    await burnTransactions(source, 500);
    for (const u of ['late1', 'late2']) await joinGroup(service.base, w, u);
    const beyond = await feed(service.base, w);
    const unknown = beyond.at(-1)!;
    await live.waitFor(() => live.ids().includes(unknown), 15_000, 'the late joins on the live stream');

    const [{ wal }] = await source.sql<{ wal: string }>(DB, 'SELECT pg_walfile_name(pg_switch_wal()) AS wal');
    for (let i = 0; ; i++) {
      const [{ last }] = await source.sql<{ last: string | null }>(DB, 'SELECT last_archived_wal AS last FROM pg_stat_archiver');
      if (last !== null && last >= wal) break;
      if (i > 200) throw new Error(`WAL ${wal} not archived (last ${last})`);
      await sleep(100);
    }
    // The server is lost; its base backup replays the archive up to the target, on the same address.
    await source.stop('immediate');
    const recovered = clusterAt('pg15', base, source.port);
    requestRecovery(base, archive, target);
    await recovered.start();
    cleanups.push(() => recovered.stop('immediate'));
    for (let i = 0; ; i++) {
      const [{ r }] = await recovered.sql<{ r: boolean }>(DB, 'SELECT pg_is_in_recovery() AS r');
      if (!r) break;
      if (i > 300) throw new Error('the recovered cluster was not promoted');
      await sleep(100);
    }

    // The stream that handed out events the database no longer holds is ended, not left silent.
    await withTimeout(live.ended, 30_000, () => 'the stream past the target was not ended');
    await service.logged('no longer holds the last event sent');
    // Recovered from its own base backup, the cluster counts on from it: no new era.
    expect(service.logs()).not.toContain('new events start feed era');

    for (const u of ['n1', 'n2', 'n3']) await joinGroup(service.base, w, u);
    const all = await feed(service.base, w);
    expect(all.slice(0, kept.length)).toEqual(kept);
    expect(all).toHaveLength(kept.length + 3);
    expect(await joinedUsers(service.base, w)).toEqual(['founder', 'u1', 'u2', 'u3', 'u4', 'n1', 'n2', 'n3']);
    await expectResumable(service.base, w, saved, all.slice(2), unknown, 'n4');
  }, 300_000);
});
