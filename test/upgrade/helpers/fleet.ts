import { freePort, http, serverEnv, sleep, spawnNode, type Exit, type HttpResult, type Proc } from '../../helpers/process';
import { parseExposition, samplesOf } from '../../helpers/metrics';
import type { Build } from './release-build';

export type InstanceState = 'starting' | 'serving' | 'drained' | 'stopped';

/** One running instance of a build, in the test's rotation or not. */
export interface Instance {
  /** `A1`, `B2`…: the slot (1 or 2) and which start of it this is, for the output. */
  name: string;
  build: Build;
  base: string;
  metricsPort: number | null;
  proc: Proc;
  /** starting: not in the rotation yet; serving: in it; drained: out of it, still running; stopped: exited. */
  state: InstanceState;
  /** Requests sent to it and not answered yet (streams not counted). */
  inFlight: number;
  /** svc_db_statement_errors_total by SQLSTATE class, at its last scrape (null: never scraped, or the build has no METRICS_PORT). */
  statementErrors: Record<string, number> | null;
  /** What `GET /` answered as `release` (builds before 1.0.0 answer none). */
  reportedRelease: string | null;
  /** From the spawn: when `GET /` first answered, and when `/healthz` first answered 200 (its webhook worker has completed a tick). */
  listeningMs: number;
  healthyMs: number;
  /** Whether its METRICS_PORT exposition has the family at all (a build may expose metrics without it). */
  exposesStatementErrors: boolean | null;
  exit: Exit | null;
}

/**
 * Starts `build` on `databaseUrl` and waits until `/healthz` answers 200 (at most `timeoutMs`: a
 * build that migrates when it boots may take a while). Its webhook worker runs; LOG_LEVEL=warn
 * keeps the log to what went wrong: the statement errors of 500s, a graceful stop that ran out of time.
 */
