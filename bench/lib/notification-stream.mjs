// Players' notification streams (EXTENSIONS X9, issue 46): one stream
// `GET /v1/users/:userId/notifications/stream` open for each of PLAYERS players the game knows, raw
// node:http clients (one socket each), then one notification for each player, paced INTERVAL_MS
// apart (open loop): a targeted invitation, which writes `invitation.received` to its target in its
// transaction. Each arrival is timed, as the live-stream rows time theirs (bench/lib/stream.mjs),
// against the `occurredAt` of the event the same transaction staged (`invitation.created`, read
// from the outbox afterwards), stamped just before the commit: commit-to-receipt plus the commit
// itself, on one shared clock. Also against the notification's `createdAt`, the database's now()
// when the transaction began: that adds the whole transaction (its statements, any lock waits).
// The server's RSS is read with the streams open, sampled all along, and read again after.
import { Agent, request } from 'node:http';
import { cpuSeconds, percentile, procMb, sleep } from './processes.mjs';

const now = () => performance.timeOrigin + performance.now();

export async function measureNotificationStreams({ base, key, db, groupId, players, pid, intervalMs, log }) {
  const sockets = [];
  const arrivals = []; // { invitationId, at, createdAt }
  const received = new Set();
  let duplicates = 0;
  let strays = 0;
  let closedEarly = 0;
  let measuring = false;

  const subscribe = (userId) =>
    new Promise((resolve, reject) => {
      const path = `/v1/users/${encodeURIComponent(userId)}/notifications/stream`;
      const req = request(`${base}${path}`, { agent: false, headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new Error(`notification stream of ${userId}: ${res.statusCode}`));
        }
        let buf = '';
        let ready = false;
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          const at = now();
          buf += chunk;
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const frame = buf.slice(0, i);
            buf = buf.slice(i + 2);
            if (frame.startsWith(':')) {
              if (!ready) {
                ready = true;
                resolve();
              }
              continue;
            }
            if (!measuring || !frame.includes('\nevent: notification\n')) continue;
            const n = JSON.parse(frame.slice(frame.indexOf('\ndata: ') + 7));
            if (n.userId !== userId) strays++;
            else if (received.has(n.id)) duplicates++;
            else {
              received.add(n.id);
              arrivals.push({ invitationId: n.data.invitationId, at, createdAt: Date.parse(n.createdAt) });
            }
          }
        });
        res.on('close', () => {
          if (!ready) reject(new Error(`notification stream of ${userId} closed before :ok`));
          else if (measuring) closedEarly++;
        });
      });
      req.on('error', (err) => (measuring ? closedEarly++ : reject(err)));
      req.end();
      sockets.push(req);
    });

  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const invite = (userId) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ targetUserId: userId });
      const req = request(
        `${base}/v1/groups/${groupId}/invitations`,
        { method: 'POST', agent, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`invitation: ${res.statusCode} ${text.slice(0, 200)}`))));
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  try {
    const rssIdle = procMb(pid);
    const tOpen = performance.now();
    for (let i = 0; i < players.length; i += 100) await Promise.all(players.slice(i, i + 100).map(subscribe));
    const openS = (performance.now() - tOpen) / 1000;
    await sleep(1000);
    const rssSubscribed = procMb(pid);
    log(`  ${players.length} streams open in ${openS.toFixed(1)} s; server RSS ${rssSubscribed.toFixed(0)} MB`);

    let rssPeak = rssSubscribed;
    const rssTimer = setInterval(() => (rssPeak = Math.max(rssPeak, procMb(pid))), 100);
    measuring = true;
    const cpu0 = cpuSeconds(pid);
    const t0 = performance.now();
    const pending = [];
    let failed = 0;
    for (let i = 0; i < players.length; i++) {
      const wait = t0 + i * intervalMs - performance.now();
      if (wait > 0) await sleep(wait);
      pending.push(
        invite(players[i]).catch((err) => {
          if (failed++ === 0) log(`  first failed invitation: ${err.message}`);
        }),
      );
    }
    await Promise.all(pending);
    const expected = players.length - failed;
    const deadline = performance.now() + 10_000;
    while (received.size < expected && performance.now() < deadline) await sleep(100);
    const phaseS = (performance.now() - t0) / 1000;
    measuring = false;
    clearInterval(rssTimer);
    const rssAfter = procMb(pid);
    const serverCpu = ((cpuSeconds(pid) - cpu0) / phaseS) * 100;
    const { rows } = await db.query(
      // An event's instant is its id's millisecond: the journal key's first 48 bits (the stored body may lack it).
      `SELECT body->'invitation'->>'id' AS id, ('x' || left(replace(id::text, '-', ''), 12))::bit(48)::bigint AS at
       FROM journal WHERE type = 'invitation.created' AND group_id = $1 AND body IS NOT NULL`,
      [groupId],
    );
    const occurred = new Map(rows.map((r) => [r.id, Number(r.at)]));
    const latencies = arrivals.map((a) => a.at - occurred.get(a.invitationId)).sort((a, b) => a - b);
    const fromStart = arrivals.map((a) => a.at - a.createdAt).sort((a, b) => a - b);
    return {
      perS: players.length / (((players.length - 1) * intervalMs) / 1000 || 1),
      receipts: received.size,
      expected,
      failed,
      duplicates,
      strays,
      closedEarly,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.at(-1),
      fromStartP50: percentile(fromStart, 50),
      fromStartP99: percentile(fromStart, 99),
      openS,
      rssIdle,
      rssSubscribed,
      rssPeak: Math.max(rssPeak, rssAfter),
      rssAfter,
      serverCpu,
    };
  } finally {
    for (const req of sockets) req.destroy();
    agent.destroy();
  }
}
