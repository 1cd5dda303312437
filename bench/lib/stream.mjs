// Live-stream fan-out (SPEC §6 Live stream): SUBSCRIBERS streams `GET /v1/events/:groupId` on one
// group (or `path`: the game's stream `/v1/events`), raw node:http clients (one socket each), then JOINS public joins paced INTERVAL_MS apart
// (open loop), one `member.joined` each. Every copy's arrival is timed against the event's
// `occurredAt`, stamped when the join staged it, just before its transaction commits: so each
// figure is commit-to-receipt plus the commit itself (an upper bound), on one shared clock.
// The server's RSS is read with the streams open after the events, and sampled all along.
import { Agent, request } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { cpuSeconds, percentile, procMb, sleep } from './processes.mjs';

const now = () => performance.timeOrigin + performance.now();

export async function measureStream({ base, key, groupId, path = `/v1/events/${groupId}`, userPrefix = 'stream', pid, subscribers, joins, intervalMs, log }) {
  const sockets = [];
  const occurred = new Map(); // event id -> occurredAt (ms since epoch)
  const receipts = new Map(); // event id -> arrival times
  let duplicates = 0;
  let closedEarly = 0;
  let measuring = false;

  const subscribe = (index) =>
    new Promise((resolve, reject) => {
      const seen = new Set();
      const req = request(`${base}${path}`, { agent: false, headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new Error(`stream subscriber ${index}: ${res.statusCode}`));
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
            if (!measuring || !frame.startsWith('id: ')) continue;
            const id = frame.slice(4, frame.indexOf('\n'));
            if (seen.has(id)) {
              duplicates++;
              continue;
            }
            seen.add(id);
            let times = receipts.get(id);
            if (!times) {
              receipts.set(id, (times = []));
              occurred.set(id, Date.parse(JSON.parse(frame.slice(frame.indexOf('\ndata: ') + 7)).occurredAt));
            }
            times.push(at);
          }
        });
        res.on('close', () => {
          if (!ready) reject(new Error(`stream subscriber ${index} closed before :ok`));
          else if (measuring) closedEarly++;
        });
      });
      req.on('error', (err) => (measuring ? closedEarly++ : reject(err)));
      req.end();
      sockets.push(req);
    });

  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const join = (userId) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ userId });
      const req = request(
        `${base}/v1/groups/${groupId}/join`,
        { method: 'POST', agent, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`stream join: ${res.statusCode} ${text.slice(0, 200)}`))));
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  try {
    const rssIdle = procMb(pid);
    const tOpen = performance.now();
    for (let i = 0; i < subscribers; i += 100) {
      await Promise.all(Array.from({ length: Math.min(100, subscribers - i) }, (_, j) => subscribe(i + j)));
    }
    const openS = (performance.now() - tOpen) / 1000;
    await sleep(1000);
    const rssSubscribed = procMb(pid);
    log(`  ${subscribers} streams open in ${openS.toFixed(1)} s; server RSS ${rssSubscribed.toFixed(0)} MB`);

    let rssPeak = rssSubscribed;
    const rssTimer = setInterval(() => (rssPeak = Math.max(rssPeak, procMb(pid))), 100);
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    measuring = true;
    const cpu0 = cpuSeconds(pid);
    const t0 = performance.now();
    const pending = [];
    let failedJoins = 0;
    for (let i = 0; i < joins; i++) {
      const wait = t0 + i * intervalMs - performance.now();
      if (wait > 0) await sleep(wait);
      pending.push(
        join(`${userPrefix}-${process.pid}-${i}`).catch((err) => {
          if (failedJoins++ === 0) log(`  first failed join: ${err.message}`);
        }),
      );
    }
    await Promise.all(pending);
    const expected = (joins - failedJoins) * subscribers;
    const count = () => [...receipts.values()].reduce((n, t) => n + t.length, 0);
    const deadline = performance.now() + 10_000;
    while (count() < expected && performance.now() < deadline) await sleep(100);
    const phaseS = (performance.now() - t0) / 1000;
    measuring = false;
    loop.disable();
    clearInterval(rssTimer);
    const rssAfter = procMb(pid);
    const serverCpu = ((cpuSeconds(pid) - cpu0) / phaseS) * 100;

    const latencies = [];
    for (const [id, times] of receipts) for (const at of times) latencies.push(at - occurred.get(id));
    latencies.sort((a, b) => a - b);
    return {
      joinsPerS: joins / ((joins - 1) * intervalMs / 1000 || 1),
      receipts: latencies.length,
      expected,
      failedJoins,
      duplicates,
      closedEarly,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.at(-1),
      openS,
      rssIdle,
      rssSubscribed,
      rssPeak: Math.max(rssPeak, rssAfter),
      rssAfter,
      serverCpu,
      clientLoopDelayP99: Math.max(0, loop.percentile(99) / 1e6 - 5),
    };
  } finally {
    for (const req of sockets) req.destroy();
    agent.destroy();
  }
}