export async function startInstance(
  build: Build,
  name: string,
  databaseUrl: string,
  extra: Record<string, string>,
  timeoutMs = 120_000,
): Promise<Instance> {
  const port = await freePort();
  let metricsPort: number | null = null;
  if (build.hasMetricsPort) {
    do metricsPort = await freePort();
    while (metricsPort === port);
  }
  const env = serverEnv(databaseUrl, port, {
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
    WEBHOOK_WORKER_ENABLED: 'true',
    ...(metricsPort === null ? {} : { METRICS_PORT: String(metricsPort) }),
    ...extra,
  });
  const spawnedAt = Date.now();
  const proc = spawnNode(build.main, [], env, build.dir);
  const base = `http://127.0.0.1:${port}`;
  const instance: Instance = {
    name,
    build,
    base,
    metricsPort,
    proc,
    state: 'starting',
    inFlight: 0,
    statementErrors: null,
    reportedRelease: null,
    listeningMs: 0,
    healthyMs: 0,
    exposesStatementErrors: null,
    exit: null,
  };
  void proc.exited.then((e) => {
    instance.exit = e;
    instance.state = 'stopped';
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exit()) throw new Error(`${name} (${build.label}) exited before /healthz answered 200: ${proc.describe()}`);
    try {
      const h = await http(`${base}/healthz`, { timeoutMs: 2_000 });
      instance.listeningMs ||= Date.now() - spawnedAt;
      if (h.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${name} (${build.label}): /healthz not 200 within ${timeoutMs} ms: ${proc.describe()}`);
    await sleep(100);
  }
  instance.healthyMs = Date.now() - spawnedAt;
  const live = await http(`${base}/`);
  instance.reportedRelease = typeof live.body?.release === 'string' ? live.body.release : null;
  return instance;
}

/** svc_db_statement_errors_total by SQLSTATE class, from the instance's METRICS_PORT (kept on the instance). */
export async function scrapeStatementErrors(instance: Instance): Promise<void> {
  if (instance.metricsPort === null || instance.state === 'stopped') return;
  try {
    const res = await http(`http://127.0.0.1:${instance.metricsPort}/metrics`, { timeoutMs: 3_000 });
    if (res.status !== 200) return;
    const exposition = parseExposition(res.text);
    instance.exposesStatementErrors = exposition.types.get('svc_db_statement_errors_total') === 'counter';
    const byClass: Record<string, number> = {};
    for (const s of samplesOf(exposition, 'svc_db_statement_errors_total')) {
      byClass[s.labels.sqlstate_class ?? '?'] = (byClass[s.labels.sqlstate_class ?? '?'] ?? 0) + s.value;
    }
    instance.statementErrors = byClass;
  } catch {
    // Stopping, or busy: the last scrape stands.
  }
}

/** One request of the load, as the client saw it. */
export interface Outcome {
  /** What the load was doing: join, leave, invite, accept, friend, friend-accept, feed, stream, setup… */
  op: string;
  method: string;
  path: string;
  instance: string;
  release: string;
  /** The instance's state when the request was sent, and when a transport error came back. */
  sentTo: InstanceState;
  start: number;
  end: number;
  /** 0 when no answer came (see error). */
  status: number;
  retryAfter: string | null;
  requestId: string | null;
  /** The first 300 characters of a non-2xx answer's body. */
  body?: string;
  /** A transport failure, and the instance's state when it happened. */
  error?: string;
  errorWhile?: InstanceState;
}

/**
 * The test's load balancer: a client-side round robin over the instances in rotation. Like a load
 * balancer draining a backend, `drain` takes an instance out before it is stopped (requests in flight
 * finish), and an instance is added only once its /healthz answered 200. Every request is recorded.
 */
/** The record of a request about to be sent to `instance`, completed when its answer comes. */
export function startOutcome(instance: Instance, op: string, method: string, path: string): Outcome {
  return {
    op,
    method,
    path,
    instance: instance.name,
    release: instance.build.label,
    sentTo: instance.state,
    start: Date.now(),
    end: 0,
    status: 0,
    retryAfter: null,
    requestId: null,
  };
}

export class Balancer {
  readonly outcomes: Outcome[] = [];
  private rotation: Instance[] = [];
  private turn = 0;

  add(instance: Instance): void {
    instance.state = 'serving';
    this.rotation.push(instance);
  }

  /** Out of the rotation; resolves once its requests in flight are answered (at most `ms`). */
  async drain(instance: Instance, ms = 15_000): Promise<number> {
    this.rotation = this.rotation.filter((i) => i !== instance);
    if (instance.state === 'serving') instance.state = 'drained';
    const started = Date.now();
    while (instance.inFlight > 0 && Date.now() - started < ms) await sleep(20);
    return instance.inFlight;
  }

  get live(): readonly Instance[] {
    return this.rotation;
  }

  pick(): Instance {
    if (!this.rotation.length) throw new Error('no instance in the rotation');
    return this.rotation[this.turn++ % this.rotation.length];
  }

  /** One request to the next instance in the rotation (or to `to`), recorded. */
  async request(
    op: string,
    method: string,
    path: string,
    init: { headers?: Record<string, string>; body?: unknown; to?: Instance; timeoutMs?: number } = {},
  ): Promise<{ outcome: Outcome; res: HttpResult | null }> {
    const instance = init.to ?? this.pick();
    const outcome = startOutcome(instance, op, method, path);
    instance.inFlight++;
    let res: HttpResult | null = null;
    try {
      res = await http(`${instance.base}${path}`, { method, headers: init.headers, body: init.body, timeoutMs: init.timeoutMs ?? 15_000 });
      outcome.status = res.status;
      outcome.retryAfter = res.headers.get('retry-after');
      outcome.requestId = res.headers.get('x-request-id');
      if (res.status < 200 || res.status >= 300) outcome.body = res.text.slice(0, 300);
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      outcome.error = e.cause?.code ?? e.cause?.message ?? e.message;
      outcome.errorWhile = instance.state;
    } finally {
      instance.inFlight--;
      outcome.end = Date.now();
    }
    this.outcomes.push(outcome);
    return { outcome, res };
  }

  /** Records the outcome of a request made another way (a stream's handshake). */
  record(outcome: Outcome): void {
    this.outcomes.push(outcome);
  }
}

/**
 * SIGTERM, and the wait for the exit (a graceful stop takes at most 35 s); with the warnings the
 * instance logged while it stopped (a drain that ran out of time says so).
 */
export async function stopInstance(instance: Instance): Promise<{ exit: Exit; ms: number; warnings: string[] }> {
  const started = Date.now();
  const logged = instance.proc.stdout().length;
  if (!instance.proc.exit()) instance.proc.child.kill('SIGTERM');
  const exit = await instance.proc.waitForExit(40_000);
  instance.state = 'stopped';
  const warnings = instance.proc
    .stdout()
    .slice(logged)
    .split('\n')
    .map((l) => /"msg":"((?:[^"\\]|\\.)*)"/.exec(l)?.[1])
    .filter((m): m is string => !!m);
  return { exit, ms: Date.now() - started, warnings };
}

/** The SQLSTATEs a process logged (pino's `"code":"23502"` of a pg error), by the number of log lines naming each. */
export function loggedSqlStates(instance: Instance): Record<string, number> {
  const found: Record<string, number> = {};
  for (const line of (instance.proc.stdout() + instance.proc.stderr()).split('\n')) {
    // A TypeORM error carries the code twice (its own and its driverError's): once per line.
    for (const code of new Set([...line.matchAll(/"code":"([0-9A-Z]{5})"/g)].map((m) => m[1]))) found[code] = (found[code] ?? 0) + 1;
  }
  return found;
}

/** The messages a process logged (at LOG_LEVEL=warn: warnings and errors), with how often. */
export function loggedMessages(instance: Instance): Record<string, number> {
  const found: Record<string, number> = {};
  for (const line of (instance.proc.stdout() + instance.proc.stderr()).split('\n')) {
    const msg = /"msg":"((?:[^"\\]|\\.)*)"/.exec(line)?.[1];
    if (msg) found[msg] = (found[msg] ?? 0) + 1;
  }
  return found;
}

/** The log line of a request (by its x-request-id), shortened, when the instance logged one. */
export function logLineOf(instance: Instance, requestId: string | null): string | null {
  if (!requestId) return null;
  const line = (instance.proc.stdout() + instance.proc.stderr()).split('\n').find((l) => l.includes(requestId));
  if (!line) return null;
  const code = /"code":"([0-9A-Z]{5})"/.exec(line)?.[1];
  const message = /"message":"((?:[^"\\]|\\.){0,200})/.exec(line)?.[1];
  return `${code ? `SQLSTATE ${code}` : 'no SQLSTATE'}${message ? `: ${message}` : ''}`;
}
