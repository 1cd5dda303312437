import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { EndpointEpochs1768100000000 } from '../../migrations/1768100000000-endpoint-epochs';
import { oldestReleaseFor } from '../../migrations/release';
import { AUTO_DISABLE_AFTER } from '../../src/webhooks/backoff';
import { DeliveryWindow } from '../../src/webhooks/delivery-window';
import { PositionsRepository } from '../../src/webhooks/positions.repository';
import type { AttemptRecord, ClaimedDelivery } from '../../src/webhooks/webhook-rows';
import { WebhooksRepository } from '../../src/webhooks/webhooks.repository';
import { waitPastHorizon } from '../helpers/delivery-ticks';
import { onFreshDatabase } from '../helpers/query-runner';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * EndpointEpochs1768100000000 (docs/design/write-path.md, step 6, release A): every change of what
 * a webhook endpoint receives, and its creation, records in the change's own transaction from which
 * feed position (era, xid) its rules apply.
 */

jest.setTimeout(60_000);

let t: TestApp;
let auth: Record<string, string>;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_WORKER_ENABLED: 'false' });
  ({ auth } = await authedGame(t));
});
afterAll(() => t?.close());

interface Epoch {
  era: number;
  xid: string;
  events: string[];
  disabled: boolean;
}

const epochs = (endpointId: string) =>
  t.db.query<Epoch>(`SELECT era, xid::xid::text AS xid, events, disabled FROM webhook_endpoint_epochs WHERE endpoint_id = $1 ORDER BY era, webhook_endpoint_epochs.xid`, [endpointId]);

/** The transaction that last wrote the endpoint's row (its 32 bits, as epochs() shows theirs), and the feed's era. */
async function lastWrite(endpointId: string): Promise<{ era: number; xid: string }> {
  const [row] = await t.db.query<{ era: number; xid: string }>(
    `SELECT s.era, w.xmin::text AS xid FROM webhook_endpoints w, feed_state s WHERE w.id = $1`,
    [endpointId],
  );
  return row;
}

async function create(body: Record<string, unknown>): Promise<string> {
  const r = await t.http.post('/v1/webhooks').set(auth).send({ url: 'http://127.0.0.1:9/hook', ...body });
  expect(r.status).toBe(201);
  return (r.body as { id: string }).id;
}

async function patch(id: string, body: Record<string, unknown>): Promise<void> {
  const r = await t.http.patch(`/v1/webhooks/${id}`).set(auth).send(body);
  expect(r.status).toBe(200);
}

