import { randomUUID } from 'node:crypto';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { DeliveryPositions1768200000000 } from '../../migrations/1768200000000-delivery-positions';
import { DeliveriesByPosition1768300000000 } from '../../migrations/1768300000000-deliveries-by-position';
import { oldestReleaseFor } from '../../migrations/release';
import { eventIdSql } from '../../src/db/journal-sql';
import { AUTO_DISABLE_AFTER } from '../../src/webhooks/backoff';
import { DeliveryWindow } from '../../src/webhooks/delivery-window';
import { DeliveryWorker } from '../../src/webhooks/delivery-worker';
import { untakenSql } from '../../src/webhooks/position-sql';
import { POSITION_SCAN, PositionsRepository } from '../../src/webhooks/positions.repository';
import type { AttemptRecord, ClaimedDelivery } from '../../src/webhooks/webhook-rows';
import { WEBHOOK_BACKLOG_SQL, WebhooksRepository } from '../../src/webhooks/webhooks.repository';
import { joinOk, postGroup } from '../helpers/groups';
import { bannedEventRows, insertEventsSql } from '../helpers/journal';
import { onFreshDatabase, withQueryRunner } from '../helpers/query-runner';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { rowAsCommitted } from '../helpers/webhook-deliveries';
import { recordingReceiver, type LocalServer } from '../helpers/webhook-receiver';
import { tickPastHorizon, waitPastHorizon } from '../helpers/delivery-ticks';

/**
 * DeliveryPositions1768200000000, DeliveriesByPosition1768300000000 and the worker that follows the
 * journal by position (docs/design/write-path.md, step 6, releases B1 and B2): each endpoint's
 * events after its position are its deliveries not yet taken up; the worker sends them under their
 * derived ids, writes each row with its first result and moves the position. This release's
 * commits write no row; the rows release 1.8.0's commits write (it may run beside this one) are
 * sent as rows, and passed over by the positions.
 */

jest.setTimeout(60_000);

const ENV = { WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_WORKER_ENABLED: 'false' };
let t: TestApp;
const tick = (app: TestApp = t) => tickPastHorizon(app.app);

