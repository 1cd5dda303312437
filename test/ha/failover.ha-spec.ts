import { http, sleep } from '../helpers/process';
import { createGame, expectStatus, SecretLedger, type Game } from '../reliability/helpers/service';
import { startHa, type HaCluster } from './helpers/ha-cluster';
import { eventually, followFeed, followStream, outage, unexpected, webhookReceiver, writeLoad, type Targets, type WriteResult } from './helpers/load';

/**
 * Failover with nothing lost (docs/high-availability.md): the reference deployment of deploy/ha
 * (etcd, three PostgreSQL 15 nodes under Patroni in synchronous_mode, HAProxy, two instances)
 * under writes from several clients, with feed, stream and webhook consumers. The primary's
 * postmaster is SIGKILLed; later a planned switchover moves the primary again.
 */

/** The promise: writes answer 2xx again within this of the primary's death. */
const FAILOVER_BOUND_MS = 30_000;
/** The promise for a planned switchover: 503s for at most this long. */
const SWITCHOVER_BOUND_MS = 5_000;
const WEBHOOK_TYPES = ['member.joined', 'friend.request.sent'];

const seconds = (ms: number | null) => (ms === null ? 'n/a' : `${(ms / 1000).toFixed(2)} s`);

/** Every write acknowledged 2xx whose row is not in the database (read through the current primary). */
async function lostWrites(cluster: HaCluster, results: readonly WriteResult[]): Promise<WriteResult[]> {
  const acked = results.filter((r) => r.status === 201);
  const memberIds = acked.filter((r) => r.op !== 'friend').map((r) => r.id);
  const requestIds = acked.filter((r) => r.op === 'friend').map((r) => r.id);
  const members = new Set((await cluster.sql<{ id: string }>('SELECT id FROM members WHERE id = ANY ($1)', [memberIds])).map((r) => r.id));
  const requests = new Set((await cluster.sql<{ id: string }>('SELECT id FROM user_relationships WHERE id = ANY ($1)', [requestIds])).map((r) => r.id));
  return acked.filter((r) => !r.id || !(r.op === 'friend' ? requests : members).has(r.id));
}

const duplicates = (ids: readonly string[]) => ids.length - new Set(ids).size;