describe('EndpointEpochs1768100000000', () => {
  it('is an expand of 1.7.0 that lets 1.6.0 run beside it', () => {
    const migration = new EndpointEpochs1768100000000();
    expect(migration.release).toEqual({ version: '1.7.0', kind: 'expand' });
    expect(oldestReleaseFor(migration.release)).toBe('1.6.0');
    expect(MIGRATIONS).toContain(EndpointEpochs1768100000000);
  });

  it('creating an endpoint records its rules at the creating transaction', async () => {
    const id = await create({ events: ['member.joined', 'member.left'] });
    expect(await epochs(id)).toEqual([{ ...(await lastWrite(id)), events: ['member.joined', 'member.left'], disabled: false }]);
  });

  it('each change of events or of disabled adds an epoch with the new rules; other changes add none', async () => {
    const id = await create({});
    const created = await lastWrite(id);
    await patch(id, { url: 'http://127.0.0.1:9/moved', format: 'discord' });
    expect(await epochs(id)).toHaveLength(1);
    await patch(id, { events: ['group.updated'] });
    const narrowed = await lastWrite(id);
    await patch(id, { disabled: true });
    const disabled = await lastWrite(id);
    await patch(id, { disabled: true });
    await patch(id, { disabled: false });
    const enabled = await lastWrite(id);
    expect(await epochs(id)).toEqual([
      { ...created, events: [], disabled: false },
      { ...narrowed, events: ['group.updated'], disabled: false },
      { ...disabled, events: ['group.updated'], disabled: true },
      { ...enabled, events: ['group.updated'], disabled: false },
    ]);
  });

  it("the worker's results add an epoch only when they disable the endpoint", async () => {
    const id = await create({});
    for (let i = 0; i < 3; i++) {
      const r = await t.http.post('/v1/bans').set(auth).send({ userId: `epoch-ban-${i}` });
      expect(r.status).toBe(201);
    }
    const repo = t.app.get(WebhooksRepository);
    const ds = t.app.get(DataSource);
    // First attempts, taken up from the endpoint's position once the bans are below the horizon: their results write their rows.
    await waitPastHorizon(ds);
    const [a, b, c] = (await t.app.get(PositionsRepository).claim(ds, new DeliveryWindow().room(), 7)).deliveries.filter((d) => d.endpointId === id);
    expect(c).toBeDefined();
    const fail = (d: ClaimedDelivery): AttemptRecord => ({
      id: d.id, attempts: 1, outcome: 'retry', status: 500, error: 'HTTP 500', retryInMs: 60_000, durationMs: 3,
      fresh: { ...d.fresh!, endpointId: d.endpointId },
    });
    await repo.recordResults(ds.manager, [fail(a)], AUTO_DISABLE_AFTER);
    expect(await epochs(id)).toHaveLength(1);
    await t.db.query('UPDATE webhook_endpoints SET consecutive_failures = $2 WHERE id = $1', [id, AUTO_DISABLE_AFTER - 1]);
    await repo.recordResults(ds.manager, [fail(b)], AUTO_DISABLE_AFTER);
    const disabled = await lastWrite(id);
    await repo.recordResults(ds.manager, [fail(c)], AUTO_DISABLE_AFTER);
    expect((await epochs(id)).slice(1)).toEqual([{ ...disabled, events: [], disabled: true }]);
  });

  it('several changes in one transaction leave one epoch, with its last rules', async () => {
    const id = await create({});
    const [{ xid }] = await t.db.query<{ xid: string }>(
      `UPDATE webhook_endpoints SET events = '{member.joined}' WHERE id = $1 RETURNING pg_current_xact_id()::xid::text AS xid`,
      [id],
    );
    const client = await t.app.get(DataSource).createQueryRunner();
    try {
      await client.startTransaction();
      await client.query(`UPDATE webhook_endpoints SET events = '{member.left}' WHERE id = $1`, [id]);
      await client.query(`UPDATE webhook_endpoints SET disabled_at = now() WHERE id = $1`, [id]);
      await client.query(`UPDATE webhook_endpoints SET events = '{member.kicked}' WHERE id = $1`, [id]);
      await client.commitTransaction();
    } finally {
      await client.release();
    }
    const all = await epochs(id);
    expect(all.map((e) => [e.events, e.disabled])).toEqual([
      [[], false],
      [['member.joined'], false],
      [['member.kicked'], true],
    ]);
    expect(all[1].xid).toBe(xid);
    expect(all[2]).toEqual({ ...(await lastWrite(id)), events: ['member.kicked'], disabled: true });
  });

  it("an endpoint's removal takes its epochs with it", async () => {
    const id = await create({});
    await patch(id, { events: ['member.joined'] });
    expect(await epochs(id)).toHaveLength(2);
    expect((await t.http.delete(`/v1/webhooks/${id}`).set(auth)).status).toBe(204);
    expect(await epochs(id)).toEqual([]);
  });

  it('run on a database with endpoints, gives each its rules at the migration; the down removes table, triggers and function', async () => {
    const migration = new EndpointEpochs1768100000000();
    await onFreshDatabase(async (q) => {
      await migration.down(q);
      const gameId = randomUUID();
      await q.query(`INSERT INTO games (id, name) VALUES ($1, 'epochs')`, [gameId]);
      const [on, off] = [randomUUID(), randomUUID()];
      await q.query(
        `INSERT INTO webhook_endpoints (id, game_id, url, events, secret, disabled_at)
         VALUES ($1, $3, 'http://127.0.0.1:9/a', '{member.joined}', 's', NULL), ($2, $3, 'http://127.0.0.1:9/b', '{}', 's', now())`,
        [on, off, gameId],
      );
      const gone = (await q.query(
        `SELECT to_regclass('webhook_endpoint_epochs') AS t, to_regproc('svc_endpoint_epoch') AS f,
                (SELECT count(*)::int FROM pg_trigger WHERE tgname LIKE 'svc_endpoint_%') AS n`,
      )) as { t: unknown; f: unknown; n: number }[];
      expect(gone).toEqual([{ t: null, f: null, n: 0 }]);

      await migration.up(q);
      await migration.up(q);
      const rows = (await q.query(
        `SELECT endpoint_id AS id, events, disabled, xid::text AS xid FROM webhook_endpoint_epochs ORDER BY disabled`,
      )) as { id: string; events: string[]; disabled: boolean; xid: string }[];
      expect(rows.map(({ id, events, disabled }) => ({ id, events, disabled }))).toEqual([
        { id: on, events: ['member.joined'], disabled: false },
        { id: off, events: [], disabled: true },
      ]);
      // Both at the first up's transaction: the second found them there.
      expect(rows[0].xid).toBe(rows[1].xid);
      await q.query(`UPDATE webhook_endpoints SET disabled_at = now() WHERE id = $1`, [on]);
      expect(await q.query(`SELECT count(*)::int AS n FROM webhook_endpoint_epochs WHERE endpoint_id = $1`, [on])).toEqual([{ n: 2 }]);
    });
  });
});