beforeAll(async () => {
  t = await startTestApp(ENV);
});
const servers: LocalServer[] = [];
afterEach(async () => {
  await t.db.query('DELETE FROM webhook_endpoints');
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => t?.close());

interface Arrival {
  deliveryId: string;
  eventId: string;
  type: string;
}

/** A recording receiver answering `status` (a function of the arrival's number), its arrivals as the tests compare them. */
async function receiver(status?: (n: number) => number) {
  const rx = await recordingReceiver(status);
  servers.push(rx);
  return {
    url: rx.url,
    received: rx.received,
    get arrivals(): Arrival[] {
      return rx.received.map((r) => ({ deliveryId: r.headers['x-svc-delivery-id'], eventId: String(r.body.id), type: String(r.body.type) }));
    },
  };
}

async function setUp(events: string[] = [], status?: (n: number) => number) {
  const { auth } = await authedGame(t);
  const rx = await receiver(status);
  const r = await t.http.post('/v1/webhooks').set(auth).send({ url: rx.url, events });
  expect(r.status).toBe(201);
  const group = await postGroup<{ id: string }>(t, auth, { kind: 'guild', name: 'Positions', visibility: 'public' });
  return { auth, rx, endpointId: (r.body as { id: string }).id, groupId: group.id };
}

let users = 0;
/** A join, as this release commits it: no delivery row. */
async function joined(auth: Record<string, string>, groupId: string): Promise<{ eventId: string; userId: string }> {
  const userId = `pos-${++users}`;
  await joinOk(t, auth, groupId, userId);
  const [e] = await t.db.query<{ id: string }>(`SELECT ${eventIdSql('journal')} AS id FROM journal WHERE type = 'member.joined' AND target_id = $1`, [userId]);
  return { eventId: e.id, userId };
}

async function left(auth: Record<string, string>, groupId: string, userId: string): Promise<string> {
  expect((await t.http.post(`/v1/groups/${groupId}/leave`).set(auth).send({ userId })).status).toBe(200);
  const [e] = await t.db.query<{ id: string }>(`SELECT ${eventIdSql('journal')} AS id FROM journal WHERE type = 'member.left' AND target_id = $1`, [userId]);
  return e.id;
}

const derivedId = async (endpointId: string, eventId: string) =>
  (await t.db.query<{ id: string }>('SELECT svc_delivery_id($1, $2)::text AS id', [endpointId, eventId]))[0].id;

/** Whether the endpoint's position is past every event of its game (to compare, positions as numbers). */
async function positionAtHead(endpointId: string): Promise<boolean> {
  const [r] = await t.db.query<{ done: boolean }>(
    `SELECT NOT EXISTS (SELECT 1 FROM journal o WHERE o.game_id = w.game_id AND o.type IS NOT NULL AND (o.era, o.xid, o.seq) > (p.era, p.xid, p.seq)) AS done
     FROM webhook_positions p JOIN webhook_endpoints w ON w.id = p.endpoint_id WHERE p.endpoint_id = $1`,
    [endpointId],
  );
  return r.done;
}

const logOf = async (auth: Record<string, string>, endpointId: string, query: Record<string, string> = {}) => {
  const r = await t.http.get(`/v1/webhooks/${endpointId}/deliveries`).query(query).set(auth);
  expect(r.status).toBe(200);
  return r.body.items as { id: string; eventId: string; status: string; attempts: number; createdAt: string; deliveredAt: string | null }[];
};

describe('DeliveryPositions1768200000000', () => {
  it('is an expand of 1.8.0 that lets 1.7.0, not 1.6.0, run beside it', () => {
    const migration = new DeliveryPositions1768200000000();
    expect(migration.release).toEqual({ version: '1.8.0', kind: 'expand' });
    expect(oldestReleaseFor(migration.release)).toBe('1.7.0');
    expect(MIGRATIONS).toContain(DeliveryPositions1768200000000);
  });

  it('gives an endpoint its position in the transaction that creates it, at the place of its first rules', async () => {
    const { endpointId } = await setUp();
    const [row] = await t.db.query<{ same: boolean; seq: string; lease: unknown }>(
      `SELECT p.era = e.era AND p.xid = e.xid AS same, p.seq::text AS seq, p.lease_until AS lease
       FROM webhook_positions p JOIN webhook_endpoint_epochs e USING (endpoint_id) WHERE p.endpoint_id = $1`,
      [endpointId],
    );
    expect(row).toEqual({ same: true, seq: '0', lease: null });
  });

  it('run on a database with endpoints, gives each its position at the migration; up twice; the down removes table, trigger and function', async () => {
    const migration = new DeliveryPositions1768200000000();
    await onFreshDatabase(async (q) => {
      await migration.down(q);
      const gameId = randomUUID();
      await q.query(`INSERT INTO games (id, name) VALUES ($1, 'positions')`, [gameId]);
      const [a, b] = [randomUUID(), randomUUID()];
      await q.query(
        `INSERT INTO webhook_endpoints (id, game_id, url, events, secret) VALUES ($1, $3, 'http://127.0.0.1:9/a', '{}', 's'), ($2, $3, 'http://127.0.0.1:9/b', '{}', 's')`,
        [a, b, gameId],
      );
      const gone = (await q.query(
        `SELECT to_regclass('webhook_positions') AS t, to_regproc('svc_endpoint_position') AS f,
                (SELECT count(*)::int FROM pg_trigger WHERE tgname = 'svc_position_created') AS n`,
      )) as { t: unknown; f: unknown; n: number }[];
      expect(gone).toEqual([{ t: null, f: null, n: 0 }]);

      await migration.up(q);
      await migration.up(q);
      const rows = (await q.query(`SELECT endpoint_id AS id, xid::text AS xid, seq::int AS seq FROM webhook_positions ORDER BY xid`)) as { id: string; xid: string; seq: number }[];
      expect(rows.map((r) => r.id).sort()).toEqual([a, b].sort());
      expect(rows[0].xid).toBe(rows[1].xid);
      expect(rows.map((r) => r.seq)).toEqual([0, 0]);
      const c = randomUUID();
      await q.query(`INSERT INTO webhook_endpoints (id, game_id, url, events, secret) VALUES ($1, $2, 'http://127.0.0.1:9/c', '{}', 's')`, [c, gameId]);
      expect(await q.query(`SELECT count(*)::int AS n FROM webhook_positions WHERE endpoint_id = $1`, [c])).toEqual([{ n: 1 }]);
      await q.query(`DELETE FROM webhook_endpoints WHERE id = $1`, [c]);
      expect(await q.query(`SELECT count(*)::int AS n FROM webhook_positions`)).toEqual([{ n: 2 }]);
    });
  });
});

describe('DeliveriesByPosition1768300000000', () => {
  it('is an expand of 1.9.0 that lets 1.8.0 run beside it', () => {
    const migration = new DeliveriesByPosition1768300000000();
    expect(migration.release).toEqual({ version: '1.9.0', kind: 'expand' });
    expect(oldestReleaseFor(migration.release)).toBe('1.8.0');
    expect(MIGRATIONS).toContain(DeliveriesByPosition1768300000000);
    expect(MIGRATIONS.indexOf(DeliveriesByPosition1768300000000)).toBe(MIGRATIONS.indexOf(DeliveryPositions1768200000000) + 1);
  });

  it('its down writes the rows of the deliveries the log lists as untaken, as 1.8.0 commits them, and none for an event with a row', async () => {
    // `filtered` takes joins only and has a disabled spell (C); `paused` takes every event and is
    // disabled before the last (E).
    const { auth, rx, endpointId: filtered, groupId } = await setUp(['member.joined']);
    const hook = await t.http.post('/v1/webhooks').set(auth).send({ url: rx.url, events: [] });
    expect(hook.status).toBe(201);
    const paused = (hook.body as { id: string }).id;
    const disable = async (id: string, disabled: boolean) => expect((await t.http.patch(`/v1/webhooks/${id}`).set(auth).send({ disabled })).status).toBe(200);

    const a = await joined(auth, groupId);
    const leave = await left(auth, groupId, a.userId);
    const b = await joined(auth, groupId);
    // B's delivery to `filtered` was taken up and delivered: it has its row.
    await t.db.query(
      `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, status, attempts, last_attempt_at, last_status, completed_at)
       VALUES (svc_delivery_id($1, $2), $1, $2, 'delivered', 1, now(), 204, now())`,
      [filtered, b.eventId],
    );
    await disable(filtered, true);
    const c = await joined(auth, groupId);
    await disable(filtered, false);
    await disable(paused, true);
    const e = await joined(auth, groupId);

    const untaken = { [filtered]: [a.eventId, e.eventId], [paused]: [a.eventId, leave, b.eventId, c.eventId] };
    const logs = async () => ({ [filtered]: await logOf(auth, filtered), [paused]: await logOf(auth, paused) });
    const before = await logs();
    for (const [id, events] of Object.entries(untaken)) {
      expect(before[id].filter((d) => d.attempts === 0).map((d) => d.eventId).sort()).toEqual([...events].sort());
    }
    const bRowOf = () => t.db.query('SELECT * FROM webhook_deliveries WHERE id = svc_delivery_id($1, $2)', [filtered, b.eventId]);
    const bRow = await bRowOf();

    await withQueryRunner(t.app.get(DataSource), (q) => new DeliveriesByPosition1768300000000().down(q));

    // Nothing is left untaken, and the log lists the same deliveries, field for field.
    expect(await t.db.query(`SELECT count(*)::int AS n FROM (${untakenSql('p.endpoint_id = ANY ($1::uuid[])')}) u`, [[filtered, paused]])).toEqual([{ n: 0 }]);
    expect(await logs()).toEqual(before);
    const rows = await t.db.query<{ id: string; endpoint_id: string; event_id: string; status: string; attempts: number; next: boolean; created: boolean; untouched: boolean }>(
      `SELECT d.id::text, d.endpoint_id, d.event_id, d.status, d.attempts, d.next_attempt_at = o.created_at AS next, d.created_at = o.created_at AS created,
              d.last_attempt_at IS NULL AND d.last_status IS NULL AND d.last_error IS NULL AND d.completed_at IS NULL AND d.lease_until IS NULL AS untouched
       FROM webhook_deliveries d JOIN journal o ON o.id = (d.event_id || '00000000')::uuid
       WHERE d.endpoint_id = ANY ($1::uuid[]) AND d.id <> svc_delivery_id($2, $3)`,
      [[filtered, paused], filtered, b.eventId],
    );
    const expected: (typeof rows)[number][] = [];
    for (const [id, events] of Object.entries(untaken)) {
      for (const eventId of events) {
        expected.push({ id: await derivedId(id, eventId), endpoint_id: id, event_id: eventId, status: 'pending', attempts: 0, next: true, created: true, untouched: true });
      }
    }
    const byId = (x: { id: string }, y: { id: string }) => x.id.localeCompare(y.id);
    expect(rows.sort(byId)).toEqual(expected.sort(byId));
    expect(await bRowOf()).toEqual(bRow);

    // This release sends those rows once each, as it sends 1.8.0's.
    await tick();
    await tick();
    expect(rx.arrivals.map((d) => d.deliveryId).sort()).toEqual(expected.filter((d) => d.endpoint_id === filtered).map((d) => d.id).sort());
  });
});

describe('the worker by position', () => {
  it('passes over the events whose rows a 1.8.0 commit wrote: each sent once, as its row, and the position moves past them', async () => {
    const { auth, rx, endpointId, groupId } = await setUp();
    for (let i = 0; i < 3; i++) await rowAsCommitted(t.db, endpointId, (await joined(auth, groupId)).eventId);
    await tick();
    await tick();
    const rows = await t.db.query<{ id: string }>('SELECT id::text FROM webhook_deliveries WHERE endpoint_id = $1', [endpointId]);
    expect(rx.arrivals.map((a) => a.deliveryId).sort()).toEqual(rows.map((r) => r.id).sort());
    expect(rx.arrivals).toHaveLength(4); // the group's creation and three joins
    expect(await positionAtHead(endpointId)).toBe(true);
  });

  it('sends an event without a row under its derived id, listed pending until then, and writes its row with the result', async () => {
    const { auth, rx, endpointId, groupId } = await setUp();
    await tick(); // the group's creation
    rx.received.length = 0;
    const { eventId } = await joined(auth, groupId);
    const id = await derivedId(endpointId, eventId);
    const [event] = await t.db.query<{ at: Date }>(`SELECT created_at AS at FROM journal WHERE id = ($1 || '00000000')::uuid`, [eventId]);

    const pending = await logOf(auth, endpointId, { status: 'pending' });
    expect(pending).toEqual([expect.objectContaining({ id, eventId, status: 'pending', attempts: 0, createdAt: event.at.toISOString(), deliveredAt: null })]);
    expect((await logOf(auth, endpointId))[0]).toEqual(pending[0]);
    const one = await t.http.get(`/v1/webhooks/${endpointId}/deliveries/${id}`).set(auth);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(expect.objectContaining({ id, status: 'pending', attempts: 0, attemptLog: [] }));
    const [backlog] = await t.db.query<{ due: number }>(WEBHOOK_BACKLOG_SQL);
    expect(backlog.due).toBe(1);

    await tick();
    expect(rx.arrivals).toEqual([{ deliveryId: id, eventId, type: 'member.joined' }]);
    const [row] = await t.db.query<{ status: string; attempts: number; created_at: Date; n: number }>(
      `SELECT status, attempts, created_at, (SELECT count(*)::int FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id AND a.number = 1) AS n
       FROM webhook_deliveries d WHERE id = $1`,
      [id],
    );
    expect(row).toEqual({ status: 'delivered', attempts: 1, created_at: event.at, n: 1 });
    const [after] = await logOf(auth, endpointId);
    expect(after).toEqual(expect.objectContaining({ id, status: 'delivered', attempts: 1, createdAt: event.at.toISOString() }));
    expect(await positionAtHead(endpointId)).toBe(true);
    expect((await t.db.query<{ due: number }>(WEBHOOK_BACKLOG_SQL))[0].due).toBe(0);
    await tick();
    expect(rx.arrivals).toHaveLength(1);
  });

  it('a first attempt that fails leaves a row pending for its retry, which the rows claim then sends', async () => {
    let status = 503;
    const { auth, rx, endpointId, groupId } = await setUp([], () => status);
    const { eventId } = await joined(auth, groupId);
    const id = await derivedId(endpointId, eventId);
    await tick();
    const [row] = await t.db.query<{ status: string; attempts: number; last_status: number; later: boolean }>(
      `SELECT status, attempts, last_status, next_attempt_at > now() AS later FROM webhook_deliveries WHERE id = $1`,
      [id],
    );
    expect(row).toEqual({ status: 'pending', attempts: 1, last_status: 503, later: true });
    expect(await positionAtHead(endpointId)).toBe(true);
    status = 200;
    await t.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1 AND status = 'pending'`, [endpointId]);
    await tick();
    const [done] = await t.db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM webhook_deliveries WHERE id = $1', [id]);
    expect(done).toEqual({ status: 'delivered', attempts: 2 });
    expect(rx.arrivals.filter((a) => a.deliveryId === id)).toHaveLength(2);
  });

  it('follows the rules in force at each event: a filtered type and the events of a disabled spell are passed over; those queued before it wait', async () => {
    const { auth, rx, endpointId, groupId } = await setUp(['member.joined']);
    const queued = await joined(auth, groupId);
    const filtered = await left(auth, groupId, queued.userId);
    expect((await t.http.patch(`/v1/webhooks/${endpointId}`).set(auth).send({ disabled: true })).status).toBe(200);
    const whileDisabled = await joined(auth, groupId);

    const pending = await logOf(auth, endpointId, { status: 'pending' });
    expect(pending.map((d) => d.eventId)).toEqual([queued.eventId]);
    const [backlog] = await t.db.query<{ due: number; muted: number }>(WEBHOOK_BACKLOG_SQL);
    expect(backlog).toEqual(expect.objectContaining({ due: 0, muted: 1 }));
    await tick();
    expect(rx.arrivals).toEqual([]);

    expect((await t.http.patch(`/v1/webhooks/${endpointId}`).set(auth).send({ disabled: false })).status).toBe(200);
    const after = await joined(auth, groupId);
    await tick();
    expect(rx.arrivals.map((a) => a.eventId).sort()).toEqual([queued.eventId, after.eventId].sort());
    expect(rx.arrivals.map((a) => a.eventId)).not.toContain(filtered);
    expect(rx.arrivals.map((a) => a.eventId)).not.toContain(whileDisabled.eventId);
    expect(await positionAtHead(endpointId)).toBe(true);
  });

  it('a batch whose results were never recorded is taken up again once its lease runs out, under the same ids; recorded, the position moves', async () => {
    const { auth, endpointId, groupId } = await setUp();
    // The group's creation is sent first, so that the claims below see the join alone. Once, in a
    // rehearsal of CI on a loaded machine, one tick left it for the next: ticked until it has gone.
    for (let i = 0; i < 5 && !(await positionAtHead(endpointId)); i++) await tick();
    expect(await positionAtHead(endpointId)).toBe(true);
    const first = await joined(auth, groupId);
    const positions = t.app.get(PositionsRepository);
    const ds = t.app.get(DataSource);
    const claim = async () => (await positions.claim(ds, new DeliveryWindow().room(), 7)).deliveries;

    await waitPastHorizon(ds);
    const taken = await claim();
    expect(taken.map((d) => d.id)).toEqual([await derivedId(endpointId, first.eventId)]);
    expect(await claim()).toEqual([]); // leased
    await t.db.query(`UPDATE webhook_positions SET lease_until = now() - interval '1 second' WHERE endpoint_id = $1`, [endpointId]);
    const again = await claim();
    expect(again.map((d) => d.id)).toEqual(taken.map((d) => d.id));

    // The first batch's result comes in late: its lease is no longer the position's, which stays.
    const record = (d: ClaimedDelivery): AttemptRecord => ({
      id: d.id, attempts: 1, outcome: 'delivered', status: 204, error: null, retryInMs: null, durationMs: 3,
      fresh: { ...d.fresh!, endpointId: d.endpointId },
    });
    const repo = t.app.get(WebhooksRepository);
    await repo.recordResults(ds.manager, [record(taken[0])], AUTO_DISABLE_AFTER, [taken[0].fresh!.batch]);
    expect(await positionAtHead(endpointId)).toBe(false);
    await repo.recordResults(ds.manager, [record(again[0])], AUTO_DISABLE_AFTER, [again[0].fresh!.batch]);
    expect(await positionAtHead(endpointId)).toBe(true);
    expect(await t.db.query('SELECT status, attempts FROM webhook_deliveries WHERE id = $1', [taken[0].id])).toEqual([{ status: 'delivered', attempts: 1 }]);
    expect(await t.db.query('SELECT count(*)::int AS n FROM webhook_delivery_attempts WHERE delivery_id = $1', [taken[0].id])).toEqual([{ n: 1 }]);
    expect(await claim()).toEqual([]);
  });

  it('passes over more events with rows than one claim reads within one tick', async () => {
    const { rx, endpointId } = await setUp();
    await tick();
    rx.received.length = 0;
    const [{ gameId }] = await t.db.query<{ gameId: string }>('SELECT game_id AS "gameId" FROM webhook_endpoints WHERE id = $1', [endpointId]);
    const n = 2 * POSITION_SCAN + 50;
    await t.db.query(
      `WITH e AS (${insertEventsSql(bannedEventRows(n))})
       INSERT INTO webhook_deliveries (id, endpoint_id, event_id, status, attempts) SELECT svc_delivery_id($2, e.id), $2, e.id, 'delivered', 1 FROM e`,
      [gameId, endpointId],
    );
    expect(await positionAtHead(endpointId)).toBe(false);
    await waitPastHorizon(t.app.get(DataSource));
    // One claim reads as many as it may, sends none of them and says there may be more.
    const one = await t.app.get(PositionsRepository).claim(t.app.get(DataSource), new DeliveryWindow().room(), 7);
    expect(one).toEqual({ deliveries: [], more: true, held: false, leased: false });
    expect(await positionAtHead(endpointId)).toBe(false);
    await tick();
    expect(await positionAtHead(endpointId)).toBe(true);
    expect(rx.arrivals).toEqual([]);
  });

  /** A connection holding a transaction with an id open: the events committed after it wait above the horizon. */
  async function olderTransaction() {
    const { Client } = await import('pg');
    const blocker = new Client({ connectionString: t.db.url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('SELECT pg_current_xact_id()');
    // It ends with no write, so no commit announces the events it held.
    return { end: async () => (await blocker.query('ROLLBACK'), await blocker.end()) };
  }
  const arrivalsWithin = async (rx: { arrivals: Arrival[] }, ms: number) => {
    for (const deadline = Date.now() + ms; !rx.arrivals.length && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
    return rx.arrivals;
  };

  it('a claim says when an event waits above the horizon, and a running worker looks again on its own until the transaction before it ends', async () => {
    const { auth, rx, endpointId, groupId } = await setUp();
    await tick();
    rx.received.length = 0;
    // A worker that runs, without its interval: only a commit's wake or its own look again ticks it.
    const running = await startTestApp({ ...ENV, WEBHOOK_WORKER_ENABLED: 'true' }, t.db);
    running.app.get(SchedulerRegistry).deleteInterval('webhook-delivery');
    const older = await olderTransaction();
    let eventId: string;
    try {
      // The join's commit wakes the running worker, whose claim finds the event held.
      ({ eventId } = await joined(auth, groupId));
      const claimed = await t.app.get(PositionsRepository).claim(t.app.get(DataSource), new DeliveryWindow().room(), 7);
      expect(claimed).toEqual({ deliveries: [], more: false, held: true, leased: false });
      // Queued all the same: the log lists it.
      expect((await logOf(auth, endpointId, { status: 'pending' })).map((d) => [d.eventId, d.attempts])).toEqual([[eventId, 0]]);
      await t.app.get(DeliveryWorker).tick();
      expect(rx.arrivals).toEqual([]);
    } finally {
      await older.end();
    }
    try {
      // No commit announces it now: only the look again that the held claim asked for takes it up.
      expect(await arrivalsWithin(rx, 5_000)).toEqual([{ deliveryId: await derivedId(endpointId, eventId), eventId, type: 'member.joined' }]);
      // Sent, its result moves the position: nothing is held any more.
      for (const deadline = Date.now() + 5_000; !(await positionAtHead(endpointId)) && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
      expect(await positionAtHead(endpointId)).toBe(true);
    } finally {
      await running.close();
    }
    expect(await t.app.get(PositionsRepository).claim(t.app.get(DataSource), new DeliveryWindow().room(), 7)).toEqual({ deliveries: [], more: false, held: false, leased: false });
    expect(rx.arrivals).toHaveLength(1);
  });

  it('a worker that is off ticks only when asked: a tick by hand that finds events held arms no look again', async () => {
    const { auth, rx, groupId } = await setUp();
    await tick();
    rx.received.length = 0;
    const older = await olderTransaction();
    try {
      await joined(auth, groupId);
      await t.app.get(DeliveryWorker).tick();
    } finally {
      await older.end();
    }
    // A running worker would have looked again at 25, 50, 100, 200 and 400 ms.
    expect(await arrivalsWithin(rx, 1_500)).toEqual([]);
    await tick();
    expect(rx.arrivals.map((a) => a.type)).toEqual(['member.joined']);
  });

  it('two workers ticking at once never send one event twice', async () => {
    const { auth, rx, endpointId, groupId } = await setUp();
    await tick();
    rx.received.length = 0;
    const events: string[] = [];
    for (let i = 0; i < 30; i++) events.push((await joined(auth, groupId)).eventId);
    const other = await startTestApp(ENV, t.db);
    try {
      for (let round = 0; round < 10 && rx.arrivals.length < events.length; round++) await Promise.all([tick(), tick(other)]);
    } finally {
      await other.close();
    }
    expect(rx.arrivals.map((a) => a.eventId).sort()).toEqual([...events].sort());
    expect(new Set(rx.arrivals.map((a) => a.deliveryId)).size).toBe(events.length);
    expect(await positionAtHead(endpointId)).toBe(true);
  });
});
