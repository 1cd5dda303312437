import { Client } from 'pg';
import type { Counter, Gauge } from 'prom-client';
import type { Response } from 'supertest';
import { MetricsRegistry } from '../../src/observability/metrics/metrics-registry';
import { postGroup, postJoin, postLeave } from './groups';
import type { TestApp } from './test-app';

/** What the write-batch suites share: players, public groups, the batch counters and member reads. */
type Auth = Record<string, string>;

export const players = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

export async function publicGroups(t: TestApp, auth: Auth, n: number, body: Record<string, unknown> = {}): Promise<string[]> {
  const groups: string[] = [];
  for (let i = 0; i < n; i++) groups.push((await postGroup(t, auth, { kind: 'guild', name: `g${i}`, visibility: 'public', ...body })).id);
  return groups;
}

/** Makes the game know the players: each joins and leaves a group of its own, one request at a time. */
export async function known(t: TestApp, auth: Auth, users: string[]): Promise<void> {
  const [scratch] = await publicGroups(t, auth, 1);
  for (const u of users) {
    expect((await postJoin(t, auth, scratch, { userId: u })).status).toBe(201);
    expect((await postLeave(t, auth, scratch, { userId: u })).status).toBe(200);
  }
}

const counter = async (t: TestApp, name: string) => (await (t.app.get(MetricsRegistry).registry.getSingleMetric(name) as Counter).get()).values[0]?.value ?? 0;

/** The shared statements sent so far, the writes they carried, and the batches run again alone. */
export const shared = async (t: TestApp) => ({
  statements: await counter(t, 'svc_write_shared_statements_total'),
  writes: await counter(t, 'svc_write_shared_statement_writes_total'),
  reruns: await counter(t, 'svc_write_batch_reruns_total'),
});

export async function memberRead(t: TestApp, auth: Auth, groupId: string, userId: string): Promise<unknown> {
  const r = await t.http.get(`/v1/groups/${groupId}/members/${userId}`).set(auth);
  expect(r.status).toBe(200);
  return r.body;
}

export const activeIn = async (t: TestApp, groupId: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM members WHERE group_id = $1 AND status = 'active'`, [groupId]))[0].n;

/** Sends a request now (supertest sends on the first `then`). */
const sent = (request: PromiseLike<Response>): Promise<Response> => Promise.resolve(request);

const gauge = async (t: TestApp, name: string) => (await (t.app.get(MetricsRegistry).registry.getSingleMetric(name) as Gauge).get()).values[0]?.value ?? 0;

/** Sessions of this database waiting for an advisory lock. */
const waitingOnLocks = async (t: TestApp) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`))[0].n;

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The players who held the lanes so far (inOneBatch): each joins the busy group once. */
let laneHolders = 0;

/**
 * The answers of `requests`, sent so that they queue in their order and go as one batch: two joins
 * of `busy` take the service's two lanes and wait on that group's lock, held here, while the
 * requests queue one by one behind them; then the lock is let go.
 */
export async function inOneBatch(t: TestApp, auth: Auth, busy: string, requests: (() => PromiseLike<Response>)[]): Promise<Response[]> {
  const holder = new Client({ connectionString: t.db.url });
  await holder.connect();
  const blocked: Promise<Response>[] = [];
  const queued: Promise<Response>[] = [];
  try {
    await holder.query('BEGIN');
    await holder.query('CALL svc_lock_group($1)', [busy]);
    // One at a time, so that each takes a lane of its own.
    for (const lane of ['a', 'b']) {
      blocked.push(sent(postJoin(t, auth, busy, { userId: `lane-holder-${++laneHolders}${lane}` })));
      await until(async () => (await waitingOnLocks(t)) === blocked.length, `${blocked.length} lanes held`);
    }
    for (const request of requests) {
      queued.push(sent(request()));
      await until(async () => (await gauge(t, 'svc_write_batch_waiting')) === queued.length, `${queued.length} queued`);
    }
  } finally {
    await holder.query('COMMIT');
    await holder.end();
  }
  for (const r of await Promise.all(blocked)) expect(r.status).toBe(201);
  return Promise.all(queued);
}
