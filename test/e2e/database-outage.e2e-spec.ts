import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { ensureDatabase, startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres';
import { subscribe, type StreamClient, type StreamFrame } from '../helpers/event-stream';
import { journalAudit, journalEvents } from '../helpers/journal';
import {
  http,
  killAll,
  lines,
  requireBuild,
  sleep,
  startServerProcess,
  TEST_ADMIN_TOKEN,
  type HttpResult,
  type RunningServer,
} from '../helpers/process';

/**
 * DECISIONS §30 against the BUILT server: the test owns its Postgres, stops it under two running
 * instances and starts it again on the same port. While it is down every request answers 503
 * `service_unavailable` with Retry-After, fast and with a bounded log; a mutation caught by the
 * stop is whole or absent; once it is back both instances serve again without a restart, and a
 * live stream opened before the outage hears an event committed by the other instance after it,
 * and a game stream held through it receives every event that committed, once.
 */

/** DECISIONS §30 / SPEC §4 /healthz: every answer during the outage within the health timeout. */
const ANSWER_WITHIN_MS = 2_000;

jest.setTimeout(240_000);

/** The log lines that carry a stack trace: none may while the database is away (all of it is expected). */
function withStack(stdout: string): string[] {
  return lines(stdout).filter((l) => /"stack"|\\n\s+at /.test(l));
}

/**
 * A free port below the kernel's ephemeral range: while Postgres is down, no other test's listen(0)
 * or outgoing connection can be handed its port before the restart.
 */
async function portBelowEphemeralRange(): Promise<number> {
  let first = 32_768;
  try {
    first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || first;
  } catch {
    // not Linux: keep the usual start of the range
  }
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * Math.max(1, first - 10_000));
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

describe('database outage (built dist/src/main.js against its own Postgres)', () => {
  let dir: string;
  let pgPort: number;
  let pg: EmbeddedPostgres | null = null;
  let dbUrl: string;
  let a: RunningServer;
  let b: RunningServer;
  let key: string;
  /** Minted before the outage but never presented to instance A: its lookup needs the database. */
  let unusedKey: string;
  let groupId: string;
  let inviteCode: string;
  let stream: StreamClient;
  /** The game's stream, held on B through the outage. */
  let gameStream: StreamClient;
  const torn: { name: string; status: number | string }[] = [];
  let stoppedAt = 0;
  let logMark = 0;

  const asAdmin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
  const asGame = (k = key) => ({ authorization: `Bearer ${k}` });
  const startPostgres = async () => {
    pg = await startEmbeddedPostgres({ dataDir: dir, port: pgPort });
  };
  const timed = async (run: () => Promise<HttpResult>) => {
    const t0 = performance.now();
    const res = await run();
    return { res, ms: performance.now() - t0 };
  };
  const createGroup = (server: RunningServer, name: string, creatorUserId = 'founder') =>
    http(`${server.url}/v1/groups`, { method: 'POST', headers: asGame(), body: { kind: 'guild', name, visibility: 'public', creatorUserId }, timeoutMs: 10_000 });
  const ok = (r: HttpResult, status: number, what: string) => {
    if (r.status !== status) throw new Error(`${what}: ${r.status} ${r.text}`);
    return r.body;
  };
  const withDb = async <T>(use: (c: Client) => Promise<T>): Promise<T> => {
    const c = new Client({ connectionString: dbUrl });
    await c.connect();
    try {
      return await use(c);
    } finally {
      await c.end();
    }
  };

  beforeAll(async () => {
    requireBuild();
    dir = mkdtempSync(join(tmpdir(), 'guildhall-outage-'));
    chmodSync(dir, 0o755);
    pgPort = await portBelowEphemeralRange();
    await startPostgres();
    dbUrl = await ensureDatabase(pg!.url, 'outage');
    const env = { NODE_ENV: 'production', LOG_LEVEL: 'info' };
    // A runs its rate limiter (in memory, it must not care), with room for every request here.
    a = await startServerProcess(dbUrl, { ...env, RATE_LIMIT_PER_MINUTE: '60000', RATE_LIMIT_BURST: '10000' }, 60_000);
    b = await startServerProcess(dbUrl, env, 60_000);

    const game = ok(await http(`${a.url}/v1/admin/games`, { method: 'POST', headers: asAdmin, body: { name: 'outage' } }), 201, 'game');
    key = ok(await http(`${a.url}/v1/admin/games/${game.id}/api-keys`, { method: 'POST', headers: asAdmin }), 201, 'key').key;
    unusedKey = ok(await http(`${b.url}/v1/admin/games/${game.id}/api-keys`, { method: 'POST', headers: asAdmin }), 201, 'key').key;
    groupId = ok(await createGroup(a, 'home'), 201, 'group').id;
    inviteCode = ok(await http(`${a.url}/v1/groups/${groupId}/invitations`, { method: 'POST', headers: asGame(), body: {} }), 201, 'invitation').code;

    // The stream lives on A; a join through B reaches it only through Postgres (LISTEN/NOTIFY).
    stream = await subscribe(a.url, key, groupId, { now: Date.now });
    gameStream = await subscribe(b.url, key, null, { now: Date.now });
    ok(await http(`${b.url}/v1/groups/${groupId}/join`, { method: 'POST', headers: asGame(), body: { userId: 'before' } }), 201, 'join');
    await stream.until((f) => f.some((x) => x.event === 'member.joined' && x.data?.includes('"before"')), 15_000, 'the join before the outage');
  });

  afterAll(async () => {
    stream?.close();
    gameStream?.close();
    await pg?.stop().catch(() => undefined);
    await killAll();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('mutations running as the database stops answer each 201 or 503', async () => {
    logMark = a.proc.stdout().length;
    // Four lanes create groups back to back, so some commit, some are cut off mid-way, some never start.
    let stopping = false;
    const lane = async (l: number) => {
      for (let i = 0; ; i++) {
        const name = `torn-${l}-${i}`;
        const r = await createGroup(a, name, `creator-${name}`).catch((e: Error) => e);
        const status = r instanceof Error ? `${r.name}: ${r.message}` : r.status;
        torn.push({ name, status });
        if (status !== 201 && status !== 503) throw new Error(`${name}: ${status} ${r instanceof Error ? '' : r.text}`);
        if (status === 503) expect((r as HttpResult).body).toMatchObject({ code: 'service_unavailable', status: 503 });
        if (stopping && status === 503) return;
      }
    };
    const lanes = [0, 1, 2, 3].map(lane);
    await sleep(300);
    stopping = true;
    await pg!.stop();
    pg = null;
    stoppedAt = performance.now();
    await Promise.all(lanes);
    expect(torn.filter((t) => t.status === 201).length).toBeGreaterThan(0);
  });

  /**
   * One answer within the bound. The service's own bound is its 1.5 s database timeout; a CI
   * machine busy with other suites once stalled one answer past the 0.5 s headroom (2,549 ms). One
   * more try tells that stall from a service that waits longer, which fails both.
   */
  const timedWithin = async (what: string, run: () => Promise<HttpResult>) => {
    const first = await timed(run);
    if (first.ms < ANSWER_WITHIN_MS) return first;
    const again = await timed(run);
    if (again.ms >= ANSWER_WITHIN_MS) throw new Error(`${what} took ${Math.round(first.ms)} ms, then ${Math.round(again.ms)} ms`);
    return again;
  };

  /** Each probe answers the outage envelope within the health timeout; returns the times. */
  const expectOutageAnswers = async (probes: [string, () => Promise<HttpResult>][]) => {
    const times: Record<string, number> = {};
    for (const [what, run] of probes) {
      const { res, ms } = await timedWithin(what, run);
      times[what] = Math.round(ms);
      expect([what, res.status, res.body?.code]).toEqual([what, 503, 'service_unavailable']);
      expect(res.body).toEqual({ code: 'service_unavailable', status: 503, message: expect.any(String), requestId: expect.any(String) });
      expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
      expect(res.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    }
    return times;
  };

  it('while the database refuses connections, requests answer 503 service_unavailable with Retry-After and requestId, fast', async () => {
    const times = await expectOutageAnswers([
      ['a read with a cached key', () => http(`${a.url}/v1/groups/${groupId}`, { headers: asGame() })],
      ['a read with a key not cached yet (the auth lookup)', () => http(`${a.url}/v1/groups/${groupId}`, { headers: asGame(unusedKey) })],
      ['a mutation', () => createGroup(a, 'during')],
      ['a join', () => http(`${a.url}/v1/groups/${groupId}/join`, { method: 'POST', headers: asGame(), body: { userId: 'during' } })],
      ['a friends read (the game-config cache)', () => http(`${a.url}/v1/users/someone/friends`, { headers: asGame() })],
      ['an admin list', () => http(`${a.url}/v1/admin/games`, { headers: asAdmin })],
      ['the public invitation preview', () => http(`${a.url}/v1/invitations/${inviteCode}`)],
      ['a live-stream handshake', () => http(`${a.url}/v1/events/${groupId}`, { headers: asGame() })],
      ['a read on the other instance', () => http(`${b.url}/v1/groups/${groupId}`, { headers: asGame() })],
    ]);
    console.log(`503 answer times, database refusing (ms): ${JSON.stringify(times)}`);
  });

  it('/healthz answers 503 degraded with the database reason within its timeout', async () => {
    const { res, ms } = await timed(() => http(`${a.url}/healthz`));
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: 'degraded', db: { ok: false, reason: expect.any(String) } });
    // Public: it names the failure, never the database's address.
    expect(res.body.db.reason).toMatch(/^database (error: [A-Za-z0-9_]+|did not answer within \d+ ms)$/);
    expect(JSON.stringify(res.body)).not.toContain(`:${pgPort}`);
    expect(ms).toBeLessThan(ANSWER_WITHIN_MS);
    expect((await http(`${a.url}/`)).status).toBe(200);
  });

  it('a sustained stream of failing requests logs a bounded number of lines, none with a stack', async () => {
    const until = performance.now() + 3_000;
    let n = 0;
    while (performance.now() < until) {
      const batch = await Promise.all(Array.from({ length: 10 }, () => http(`${a.url}/v1/groups/${groupId}`, { headers: asGame() })));
      n += batch.length;
      for (const r of batch) expect(r.status).toBe(503);
      await sleep(50);
    }
    const outageSeconds = (performance.now() - stoppedAt) / 1000;
    // Let the last summary line of the throttle come out.
    await sleep(1_200);

    const logged = lines(a.proc.stdout().slice(logMark)).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(withStack(a.proc.stdout().slice(logMark))).toEqual([]);
    expect(logged.filter((l) => (l.level as number) >= 50)).toEqual([]);
    const outageLines = logged.filter((l) => l.msg === 'database unavailable: answered 503 service_unavailable');
    expect(outageLines.length).toBeGreaterThan(0);
    expect(outageLines.length).toBeLessThanOrEqual(Math.ceil(outageSeconds) + 3);
    expect(outageLines[0]).toMatchObject({ level: 40, requestId: expect.any(String), cause: expect.any(String), count: 1 });
    // Every 503 is accounted for in the counts (the burst's 503s and the probes' too).
    const counted = outageLines.reduce((sum, l) => sum + (l.count as number), 0);
    expect(counted).toBeGreaterThanOrEqual(n);
    // Everything else (the listener's and the worker's retries, which a loaded machine's longer
    // outage makes more of) is a handful of lines and a few a second, not one per request.
    expect(logged.length).toBeLessThanOrEqual(outageLines.length + 10 + Math.ceil(outageSeconds));
    expect(logged.length).toBeLessThan(n);
    expect(a.proc.stderr()).toBe('');
  });

  it('while the database hangs (accepts connections, never answers), requests and /healthz still answer within 2 s', async () => {
    const held = new Set<Socket>();
    const hung = createServer((socket) => {
      held.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((r) => hung.listen(pgPort, '127.0.0.1', r));
    try {
      const times = await expectOutageAnswers([
        ['a read with a cached key', () => http(`${a.url}/v1/groups/${groupId}`, { headers: asGame() })],
        ['a mutation', () => createGroup(a, 'during-hang')],
        ['the public invitation preview', () => http(`${a.url}/v1/invitations/${inviteCode}`)],
      ]);
      const { res, ms } = await timedWithin('/healthz', () => http(`${a.url}/healthz`));
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 'degraded', db: { ok: false } });
      console.log(`503 answer times, database hanging (ms): ${JSON.stringify({ ...times, '/healthz': Math.round(ms) })}`);
      expect(withStack(a.proc.stdout().slice(logMark))).toEqual([]);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((r) => hung.close(r));
    }
  });

  it('once Postgres is back on the same port, both instances serve again without a restart', async () => {
    await startPostgres();
    const t0 = performance.now();
    for (const server of [a, b]) {
      for (;;) {
        const r = await http(`${server.url}/v1/groups/${groupId}`, { headers: asGame() });
        if (r.status === 200) break;
        expect(r.status).toBe(503);
        if (performance.now() - t0 > 10_000) throw new Error(`not serving 10 s after the restart: ${r.status} ${r.text}`);
        await sleep(200);
      }
    }
    console.log(`serving again ${Math.round(performance.now() - t0)} ms after Postgres accepted connections`);
    expect(ok(await createGroup(a, 'after'), 201, 'create after').name).toBe('after');
    expect((await http(`${a.url}/v1/groups/${groupId}`, { headers: asGame(unusedKey) })).status).toBe(200);
    expect((await http(`${a.url}/healthz`)).status).toBe(200);
    expect([a.proc.exit(), b.proc.exit()]).toEqual([null, null]);
  });

  it('nothing half-written: each mutation caught by the stop exists whole (row, member, audit, event) or not at all', async () => {
    const found = await withDb(async (c) => {
      const count = async (sql: string, name: string) => Number((await c.query(sql, [name])).rows[0].n);
      const out: Record<string, number[]> = {};
      for (const { name } of torn) {
        out[name] = [
          await count(`SELECT count(*) AS n FROM groups WHERE name = $1`, name),
          await count(`SELECT count(*) AS n FROM members m JOIN groups g ON g.id = m.group_id WHERE g.name = $1`, name),
          await count(`SELECT count(*) AS n FROM ${journalAudit()} WHERE action = 'group.created' AND payload->>'name' = $1`, name),
          await count(`SELECT count(*) AS n FROM ${journalEvents()} WHERE type = 'group.created' AND body->'group'->>'name' = $1`, name),
        ];
      }
      return out;
    });
    for (const { name, status } of torn) {
      const whole = found[name].every((n) => n === 1);
      const absent = found[name].every((n) => n === 0);
      expect({ name, status, found: found[name], wholeOrAbsent: whole || absent }).toEqual({ name, status, found: found[name], wholeOrAbsent: true });
      if (status === 201) expect({ name, whole }).toEqual({ name, whole: true });
    }
    // The mutations sent while it was down never reached it.
    expect(await withDb(async (c) => (await c.query(`SELECT name FROM groups WHERE name LIKE 'during%'`)).rows)).toEqual([]);
    const tally = (status: number, rows: number) => torn.filter((t) => t.status === status && found[t.name][0] === rows).length;
    console.log(
      `mutations around the stop: ${tally(201, 1)} answered 201 and committed, ${tally(503, 0)} answered 503 and left nothing, ` +
        `${tally(503, 1)} answered 503 but had committed`,
    );
  });

  it('the listener reconnects by itself: a stream opened before the outage hears an event committed on the other instance after it', async () => {
    // Both instances' LISTEN connections are back (bounded by their reconnect backoff).
    const deadline = performance.now() + 15_000;
    for (;;) {
      const listeners = await withDb(async (c) =>
        Number(
          (await c.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = 'outage' AND application_name = 'guildhall-listener'`))
            .rows[0].n,
        ),
      );
      if (listeners >= 2) break;
      if (performance.now() > deadline) throw new Error(`only ${listeners} listener connections 15 s after the restart`);
      await sleep(200);
    }
    ok(await http(`${b.url}/v1/groups/${groupId}/join`, { method: 'POST', headers: asGame(), body: { userId: 'after' } }), 201, 'join after');
    await stream.until((f) => f.some((x) => x.event === 'member.joined' && x.data?.includes('"after"')), 10_000, 'the join after the outage');
    expect(a.proc.stdout()).toContain('listener reconnected');
  });

  it('a game stream held on the other instance through the outage receives every committed group.created once, and no other', async () => {
    const committed: string[] = await withDb(async (c) =>
      (await c.query(`SELECT name FROM groups WHERE name LIKE 'torn-%' ORDER BY name`)).rows.map((r: { name: string }) => r.name),
    );
    expect(committed.length).toBeGreaterThan(0);
    const names = (frames: StreamFrame[]) =>
      frames.filter((f) => f.event === 'group.created').map((f) => (JSON.parse(f.data!) as { group: { name: string } }).group.name);
    await gameStream.until((f) => committed.every((n) => names(f).includes(n)), 20_000, 'every committed group.created on the game stream');
    const seen = names(gameStream.frames).filter((n) => n.startsWith('torn-'));
    expect([...seen].sort()).toEqual(committed);
    const ids = gameStream.frames.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
