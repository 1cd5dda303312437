import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { horizonRows } from '../../src/db/sql';
import { HORIZON } from '../../src/events/feed.repository';
import { DeliveryWorker } from '../../src/webhooks/delivery-worker';

/** Committed events that readers cannot see yet: a transaction older than theirs is still open. */
const HELD_SQL = `SELECT EXISTS (
  SELECT 1 FROM journal o CROSS JOIN feed_state s WHERE o.type IS NOT NULL AND (o.era, o.xid) >= (s.era, ${HORIZON})
) AS held`;

/**
 * Waits until every event committed so far lies below the feed's horizon, where a claim sees it. A
 * background transaction of the app (a member count fold, a sweep) that took its id just before a
 * test's write holds that write's event above the horizon until it ends. Fails after `timeoutMs`.
 */
export async function waitPastHorizon(ds: DataSource, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [{ held }] = await horizonRows<{ held: boolean }>(ds, HELD_SQL, [], true);
    if (!held) return;
    if (Date.now() > deadline) throw new Error(`committed events stayed above the feed's horizon for ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Runs the webhook worker's tick once every event committed so far lies below the feed's horizon:
 * a tick before that sends nothing of an event held above it, and the worker looks again on its
 * own timer, after the tick has returned. A test that expects a tick to send what it has just
 * written ticks with this.
 */
export async function tickPastHorizon(app: INestApplication, timeoutMs = 10_000): Promise<void> {
  await waitPastHorizon(app.get(DataSource), timeoutMs);
  await app.get(DeliveryWorker).tick();
}