describe('high availability: Patroni, HAProxy and two instances', () => {
  let cluster: HaCluster | undefined;
  let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
  let game: Game;
  let targets: Targets;

  beforeAll(async () => {
    receiver = await webhookReceiver();
    cluster = await startHa({ RATE_LIMIT_PER_MINUTE: '0', WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', LOG_LEVEL: 'warn', NODE_ENV: 'test' });
    const [one] = cluster.instances;
    game = await createGame(one, 'ha', new SecretLedger());
    const call = async (path: string, body: unknown) =>
      (await expectStatus(http(`${one}${path}`, { method: 'POST', headers: { authorization: `Bearer ${game.key}` }, body }), 201)).body;
    await call('/v1/webhooks', { url: receiver.url, events: WEBHOOK_TYPES });
    const groups: string[] = [];
    for (let i = 0; i < 6; i++) groups.push((await call('/v1/groups', { kind: 'party', name: `open ${i}`, visibility: 'public' })).id);
    const closed = await call('/v1/groups', { kind: 'party', name: 'closed', visibility: 'invite-only' });
    const invitation = await call(`/v1/groups/${closed.id}/invitations`, { maxUses: 10_000 });
    targets = { instances: cluster.instances, key: game.key, groups, invitationCode: invitation.code };
  }, 300_000);

  afterAll(async () => {
    await receiver?.close();
    await cluster?.destroy();
  }, 180_000);

  it('loses no acknowledged write when the primary is SIGKILLed: 503 with Retry-After meanwhile, 2xx again within 30 s, feed and streams exactly once, webhooks resume', async () => {
    const c = cluster!;
    const [one, two] = c.instances;
    // Consumers from the last event written so far: the feed from the start, the streams from its head.
    const head = (await expectStatus(http(`${one}/v1/events/feed?limit=1000`, { headers: { authorization: `Bearer ${game.key}` } }), 200)).body.items.at(-1).id as string;
    const feed = followFeed(two, game.key, null);
    const gameStream = followStream(two, '/v1/events', game.key, head);
    const groupStream = followStream(one, `/v1/events/${targets.groups[0]}`, game.key, head);
    const load = writeLoad(targets, 6, 'f');

    await sleep(6_000);
    const leader = (await c.leader())!;
    expect(leader).toBeDefined();
    const pid = c.postmasterPid(leader.name);
    const killedAt = Date.now();
    process.kill(pid, 'SIGKILL');
    // The streams are cut while there is no primary: they must resume with Last-Event-ID across it.
    await sleep(1_000);
    gameStream.cut();
    groupStream.cut();

    // Load goes on until writes have worked again for a while (bounded).
    await eventually(() => outage(load.results, killedAt).backAt !== null && Date.now() - outage(load.results, killedAt).backAt! > 5_000, 60_000);
    await load.stop();
    const window = outage(load.results, killedAt);
    const members = await c.members();
    const newLeader = members.find((m) => m.role === 'leader');

    // ---- every acknowledged write is in the database, read back through the new primary ----
    const acked = load.results.filter((r) => r.status === 201);
    expect(await lostWrites(c, load.results)).toEqual([]);
    // ---- only 2xx or 503 service_unavailable with Retry-After ----
    expect(unexpected(load.results)).toEqual([]);

    // ---- the feed, the game's stream and a group's stream: every committed event exactly once ----
    const committed = await c.sql<{ id: string; group_id: string | null; type: string }>(
      `SELECT id, group_id, type FROM outbox_events WHERE game_id = $1 ORDER BY era, xid, seq`,
      [game.id],
    );
    const afterHead = committed.slice(committed.findIndex((e) => e.id === head) + 1);
    const groupIds = afterHead.filter((e) => e.group_id === targets.groups[0]).map((e) => e.id);
    const converged = await eventually(
      () => feed.ids.length >= committed.length && gameStream.ids.length >= afterHead.length && groupStream.ids.length >= groupIds.length,
      60_000,
    );
    await feed.stop();
    gameStream.stop();
    groupStream.stop();
    expect({ converged, feedDuplicates: duplicates(feed.ids), gameDuplicates: duplicates(gameStream.ids), groupDuplicates: duplicates(groupStream.ids) }).toEqual({
      converged: true,
      feedDuplicates: 0,
      gameDuplicates: 0,
      groupDuplicates: 0,
    });
    expect(feed.ids).toEqual(committed.map((e) => e.id));
    expect(gameStream.ids).toEqual(afterHead.map((e) => e.id));
    expect(groupStream.ids).toEqual(groupIds);

    // ---- webhooks: every committed event of the subscribed types reaches the receiver ----
    const expected = committed.filter((e) => WEBHOOK_TYPES.includes(e.type)).map((e) => e.id);
    const delivered = () => new Set(receiver.receipts.map((r) => r.eventId));
    await eventually(() => expected.every((id) => delivered().has(id)), 90_000);
    expect(expected.filter((id) => !delivered().has(id))).toEqual([]);
    const known = new Set(committed.map((e) => e.id));
    expect(receiver.receipts.filter((r) => !known.has(r.eventId))).toEqual([]);

    const backMs = window.backAt === null ? null : window.backAt - killedAt;
    process.stdout.write(
      `failover: SIGKILL of ${leader.name}'s postmaster; ${newLeader?.name} is the new leader (timeline ${newLeader?.timeline}); ` +
        `${acked.length} writes acknowledged, 0 lost; ${window.failures.length} answered 503 service_unavailable with Retry-After, ` +
        `from ${seconds(window.firstFailure && window.firstFailure - killedAt)} to ${seconds(window.lastFailure && window.lastFailure - killedAt)} after the kill; ` +
        `2xx again ${seconds(backMs)} after the kill; feed ${feed.ids.length} events, game stream ${gameStream.ids.length} (${gameStream.reconnects} reconnects), ` +
        `group stream ${groupStream.ids.length} (${groupStream.reconnects} reconnects), 0 repeated; webhooks ${expected.length} events, ` +
        `${receiver.receipts.length} deliveries (${receiver.receipts.length - delivered().size} repeated under the same id)\n`,
    );
    expect(gameStream.reconnects).toBeGreaterThanOrEqual(1);
    expect(groupStream.reconnects).toBeGreaterThanOrEqual(1);
    expect(newLeader?.name).not.toBe(leader.name);
    expect(backMs).not.toBeNull();
    expect(backMs!).toBeLessThan(FAILOVER_BOUND_MS);
  }, 300_000);

  it('a planned switchover to the synchronous standby costs at most 5 s of 503s and loses nothing', async () => {
    const c = cluster!;
    const healthy = await c.waitHealthy(120_000);
    const from = healthy.find((m) => m.role === 'leader')!;
    const to = healthy.find((m) => m.role === 'sync_standby')!;
    const load = writeLoad(targets, 4, 's');
    await sleep(3_000);
    const startedAt = Date.now();
    await c.patronictl('switchover', '--force', '--leader', from.name, '--candidate', to.name);
    const commandMs = Date.now() - startedAt;
    await eventually(() => outage(load.results, startedAt).backAt !== null && Date.now() - outage(load.results, startedAt).backAt! > 3_000, 30_000);
    await eventually(async () => (await c.leader())?.name === to.name, 30_000);
    await load.stop();
    const window = outage(load.results, startedAt);
    const unavailableMs = window.firstFailure === null ? 0 : window.backAt! - window.firstFailure;

    expect(await lostWrites(c, load.results)).toEqual([]);
    expect(unexpected(load.results)).toEqual([]);
    expect((await c.leader())?.name).toBe(to.name);
    process.stdout.write(
      `switchover: ${from.name} -> ${to.name} (patronictl returned after ${seconds(commandMs)}); ${load.results.filter((r) => r.status === 201).length} writes acknowledged, 0 lost; ` +
        `${window.failures.length} answered 503 over ${seconds(unavailableMs)} (first ${seconds(window.firstFailure && window.firstFailure - startedAt)}, ` +
        `2xx again ${seconds(window.backAt && window.backAt - startedAt)} after the command)\n`,
    );
    expect(unavailableMs).toBeLessThanOrEqual(SWITCHOVER_BOUND_MS);
  }, 180_000);
});
