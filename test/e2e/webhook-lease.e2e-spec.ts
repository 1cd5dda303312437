import { DataSource } from 'typeorm';
import { DeliveryLease1767000000000 } from '../../migrations/1767000000000-delivery-lease';
import { eventIdSql } from '../../src/db/journal-sql';
import { PER_ENDPOINT_IN_FLIGHT, WORKER_BATCH } from '../../src/webhooks/delivery-window';
import { CLAIM_LEASE_SECONDS, WEBHOOK_BACKLOG_SQL, WebhooksRepository } from '../../src/webhooks/webhooks.repository';
import { onFreshDatabase } from '../helpers/query-runner';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * A webhook claim's lease (docs/design/write-path.md, the HOT lease): a claim leases the delivery
 * in lease_until alone, an update PostgreSQL keeps on its page (HOT); a leased row is not sent
 * again, counts as waiting and shows its lease's end in the delivery log. Release 1.1.0, which may
 * run beside this one, also moves next_attempt_at to the lease's end; such a row is respected too.
 * Release 1.0.0 may not run after LeaseUntilAlone1767100000000.
 */
jest.setTimeout(60_000);

let t: TestApp;
let repo: WebhooksRepository;
const room = { endpointIds: [], inFlight: [], share: PER_ENDPOINT_IN_FLIGHT, fairFree: WORKER_BATCH, borrowFree: WORKER_BATCH };
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_WORKER_ENABLED: 'false' });
  repo = t.app.get(WebhooksRepository);
});
afterAll(() => t?.close());

interface LeaseRow {
  id: string;
  status: string;
  attempts: number;
  /** Seconds from now(). */
  next_in: number;
  next_at: Date;
  lease_in: number | null;
}

/**
 * An endpoint (never sent to: the worker is off) with one pending delivery row, as a commit of
 * release 1.8.0 (which may run beside this one) writes it: this release's commits write none, and
 * the rows a claim leases are those and retries.
 */
