import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventIdSql } from '../../src/db/journal-sql';
import { parseExposition, type Exposition } from '../helpers/metrics';
import { freePort, http, ROOT, sleep } from '../helpers/process';
import { postGroup } from '../helpers/groups';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { recordingReceiver, type RecordingReceiver } from '../helpers/webhook-receiver';

/**
 * The SQL docs/observability.md gives for the webhook gauges ("The webhook figures in SQL") answers
 * what the gauges report, on one state that holds every kind of pending delivery: due, waiting for
 * a retry, muted behind an endpoint disabled by its failures and behind one an operator disabled,
 * as rows (a failed first attempt's, or a 1.8.0 commit's) and not taken up yet from their
 * endpoints' positions.
 * The queries are read from the page, so the page cannot drift from the metrics. (Its earlier
 * query for the due deliveries counted the muted ones too: 15 due by it, 0 by the metric.)
 */
jest.setTimeout(60_000);

const PAGE = join(ROOT, 'docs/observability.md');
const HEADING = '#### The webhook figures in SQL';

interface DocumentedQuery {
  name: string;
  labels: Record<string, string>;
  sql: string;
}

/** Each query of the section's sql block, after the comment naming the series it gives. */
function documentedQueries(): DocumentedQuery[] {
  const page = readFileSync(PAGE, 'utf8');
  const at = page.indexOf(`\n${HEADING}\n`);
  if (at < 0) throw new Error(`${PAGE} has no "${HEADING}" section`);
  const block = /```sql\n([\s\S]*?)```/.exec(page.slice(at));
  if (!block) throw new Error(`"${HEADING}" has no sql block`);
  const queries: DocumentedQuery[] = [];
  for (const part of block[1].split(/^(?=-- )/m).filter((p) => p.trim())) {
    const [comment, ...lines] = part.split('\n');
    const m = /^-- (svc_[a-z_]+)(?:\{([^}]*)\})?(?::.*)?$/.exec(comment);
    if (!m) throw new Error(`a query of "${HEADING}" does not start with the series it gives: ${comment}`);
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    queries.push({ name: m[1], labels, sql: lines.join('\n').trim() });
  }
  return queries;
}

