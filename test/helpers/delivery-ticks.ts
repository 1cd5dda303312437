import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HORIZON } from '../../src/events/feed.repository';
import { DeliveryWorker } from '../../src/webhooks/delivery-worker';

/** Committed events that readers cannot see yet: a transaction older than theirs is still open. */
const HELD_SQL = `SELECT EXISTS (
  SELECT 1 FROM journal o CROSS JOIN feed_state s WHERE o.type IS NOT NULL AND (o.era, o.xid) >= (s.era, ${HORIZON})
) AS held`;

/**
 * Runs the webhook worker's tick once every event committed so far lies below the feed's horizon.
 * A background transaction of the app (a member count fold, a sweep) that took its id just before a
 * test's write holds that write's event above the horizon until it ends; a tick then sends nothing
 * and the worker looks again on its own timer, after the tick has returned. A test that expects a
 * tick to send what it has just written waits for that transaction first. Fails after `timeoutMs`.
 */
export async function tickPastHorizon(app: INestApplication, timeoutMs = 10_000): Promise<void> {
  const ds = app.get(DataSource);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [{ held }] = await ds.query<{ held: boolean }[]>(HELD_SQL);
    if (!held) break;
    if (Date.now() > deadline) throw new Error(`committed events stayed above the feed's horizon for ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  await app.get(DeliveryWorker).tick();
}
