import { DataSource } from 'typeorm';
import { DeliveryWindow, WORKER_BATCH } from '../../src/webhooks/delivery-window';
import { DeliveryWorker } from '../../src/webhooks/delivery-worker';
import { HELP_AFTER_MS, PastLeaseRepository } from '../../src/webhooks/past-lease.repository';
import { PositionsRepository } from '../../src/webhooks/positions.repository';
import { insertEventsSql } from '../helpers/journal';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { recordingReceiver, type RecordingReceiver } from '../helpers/webhook-receiver';
import { tickPastHorizon, waitPastHorizon } from '../helpers/delivery-ticks';

/**
 * Claims past another worker's lease (PastLeaseRepository): while one worker's batch leases an
 * endpoint's position and its first event has waited over a second, the other workers send the
 * events after the batch, as leased rows, never one of the batch's; a worker leaves the positions
 * it leases to itself.
 */

jest.setTimeout(60_000);

const ENV = { WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_WORKER_ENABLED: 'false' };
let t: TestApp;
const receivers: RecordingReceiver[] = [];

beforeAll(async () => {
  t = await startTestApp(ENV);
});
afterEach(async () => {
  await t.db.query('DELETE FROM webhook_endpoints');
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(() => t?.close());

const ds = () => t.app.get(DataSource);
const room = () => new DeliveryWindow().room();
const positionClaim = (holding: string[] = []) => t.app.get(PositionsRepository).claim(ds(), room(), 7, holding);
const pastClaim = (holding: string[] = []) => t.app.get(PastLeaseRepository).claim(ds(), room(), holding, 7);

/** An endpoint receiving every event, its game and a recording receiver; the worker has taken up what came before. */
async function setUp() {
  const { auth, gameId } = await authedGame(t);
  const rx = await recordingReceiver();
  receivers.push(rx);
  const r = await t.http.post('/v1/webhooks').set(auth).send({ url: rx.url, events: [] });
  expect(r.status).toBe(201);
  await tickPastHorizon(t.app);
  rx.received.length = 0;
  return { gameId, rx, endpointId: (r.body as { id: string }).id };
}

/** `n` events of the game in one transaction, committed `agoMs` ago by their time; their ids in the feed's order. */
async function events(gameId: string, n: number, agoMs: number): Promise<string[]> {
  const rows = await t.db.query<{ id: string }>(
    insertEventsSql(
      `SELECT lpad(to_hex((extract(epoch FROM now()) * 1000)::bigint - ${agoMs}), 12, '0') || lpad(to_hex(i), 12, '0'), $1::text, NULL,
              'game.user.banned', '{}', now() - make_interval(secs => ${agoMs / 1000})
       FROM generate_series(1, ${n}) AS i ORDER BY i`,
      true,
    ),
    [gameId],
  );
  // Claimed next: below the horizon first, past any transaction of the app older than the insert.
  await waitPastHorizon(ds());
  return rows.map((r) => r.id);
}

const derivedIds = async (endpointId: string, eventIds: string[]) =>
  (await t.db.query<{ id: string }>('SELECT svc_delivery_id($1, e)::text AS id FROM unnest($2::text[]) WITH ORDINALITY AS u(e, i) ORDER BY i', [endpointId, eventIds])).map(
    (r) => r.id,
  );

describe('claims past another worker’s lease', () => {
  it('take the events after the leased batch, as rows at their first attempt under a lease, and none of the batch', async () => {
    const { gameId, endpointId } = await setUp();
    const ids = await events(gameId, WORKER_BATCH + 30, 5_000);

    // Another worker (its batch never recorded: it died, say) leases the position with the first 50.
    const batch = await positionClaim();
    expect(batch.deliveries.map((d) => d.id)).toEqual(await derivedIds(endpointId, ids.slice(0, WORKER_BATCH)));
    expect((await positionClaim()).leased).toBe(true);
    expect((await positionClaim([endpointId])).leased).toBe(false);

    const past = await pastClaim();
    expect(past.map((d) => d.id)).toEqual(await derivedIds(endpointId, ids.slice(WORKER_BATCH)));
    expect(past.every((d) => d.attempts === 1 && !d.fresh && d.event?.id === ids[WORKER_BATCH + past.indexOf(d)])).toBe(true);
    const rows = await t.db.query<{ status: string; attempts: number; leased: boolean; dated: boolean }>(
      `SELECT status, attempts, lease_until > now() AS leased, next_attempt_at = created_at AS dated
       FROM webhook_deliveries WHERE endpoint_id = $1 GROUP BY 1, 2, 3, 4`,
      [endpointId],
    );
    expect(rows).toEqual([{ status: 'pending', attempts: 1, leased: true, dated: true }]);
    expect(await t.db.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [endpointId])).toEqual([{ n: 30 }]);

    // Taken: neither a second helper nor the claim of rows takes them again while they are leased.
    expect(await pastClaim()).toEqual([]);
  });

  it('leave alone a position whose first event has waited less than a second, and one the worker leases itself', async () => {
    const { gameId, endpointId } = await setUp();
    const ids = await events(gameId, WORKER_BATCH + 10, 0);
    expect((await positionClaim()).deliveries).toHaveLength(WORKER_BATCH);
    expect(await pastClaim()).toEqual([]);

    await new Promise((r) => setTimeout(r, HELP_AFTER_MS + 100));
    expect(await pastClaim([endpointId])).toEqual([]);
    expect((await pastClaim()).map((d) => d.id)).toEqual(await derivedIds(endpointId, ids.slice(WORKER_BATCH)));
  });

  it('a worker whose peer died holding the lease sends everything after the batch at once, and the batch once the lease runs out: each event once', async () => {
    const { gameId, rx, endpointId } = await setUp();
    const ids = await events(gameId, 3 * WORKER_BATCH, 5_000);
    // The dead peer's batch.
    const batch = await positionClaim();
    expect(batch.deliveries).toHaveLength(WORKER_BATCH);

    const worker = t.app.get(DeliveryWorker);
    for (let i = 0; i < 5 && rx.received.length < 2 * WORKER_BATCH; i++) await worker.tick();
    const arrived = () => rx.received.map((r) => String(r.body.id)).sort();
    expect(arrived()).toEqual([...ids.slice(WORKER_BATCH)].sort());
    expect(await t.db.query(`SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 GROUP BY status`, [endpointId])).toEqual([
      { status: 'delivered', n: 2 * WORKER_BATCH },
    ]);

    // The lease runs out: the batch is sent, the position passes the rows, and nothing comes twice.
    await t.db.query(`UPDATE webhook_positions SET lease_until = now() - interval '1 second' WHERE endpoint_id = $1`, [endpointId]);
    for (let i = 0; i < 5 && rx.received.length < ids.length; i++) await worker.tick();
    expect(arrived()).toEqual([...ids].sort());
    const [head] = await t.db.query<{ done: boolean; lease: unknown }>(
      `SELECT NOT EXISTS (SELECT 1 FROM journal o WHERE o.game_id = w.game_id AND o.type IS NOT NULL AND (o.era, o.xid, o.seq) > (p.era, p.xid, p.seq)) AS done,
              p.lease_until AS lease
       FROM webhook_positions p JOIN webhook_endpoints w ON w.id = p.endpoint_id WHERE p.endpoint_id = $1`,
      [endpointId],
    );
    expect(head).toEqual({ done: true, lease: null });
    expect(new Set(rx.received.map((r) => r.headers['x-svc-delivery-id'])).size).toBe(ids.length);
  });
});
