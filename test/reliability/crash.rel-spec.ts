import type { IncomingMessage, ServerResponse } from 'node:http';
import { http, sleep, TEST_ADMIN_TOKEN } from '../helpers/process';
import { listenLocal, socketOwner, type LocalServer } from '../helpers/webhook-receiver';
import { caseContext, createGame, expectStatus, startInstance, type Game, type Instance } from './helpers/service';

/**
 * Crash under load (issue 18.1): two instances on one database deliver to one receiver while
 * clients join groups through both; one instance is SIGKILLed three times, and the other once while
 * its worker has a delivery in flight. Every acknowledged join reaches the feed once and the receiver
 * at least once, always under one event id; nothing rolled back appears; a delivery lost with its
 * worker is retried within 40 s (the claim lease, 25 s, plus the survivor’s next claim, at most 5 s later).
 * CRASH_RECEIVER_DELAY_MS (250 by default) slows the receiver, to try the drain against a load
 * heavier for it than this machine's joins make.
 */

const RECOVERY_BOUND_MS = 40_000;
/** The longest the test waits for the load's backlog to drain after the load stops. */
const DRAIN_CAP_MS = 120_000;
const RECEIVER_DELAY_MS = Number(process.env.CRASH_RECEIVER_DELAY_MS ?? 250);

interface Receipt {
  eventId: string;
  deliveryId: string;
  memberId: string;
  occurredAt: number;
  arrivedAt: number;
  answeredAt: number | null;
  senderPid: number | null;
}