async function oneDelivery(): Promise<{ auth: Record<string, string>; endpointId: string; id: string }> {
  const { auth } = await authedGame(t);
  const hook = await t.http.post('/v1/webhooks').set(auth).send({ url: 'http://127.0.0.1:9/never-sent' });
  expect(hook.status).toBe(201);
  expect((await t.http.post('/v1/bans').set(auth).send({ userId: 'leased' })).status).toBe(201);
  const [{ id }] = await t.db.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (id, endpoint_id, event_id)
     SELECT svc_delivery_id(w.id, ${eventIdSql('o')}), w.id, ${eventIdSql('o')}
     FROM webhook_endpoints w JOIN journal o ON o.game_id = w.game_id AND o.type = 'game.user.banned'
     WHERE w.id = $1
     RETURNING id`,
    [hook.body.id],
  );
  return { auth, endpointId: hook.body.id, id };
}

async function row(id: string): Promise<LeaseRow> {
  const [r] = await t.db.query<LeaseRow>(
    `SELECT id, status, attempts, extract(epoch FROM next_attempt_at - now())::float8 AS next_in, next_attempt_at AS next_at,
            extract(epoch FROM lease_until - now())::float8 AS lease_in
     FROM webhook_deliveries WHERE id = $1`,
    [id],
  );
  return r;
}

const claimedOf = async (endpointId: string) => (await t.app.get(DataSource).transaction((m) => repo.claimDue(m, room))).filter((c) => c.endpointId === endpointId);

async function backlog(): Promise<{ due: number; waiting: number }> {
  const [{ due, waiting }] = await t.db.query<{ due: number; waiting: number }>(WEBHOOK_BACKLOG_SQL);
  return { due, waiting };
}

describe('the claim\'s lease', () => {
  it('a claim leases the row in lease_until alone, in an update that stays on its page (HOT), and a retry\'s result ends the lease', async () => {
    const d = await oneDelivery();
    const due = await row(d.id);
    expect(due.lease_in).toBeNull();
    // The claim's own counts, read in its transaction: PostgreSQL reports them to the shared
    // statistics only later.
    const { claimed, updated, hot } = await t.app.get(DataSource).transaction(async (m) => {
      const count = async () =>
        (
          await m.query(
            `SELECT pg_stat_get_xact_tuples_updated('webhook_deliveries'::regclass)::int AS updated,
                    pg_stat_get_xact_tuples_hot_updated('webhook_deliveries'::regclass)::int AS hot`,
          )
        )[0] as { updated: number; hot: number };
      const start = await count();
      const rows = (await repo.claimDue(m, room)).filter((c) => c.endpointId === d.endpointId);
      const end = await count();
      return { claimed: rows.length, updated: end.updated - start.updated, hot: end.hot - start.hot };
    });
    expect({ claimed, updated, hot }).toEqual({ claimed: 1, updated: 1, hot: 1 });
    const leased = await row(d.id);
    expect(leased.attempts).toBe(1);
    expect(leased.lease_in).toBeCloseTo(CLAIM_LEASE_SECONDS, 0);
    // Its due time is untouched: it keeps its entry in webhook_deliveries_due.
    expect(leased.next_at).toEqual(due.next_at);
    // Leased: another claim passes it over.
    expect(await claimedOf(d.endpointId)).toHaveLength(0);

    await repo.recordResults(t.app.get(DataSource).manager, [{ id: d.id, attempts: 1, outcome: 'retry', status: 503, error: 'HTTP 503', retryInMs: 60_000, durationMs: 5 }], 25);
    const retried = await row(d.id);
    expect(retried).toMatchObject({ status: 'pending', attempts: 1, lease_in: null });
    expect(retried.next_in).toBeCloseTo(60, 0);
  });

  it('a row leased in lease_until alone is not sent again until the lease ends; it waits, and the log shows when', async () => {
    const d = await oneDelivery();
    // As a claim leaves it, an hour long: the row keeps its due time, the lease is apart.
    await t.db.query(
      `UPDATE webhook_deliveries SET attempts = 1, last_attempt_at = now(), next_attempt_at = now() - interval '1 second',
         lease_until = now() + interval '1 hour' WHERE id = $1`,
      [d.id],
    );
    const before = await backlog();
    expect(await claimedOf(d.endpointId)).toHaveLength(0);
    expect((await row(d.id)).attempts).toBe(1);

    const [{ lease }] = await t.db.query<{ lease: Date }>(`SELECT lease_until AS lease FROM webhook_deliveries WHERE id = $1`, [d.id]);
    const log = await t.http.get(`/v1/webhooks/${d.endpointId}/deliveries`).set(d.auth);
    expect(log.status).toBe(200);
    expect(log.body.items).toEqual([expect.objectContaining({ id: d.id, status: 'pending', nextAttemptAt: lease.toISOString() })]);

    // Its lease ended (the claimant died): it is due again, and claimed.
    await t.db.query(`UPDATE webhook_deliveries SET lease_until = now() - interval '1 millisecond' WHERE id = $1`, [d.id]);
    const after = await backlog();
    expect([after.due - before.due, after.waiting - before.waiting]).toEqual([1, -1]);
    const claimed = await claimedOf(d.endpointId);
    expect(claimed.map((c) => [c.id, c.attempts])).toEqual([[d.id, 2]]);
  });
});

describe('beside release 1.1.0', () => {
  it('a row 1.1.0 leased (both columns moved to the lease\'s end) is not claimed before it ends', async () => {
    const d = await oneDelivery();
    await t.db.query(
      `UPDATE webhook_deliveries SET attempts = 1, last_attempt_at = now(), next_attempt_at = now() + interval '1 hour',
         lease_until = now() + interval '1 hour' WHERE id = $1`,
      [d.id],
    );
    expect(await claimedOf(d.endpointId)).toHaveLength(0);
    await t.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() - interval '1 millisecond', lease_until = now() - interval '1 millisecond' WHERE id = $1`, [d.id]);
    expect((await claimedOf(d.endpointId)).map((c) => [c.id, c.attempts])).toEqual([[d.id, 2]]);
  });
});

describe('the migration', () => {
  const shape = async (q: { query: (sql: string) => Promise<{ lease: boolean; options: string[] | null }[]> }) =>
    (
      await q.query(
        `SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = c.oid AND attname = 'lease_until' AND NOT attisdropped) AS lease,
                c.reloptions AS options
         FROM pg_class c WHERE c.oid = 'webhook_deliveries'::regclass`,
      )
    )[0];

  it('adds the lease column in no index and leaves room on each page; its down takes both away, and it can run again', async () => {
    const [indexed] = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
       WHERE i.indrelid = 'webhook_deliveries'::regclass AND a.attname = 'lease_until'`,
    );
    expect(indexed.n).toBe(0);
    await onFreshDatabase(async (q) => {
      expect(await shape(q)).toEqual({ lease: true, options: ['fillfactor=70'] });
      await new DeliveryLease1767000000000().down(q);
      expect(await shape(q)).toEqual({ lease: false, options: null });
      await new DeliveryLease1767000000000().up(q);
      await new DeliveryLease1767000000000().up(q);
      expect(await shape(q)).toEqual({ lease: true, options: ['fillfactor=70'] });
    });
  });
});
