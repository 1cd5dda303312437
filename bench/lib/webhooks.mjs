// Webhook delivery throughput (SPEC §6 Webhook delivery): a local receiver answering 200 after a
// set latency; DELIVERIES events written to the journal with ONE SQL statement (as the unit of work
// writes a committed event: each is queued for the endpoint by its place after the endpoint's
// position, so all are due at one commit), then the server's worker drains them, writing each
// delivery's row with its result. Deliveries/s = deliveries / (last completed_at - commit).
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { cpuWindow, percentile, procMb, sleep } from './processes.mjs';

// The built readers' SQL (the bench runs on a build: `npm run bench` makes it first).
const { eventBodySql } = createRequire(import.meta.url)('../../dist/src/db/journal-sql.js');

/**
 * The receiver: answers 200 after `state.latencyMs`; counts requests. While `state.lags` is an
 * array, each request's lag is pushed to it: from its event's `occurredAt` (stamped by the server
 * as it stages the event, just before its commit) to the request's arrival, in ms.
 */
export async function startReceiver() {
  const state = { latencyMs: 0, requests: 0, inFlight: 0, maxInFlight: 0, lags: null };
  const server = createServer((req, res) => {
    const arrived = Date.now();
    state.requests++;
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    const lags = state.lags;
    const chunks = [];
    if (lags) req.on('data', (c) => chunks.push(c));
    else req.resume();
    req.on('end', () => {
      if (lags) {
        const at = Date.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')).occurredAt);
        if (Number.isFinite(at)) lags.push(arrived - at);
      }
      const answer = () => {
        state.inFlight--;
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      };
      if (state.latencyMs > 0) setTimeout(answer, state.latencyMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    state,
    url: `http://127.0.0.1:${server.address().port}/hook`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(() => r()));
    },
  };
}

/**
 * One run: a new endpoint (through the API) to the receiver, `deliveries` events written, then
 * polled until each has its finished row (or `timeoutS`); the endpoint is disabled at the end.
 */
export async function measureWebhooks({ api, db, gameId, groupId, receiver, latencyMs, deliveries, timeoutS, pid, postmasterPid }) {
  receiver.state.latencyMs = latencyMs;
  receiver.state.maxInFlight = 0;
  const endpoint = await api('POST', '/v1/webhooks', { url: receiver.url, events: ['member.joined'] }, 201);
  const [{ body: template } = {}] = (
    await db.query(
      // Whole, as the readers answer it: a stored body may lack what its row's columns hold and its
      // member's usual values (the id and instant are set below).
      `SELECT ${eventBodySql('j')} AS body FROM journal j WHERE j.type = 'member.joined' AND j.body IS NOT NULL LIMIT 1`,
    )
  ).rows;
  if (!template) throw new Error('webhooks: no member.joined event in the journal to copy');
  const prefix = randomBytes(4).toString('hex');
  await db.query(
    `WITH ev AS (
       SELECT i, $1 || lpad(to_hex(i), 16, '0') AS id FROM generate_series(0, $2::int - 1) AS i
     ), bodies AS (
       SELECT ev.id, $5::jsonb || jsonb_build_object('id', ev.id, 'occurredAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                'member', ($5::jsonb -> 'member') || jsonb_build_object('userId', 'hook-' || ev.i)) AS body
       FROM ev
     )
     INSERT INTO journal (id, game_id, group_id, type, body, names)
     SELECT (b.id || '00000000')::uuid, $3, $4, 'member.joined', b.body, svc_journal_names(NULL, NULL, NULL, b.body) FROM bodies b`,
    [prefix, deliveries, gameId, groupId, JSON.stringify(template)],
  );
  const committedAt = Date.now();
  const cpu = cpuWindow({ serverPid: pid, postmasterPid });
  // The worker wakes on the NOTIFY a commit of the service sends; this INSERT sent none.
  await db.query(`SELECT pg_notify('svc_deliveries', '')`);
  let done = 0;
  while (done < deliveries && Date.now() - committedAt < timeoutS * 1000) {
    await sleep(250);
    done = (await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status <> 'pending'`, [endpoint.id])).rows[0].n;
  }
  const usage = cpu();
  const rss = procMb(pid);
  const [s] = (
    await db.query(
      `SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered,
              count(*) FILTER (WHERE status <> 'delivered')::int AS other,
              extract(epoch FROM max(completed_at))::float8 * 1000 AS "lastDone"
       FROM webhook_deliveries WHERE endpoint_id = $1`,
      [endpoint.id],
    )
  ).rows;
  // The worker's claims, from the rows: those claimed by one statement share its last_attempt_at.
  const claims = (
    await db.query(
      `SELECT extract(epoch FROM last_attempt_at)::float8 * 1000 AS at, count(*)::int AS n FROM webhook_deliveries
       WHERE endpoint_id = $1 AND last_attempt_at IS NOT NULL GROUP BY last_attempt_at ORDER BY last_attempt_at`,
      [endpoint.id],
    )
  ).rows;
  const gaps = claims.slice(1).map((c, i) => c.at - claims[i].at).sort((a, b) => a - b);
  await api('PATCH', `/v1/webhooks/${endpoint.id}`, { disabled: true }, 200);
  const seconds = (s.lastDone - committedAt) / 1000;
  return {
    delivered: s.delivered,
    notDelivered: s.other,
    seconds,
    perS: s.delivered / seconds,
    maxInFlight: receiver.state.maxInFlight,
    claims: claims.length,
    claimSizes: [...new Set(claims.map((c) => c.n))].sort((a, b) => a - b),
    claimGapP50: percentile(gaps, 50),
    claimGapP99: percentile(gaps, 99),
    rss,
    cpu: usage,
  };
}