describe('crash under load', () => {
  let ctx: Awaited<ReturnType<typeof caseContext>>;
  const instances: Instance[] = [];
  let receiver: LocalServer;
  const receipts: Receipt[] = [];
  let onArrival: (r: Receipt) => void = () => undefined;

  afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await receiver?.close();
    await ctx?.done();
  }, 60_000);

  it('loses no acknowledged event, shows no rolled-back one, duplicates only under the same id, and recovers a lost delivery within 40 s', async () => {
    ctx = await caseContext();
    receiver = await listenLocal((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const event = JSON.parse(body);
        const r: Receipt = {
          eventId: event.id,
          deliveryId: String(req.headers['x-svc-delivery-id']),
          memberId: event.member?.id,
          occurredAt: Date.parse(event.occurredAt),
          arrivedAt: Date.now(),
          answeredAt: null,
          senderPid: socketOwner(req.socket.remotePort!, receiver.port, instances.map((i) => i.proc.pid)),
        };
        receipts.push(r);
        onArrival(r);
        setTimeout(() => {
          if (res.destroyed) return;
          res.end('ok', () => (r.answeredAt = Date.now()));
        }, RECEIVER_DELAY_MS);
      });
    });
    const env = { WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', LOG_LEVEL: 'warn' };
    const start = async (slot: number) => {
      instances[slot] = await startInstance(ctx.db, env);
    };
    await start(0);
    await start(1);
    const game: Game = await createGame(instances[0].base, 'crash', ctx.secrets);
    const auth = { authorization: `Bearer ${game.key}` };
    const hook = await expectStatus(
      http(`${instances[0].base}/v1/webhooks`, { method: 'POST', headers: auth, body: { url: receiver.url, events: ['member.joined'] } }),
      201,
    );
    ctx.secrets.add(hook.body.secret);
    const groups: string[] = [];
    for (let i = 0; i < 10; i++) {
      groups.push((await expectStatus(http(`${instances[0].base}/v1/groups`, { method: 'POST', headers: auth, body: { kind: 'guild', name: `g${i}`, visibility: 'public' } }), 201)).body.id);
    }

    // ---- load: 8 clients joining new users through both instances ----
    const acked = new Map<string, { memberId: string }>();
    let unacked = 0;
    let stop = false;
    let n = 0;
    const client = async (c: number) => {
      while (!stop) {
        const i = n++;
        const target = instances[(c + i) % 2];
        const userId = `u${i}`;
        try {
          const r = await http(`${target.base}/v1/groups/${groups[i % groups.length]}/join`, { method: 'POST', headers: auth, body: { userId }, timeoutMs: 5_000 });
          if (r.status === 201) acked.set(r.body.id, { memberId: r.body.id });
          else unacked++;
        } catch {
          // The instance is down (being restarted): this join may or may not have committed.
          unacked++;
          await sleep(250);
        }
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, (_, c) => client(c)));

    // ---- three SIGKILLs of instance 1, each while its worker may have attempts in flight ----
    let inFlightAtKills = 0;
    for (let k = 0; k < 3; k++) {
      await sleep(2_500);
      const victim = instances[1];
      inFlightAtKills += receipts.filter((r) => r.senderPid === victim.proc.pid && r.answeredAt === null).length;
      await victim.proc.kill();
      await sleep(500);
      await start(1);
    }
    // ---- instance 0 killed by the receiver the moment its worker sends it an attempt ----
    const survivor = instances[0];
    const killedMidDelivery = new Promise<Receipt>((resolve) => {
      onArrival = (r) => {
        if (r.senderPid !== survivor.proc.pid) return;
        onArrival = () => undefined;
        void survivor.proc.kill().then(() => resolve(r));
      };
    });
    const midDelivery = await killedMidDelivery;
    await sleep(500);
    await start(0);
    await sleep(2_000);
    stop = true;
    await load;
    const loadStoppedAt = Date.now();

    // ---- every acknowledged join delivered (waiting for the leases of the killed workers) ----
    // The backlog the load left drains at the receiver's pace once the killed workers' leases lapse:
    // nothing for up to a lease, then about 130 a second. How large it is depends on how long the
    // survivor took to send its first attempt (the load runs until then): in twelve runs here,
    // 960 to 4,900 joins acknowledged, drained in 22-73 s; the fixed 60 s bound this replaces failed
    // four of them. So the wait ends when every join is answered, or when nothing more has been
    // answered for RECOVERY_BOUND_MS (a lease and a claim: a loss, or a worker stuck), within a cap.
    const deadline = Date.now() + RECOVERY_BOUND_MS + 20_000;
    const drainCap = Date.now() + DRAIN_CAP_MS;
    const answered = () => new Set(receipts.filter((r) => r.answeredAt !== null).map((r) => r.memberId));
    let lastAnswered = answered().size;
    let progressAt = Date.now();
    for (;;) {
      const done = answered();
      if ([...acked.keys()].every((id) => done.has(id))) break;
      if (done.size > lastAnswered) [lastAnswered, progressAt] = [done.size, Date.now()];
      if (Date.now() - progressAt >= RECOVERY_BOUND_MS || Date.now() >= drainCap) break;
      await sleep(500);
    }
    const drainedInMs = Date.now() - loadStoppedAt;
    // The attempt cut off by the kill comes again once its lease lapses, which may be after every
    // acknowledged join was answered (its own join may not have been acknowledged): waited for apart.
    const retried = () => receipts.find((r) => r.eventId === midDelivery.eventId && r.answeredAt !== null && r.arrivedAt > midDelivery.arrivedAt);
    while (Date.now() < deadline && !retried()) await sleep(500);
    const delivered = answered();
    const missing = [...acked.keys()].filter((id) => !delivered.has(id));
    expect(missing).toEqual([]);

    // The attempt cut off by the kill was delivered again, within the bound.
    const retry = retried();
    expect(retry).toBeDefined();
    const recoveryMs = retry!.arrivedAt - midDelivery.arrivedAt;
    expect(recoveryMs).toBeLessThan(RECOVERY_BOUND_MS);

    // One event id per member, however many times it was delivered.
    const idsByMember = new Map<string, Set<string>>();
    for (const r of receipts) idsByMember.set(r.memberId, (idsByMember.get(r.memberId) ?? new Set()).add(r.eventId));
    expect([...idsByMember.values()].filter((ids) => ids.size !== 1)).toEqual([]);
    // And one delivery id per event: a repeat after a kill is the same delivery, whichever instance sent it.
    const deliveryIds = new Map<string, Set<string>>();
    for (const r of receipts) deliveryIds.set(r.eventId, (deliveryIds.get(r.eventId) ?? new Set()).add(r.deliveryId));
    expect([...deliveryIds.entries()].filter(([, ids]) => ids.size !== 1)).toEqual([]);

    // ---- the feed: every acknowledged join exactly once; nothing that was rolled back ----
    const feed: { id: string; member: { id: string } }[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await expectStatus(http(`${instances[0].base}/v1/events/feed?types=member.joined&limit=1000${after ? `&after=${after}` : ''}`, { headers: auth }), 200);
      feed.push(...page.body.items);
      if (page.body.items.length === 0) break;
      after = page.body.nextAfter;
    }
    const feedMembers = feed.map((e) => e.member.id);
    expect(new Set(feedMembers).size).toBe(feedMembers.length);
    expect([...acked.keys()].filter((id) => !feedMembers.includes(id))).toEqual([]);
    const committed = new Set((await ctx.db.query<{ id: string }>(`SELECT id FROM members WHERE id = ANY ($1)`, [feedMembers])).map((r) => r.id));
    expect(feedMembers.filter((id) => !committed.has(id))).toEqual([]);
    // Every delivered event is one the feed has (a delivery never invents an event).
    const feedIds = new Set(feed.map((e) => e.id));
    expect(receipts.filter((r) => !feedIds.has(r.eventId))).toEqual([]);

    const duplicates = receipts.length - new Set(receipts.map((r) => r.eventId)).size;
    process.stdout.write(
      `crash: ${acked.size} acknowledged joins, ${unacked} unacknowledged, 4 SIGKILLs; ${receipts.length} deliveries, ${duplicates} repeated (same event and delivery id), ` +
        `0 lost; ${inFlightAtKills} attempts in flight at the kills of instance 1; the attempt cut off mid-delivery came again after ${(recoveryMs / 1000).toFixed(1)} s; ` +
        `every acknowledged join answered ${(drainedInMs / 1000).toFixed(1)} s after the load stopped\n`,
    );
    expect(acked.size).toBeGreaterThan(100);
    expect(ctx.secrets.leaks(instances.map((i) => i.logs()).join('\n'))).toEqual([]);
  }, 240_000);
});
