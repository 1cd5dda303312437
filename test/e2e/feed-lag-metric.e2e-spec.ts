import { Client } from 'pg';
import { journalEvents } from '../helpers/journal';
import { parseExposition } from '../helpers/metrics';
import { freePort, http, sleep } from '../helpers/process';
import { postGroup } from '../helpers/groups';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * svc_feed_horizon_lag_seconds (docs/observability.md#events) is the age of the oldest committed
 * event readers cannot see yet. A transaction held open in the service's database hides an event
 * committed after it began: with nothing else written the gauge keeps growing with that event's
 * age, and reads 0 once the transaction ends. Comparing the newest event written with the newest
 * one visible read a constant here, however long the event stayed hidden.
 */
jest.setTimeout(60_000);

/** The scrape-time query is measured at most every 5 s (DbMetrics): two different values are two measurements. */
const MEASURED_EVERY_MS = 5_000;

describe('the feed lag gauge while a transaction holds the horizon', () => {
  let t: TestApp;
  let metrics: string;

  beforeAll(async () => {
    const port = await freePort();
    metrics = `http://127.0.0.1:${port}/metrics`;
    t = await startTestApp({ METRICS_PORT: String(port), WEBHOOK_WORKER_ENABLED: 'false' });
  });
  afterAll(() => t?.close());

  const lag = async (): Promise<{ value: number; at: number }> => {
    const e = parseExposition((await http(metrics)).text);
    const sample = e.samples.find((s) => s.name === 'svc_feed_horizon_lag_seconds');
    if (!sample) throw new Error('svc_feed_horizon_lag_seconds is missing');
    return { value: sample.value, at: Date.now() };
  };

  /** Scrapes until the gauge shows a new measurement (or `until` holds), at most `withinMs`. */
  const nextLag = async (previous: number, withinMs: number, until: (v: number) => boolean = (v) => v !== previous) => {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const l = await lag();
      if (until(l.value)) return l;
      if (Date.now() > deadline) throw new Error(`svc_feed_horizon_lag_seconds stayed ${l.value} for ${withinMs} ms`);
      await sleep(200);
    }
  };

  it('grows with the hidden event while nothing is written, then drops to 0 when the transaction ends', async () => {
    const g = await authedGame(t);
    await postGroup(t, g.auth, { kind: 'guild', name: 'seen', visibility: 'public' });
    expect((await nextLag(Number.NaN, MEASURED_EVERY_MS + 2_000, (v) => v === 0)).value).toBe(0);

    const holder = new Client({ connectionString: t.db.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_current_xact_id()');
      const hidden = await postGroup<{ id: string }>(t, g.auth, { kind: 'guild', name: 'hidden', visibility: 'public' });
      const [event] = await t.db.query<{ id: string }>(`SELECT id FROM ${journalEvents()} WHERE type = 'group.created' AND group_id = $1`, [hidden.id]);
      const feed = await t.http.get('/v1/events/feed').set(g.auth);
      expect(feed.body.items.map((i: { id: string }) => i.id)).not.toContain(event.id);
      const age = async () => Number((await t.db.query<{ s: number }>(`SELECT extract(epoch FROM now() - created_at)::float8 AS s FROM ${journalEvents()} WHERE id = $1`, [event.id]))[0].s);

      const first = await nextLag(0, MEASURED_EVERY_MS + 2_000, (v) => v > 0);
      const second = await nextLag(first.value, MEASURED_EVERY_MS + 2_000);
      const ageNow = await age();
      expect(await t.db.query(`SELECT 1 FROM ${journalEvents('a')} WHERE created_at > (SELECT created_at FROM ${journalEvents('b')} WHERE id = $1)`, [event.id])).toEqual([]);

      // A new measurement comes at least 5 s after the previous one: the gauge grew by as much.
      expect(second.value - first.value).toBeGreaterThanOrEqual(MEASURED_EVERY_MS / 1000 - 0.2);
      // It is the hidden event's age when measured, never more, at most one cache period less.
      expect(second.value).toBeLessThanOrEqual(ageNow + 0.05);
      expect(second.value).toBeGreaterThanOrEqual(ageNow - (Date.now() - second.at) / 1000 - MEASURED_EVERY_MS / 1000 - 0.5);
      process.stdout.write(`feed lag with one hidden event and nothing written: ${first.value.toFixed(2)} s, then ${second.value.toFixed(2)} s (the event's age ${ageNow.toFixed(2)} s)\n`);

      await holder.query('COMMIT');
      const released = await nextLag(second.value, MEASURED_EVERY_MS + 2_000, (v) => v === 0);
      expect(released.value).toBe(0);
      const after = await t.http.get('/v1/events/feed').set(g.auth);
      expect(after.body.items.map((i: { id: string }) => i.id)).toContain(event.id);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  });
});