describe('the webhook gauges and their SQL in docs/observability.md', () => {
  let db: TestDatabase;
  let worker: TestApp;
  let scraped: TestApp;
  let metrics: string;
  const receivers: RecordingReceiver[] = [];

  beforeAll(async () => {
    const failing = await recordingReceiver(() => 503);
    const ok = await recordingReceiver();
    receivers.push(failing, ok);
    db = await createTestDatabase();
    worker = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' }, db);
    const g = await authedGame(worker);
    const hook = async (app: TestApp, url: string, events: string[]) => {
      const r = await app.http.post('/v1/webhooks').set(g.auth).send({ url, events });
      if (r.status !== 201) throw new Error(`create webhook: ${r.status} ${r.text}`);
      return r.body.id as string;
    };
    const ban = async (app: TestApp, userId: string) => {
      const r = await app.http.post('/v1/bans').set(g.auth).send({ userId });
      if (r.status !== 201) throw new Error(`ban: ${r.status} ${r.text}`);
    };

    // With a worker: one endpoint fails 27 first attempts and is disabled after 25 (its deliveries
    // wait, muted), another fails twice (both wait a minute for their retry).
    const broken = await hook(worker, failing.url, ['game.user.banned']);
    const retried = await hook(worker, failing.url, ['group.created']);
    for (let i = 0; i < 27; i++) await ban(worker, `broken-${i}`);
    for (let i = 0; i < 2; i++) await postGroup(worker, g.auth, { kind: 'guild', name: `retried ${i}`, visibility: 'public' });
    const settled = async () => {
      const [row] = await db.query<{ disabled: boolean; retried: number }>(
        `SELECT (SELECT disabled_at IS NOT NULL FROM webhook_endpoints WHERE id = $1) AS disabled,
                (SELECT count(*)::int FROM webhook_deliveries WHERE endpoint_id = $2 AND last_status IS NOT NULL) AS retried`,
        [broken, retried],
      );
      return row.disabled && row.retried === 2;
    };
    for (const deadline = Date.now() + 30_000; !(await settled()); await sleep(100)) {
      if (Date.now() > deadline) throw new Error(`the failing endpoints' attempts were not recorded within 30 s (${failing.received.length} made)`);
    }
    // Its shutdown records the attempts still in flight.
    await worker.close();

    // Without one: deliveries of an enabled endpoint stay due; an operator disables another.
    const port = await freePort();
    metrics = `http://127.0.0.1:${port}/metrics`;
    scraped = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_WORKER_ENABLED: 'false', METRICS_PORT: String(port) }, db);
    const due = await hook(scraped, ok.url, ['game.user.banned']);
    const paused = await hook(scraped, ok.url, ['game.user.banned']);
    for (let i = 0; i < 3; i++) await ban(scraped, `due-${i}`);
    // The last two of those bans as release 1.8.0 (which may run beside this one) commits them: with
    // a row for each endpoint. The first has none, as this release commits it: its deliveries are
    // counted from the endpoints' positions. Both ways, one due and one muted (queued before the
    // disable) each.
    const written = await db.query(
      `INSERT INTO webhook_deliveries (id, endpoint_id, event_id)
       SELECT svc_delivery_id(w.id, e.id), w.id, e.id
       FROM webhook_endpoints w CROSS JOIN (
         SELECT ${eventIdSql('o')} AS id FROM journal o
         WHERE o.game_id = (SELECT game_id FROM webhook_endpoints WHERE id = $1) AND o.type = 'game.user.banned'
         ORDER BY o.era DESC, o.xid DESC, o.seq DESC LIMIT 2
       ) e
       WHERE w.id = ANY ($2::uuid[])
       RETURNING 1`,
      [due, [due, paused]],
    );
    expect(written).toHaveLength(4);
    const patched = await scraped.http.patch(`/v1/webhooks/${paused}`).set(g.auth).send({ disabled: true });
    expect(patched.status).toBe(200);
    // The oldest due delivery has waited a while: its age is measurable.
    await sleep(1_100);
  });

  afterAll(async () => {
    await scraped?.close();
    await db?.drop();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('answers, query by query, what the gauges report', async () => {
    const startedAt = Date.now();
    const e: Exposition = parseExposition((await http(metrics)).text);
    const queries = documentedQueries();
    const answers: { series: string; metric: number | undefined; sql: number }[] = [];
    for (const q of queries) {
      const [row] = await db.query<Record<string, unknown>>(q.sql);
      const sample = e.samples.find((s) => s.name === q.name && Object.entries(q.labels).every(([k, v]) => s.labels[k] === v));
      answers.push({ series: `${q.name}${JSON.stringify(q.labels)}`, metric: sample?.value, sql: Number(Object.values(row)[0]) });
    }
    const elapsed = (Date.now() - startedAt) / 1000;

    // Every webhook gauge's series has its query.
    const webhookSeries = e.samples.filter((s) => s.name.startsWith('svc_webhook_') && !s.name.endsWith('_total'));
    expect(webhookSeries.map((s) => `${s.name}${JSON.stringify(s.labels)}`).sort()).toEqual(answers.map((a) => a.series).sort());
    // The state holds every kind, so no answer agrees by being 0 on both sides. (Of the 27 bans,
    // those the worker had not taken up when the 25th failure disabled the endpoint wait untaken and
    // muted, as its rows do; those committed after it made no delivery for it.)
    expect(Object.fromEntries(answers.map((a) => [a.series, a.metric]))).toMatchObject({
      'svc_webhook_deliveries_pending{"state":"due"}': 3,
      'svc_webhook_deliveries_pending{"state":"waiting"}': 2,
      'svc_webhook_deliveries_pending{"state":"muted"}': expect.any(Number),
      'svc_webhook_endpoints_disabled{"reason":"failures"}': 1,
      'svc_webhook_endpoints_disabled{"reason":"operator"}': 1,
    });
    expect(answers.find((a) => a.series === 'svc_webhook_deliveries_pending{"state":"muted"}')!.metric).toBeGreaterThanOrEqual(25 + 3);
    for (const a of answers) {
      if (a.series.startsWith('svc_webhook_oldest_pending_age_seconds')) {
        // An age: measured a moment apart (the gauge first), never further apart than that.
        expect(a.metric).toBeGreaterThan(1);
        expect(Math.abs(a.sql - a.metric!)).toBeLessThanOrEqual(elapsed + 0.05);
      } else {
        expect(a).toEqual({ ...a, sql: a.metric });
      }
    }
  });
});
