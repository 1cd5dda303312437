import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { insertEventsSql, journalEvents } from '../helpers/journal';
import { openSse, type SseStream } from '../helpers/sse';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The feed's guarantee under load (EXTENSIONS X1): while hundreds of mutations run concurrently on
 * two instances, some of them held open inside their transaction (pg_sleep, or waiting on a row
 * lock) so that they commit long after transactions that started later, some rolled back, one
 * consumer pages the feed on one instance and another follows the game's stream on the other,
 * reconnecting with Last-Event-ID now and then (once to the other instance). Both must end with
 * exactly the committed events, each once, in the same order. A feed ordered by a plain sequence
 * or by time would skip the events of the transactions held open.
 */
jest.setTimeout(120_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ENV = { WEBHOOK_WORKER_ENABLED: 'false', DATABASE_POOL_MAX: '8' };
const GROUPS = 8;
const JOINS = 200;
const HELD = 30;
const LOCKED_UPDATES = 12;
const REFUSED = 20;

let a: TestApp;
let b: TestApp;
const base: Record<'a' | 'b', string> = { a: '', b: '' };

beforeAll(async () => {
  a = await startTestApp(ENV);
  b = await startTestApp(ENV, a.db);
  for (const [name, app] of [['a', a], ['b', b]] as const) {
    await app.app.listen(0, '127.0.0.1');
    base[name] = `http://127.0.0.1:${(app.app.getHttpServer().address() as AddressInfo).port}`;
  }
});
afterAll(async () => {
  await b.close();
  await a.close();
});

/** Runs `jobs` with at most `width` in flight. */
async function pool(width: number, jobs: (() => Promise<unknown>)[]): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < jobs.length) await jobs[next++]();
  }));
}

it('a paging consumer and a reconnecting stream consumer both get every committed event once, in one order', async () => {
  const started = Date.now();
  const g = await authedGame(a);
  const groups: string[] = [];
  for (let i = 0; i < GROUPS; i++) {
    const r = await a.http.post('/v1/groups').set(g.auth).send({ kind: 'guild', name: `G${i}`, visibility: 'public' });
    groups.push(r.body.id);
  }
  const [{ id: start }] = await a.db.query<{ id: string }>(`SELECT id FROM ${journalEvents()} WHERE game_id = $1 ORDER BY era DESC, xid DESC, seq DESC LIMIT 1`, [g.gameId]);

  // ---- consumer 1: pages the feed on instance a, random page sizes, until told to stop ----
  let stop = false;
  const paged: string[] = [];
  const pager = (async () => {
    let after = start;
    for (;;) {
      const limit = 1 + Math.floor(Math.random() * 40);
      const r = await a.http.get(`/v1/events/feed?after=${after}&limit=${limit}`).set(g.auth);
      if (r.status !== 200) throw new Error(`feed: ${r.status} ${r.text}`);
      paged.push(...r.body.items.map((e: { id: string }) => e.id));
      after = r.body.nextAfter;
      if (r.body.items.length === 0) {
        if (stop) return;
        await sleep(10);
      }
    }
  })();

  // ---- consumer 2: follows the game's stream on instance b, reconnecting with Last-Event-ID ----
  const streamed: string[] = [];
  const current: { stream?: SseStream } = {};
  let reconnects = 0;
  const connect = async (on: 'a' | 'b') => {
    const last = streamed.length ? streamed[streamed.length - 1] : start;
    const s = await openSse(base[on], '/v1/events', { ...g.auth, 'last-event-id': last });
    if (s.status !== 200) throw new Error(`stream: ${s.status} ${JSON.stringify(s.body)}`);
    let taken = 0;
    const take = () => {
      const ids = s.ids();
      while (taken < ids.length) streamed.push(ids[taken++]);
    };
    s.onData(take);
    current.stream = s;
  };
  await connect('b');
  const reconnector = (async () => {
    while (!stop) {
      await sleep(250 + Math.random() * 400);
      if (stop) break;
      current.stream?.close();
      reconnects++;
      await connect(reconnects === 2 ? 'a' : 'b');
    }
  })();

  // ---- the mutations ----
  const held: { id: string; commit: boolean }[] = [];
  const holdOpen = async (i: number) => {
    const c = new Client({ connectionString: a.db.url });
    c.on('error', () => undefined);
    await c.connect();
    const id = randomBytes(12).toString('hex');
    const commit = i % 3 !== 0;
    try {
      await c.query('BEGIN');
      // Staged as the unit of work stages an event: the row, then the announcement with the commit.
      await c.query(
        insertEventsSql(
          `SELECT $1::text, $2::uuid, $3::uuid, 'group.updated',
                  jsonb_build_object('id', $1::text, 'type', 'group.updated', 'gameId', $2::text, 'groupId', $3::text, 'occurredAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`,
        ),
        [id, g.gameId, groups[i % GROUPS]],
      );
      await c.query(`SELECT pg_notify('svc_events', $1)`, [g.gameId]);
      await c.query('SELECT pg_sleep($1)', [0.1 + Math.random() * 0.9]);
      await c.query(commit ? 'COMMIT' : 'ROLLBACK');
      held.push({ id, commit });
    } finally {
      await c.end();
    }
  };
  /** A real update that waits on a row lock inside its transaction, then commits. */
  const lockedUpdate = async (i: number) => {
    const c = new Client({ connectionString: a.db.url });
    c.on('error', () => undefined);
    await c.connect();
    try {
      await c.query('BEGIN');
      await c.query('SELECT 1 FROM groups WHERE id = $1 FOR UPDATE', [groups[i % GROUPS]]);
      const app = i % 2 ? a : b;
      const update = app.http.patch(`/v1/groups/${groups[i % GROUPS]}`).set(g.auth).send({ name: `renamed ${i}` });
      const done = update.then((r) => r);
      await sleep(150 + Math.random() * 300);
      await c.query('COMMIT');
      const r = await done;
      if (r.status !== 200) throw new Error(`update: ${r.status} ${r.text}`);
    } finally {
      await c.end();
    }
  };
  const user = (i: number) => `user-${i}`;
  const join = async (i: number) => {
    const app = i % 2 ? a : b;
    const r = await app.http.post(`/v1/groups/${groups[i % GROUPS]}/join`).set(g.auth).send({ userId: user(i) });
    if (r.status !== 201) throw new Error(`join: ${r.status} ${r.text}`);
    if (i % 4 === 0) {
      const l = await app.http.post(`/v1/groups/${groups[i % GROUPS]}/leave`).set(g.auth).send({ userId: user(i) });
      if (l.status !== 200) throw new Error(`leave: ${l.status} ${l.text}`);
    }
  };
  /** Refused inside its transaction (already a member): rolled back, no event. */
  const refused = async (i: number) => {
    const r = await b.http.post(`/v1/groups/${groups[1]}/join`).set(g.auth).send({ userId: user(1 + 8 * i) });
    if (r.status !== 409) throw new Error(`refused join: ${r.status} ${r.text}`);
  };

  const jobs: (() => Promise<unknown>)[] = [
    ...Array.from({ length: JOINS }, (_, i) => () => join(i)),
    ...Array.from({ length: HELD }, (_, i) => () => holdOpen(i)),
    ...Array.from({ length: LOCKED_UPDATES }, (_, i) => () => lockedUpdate(i)),
  ];
  jobs.sort(() => Math.random() - 0.5);
  await pool(24, jobs);
  await pool(4, Array.from({ length: REFUSED }, (_, i) => () => refused(i % 20)));

  // ---- everything committed: both consumers must catch up to exactly it ----
  const committed = (
    await a.db.query<{ id: string }>(
      `SELECT o.id FROM ${journalEvents('o')}, ${journalEvents('s')}
       WHERE s.id = $2 AND o.game_id = $1 AND (o.era, o.xid, o.seq) > (s.era, s.xid, s.seq) ORDER BY o.era, o.xid, o.seq`,
      [g.gameId, start],
    )
  ).map((r) => r.id);
  const until = Date.now() + 60_000;
  while ((paged.length < committed.length || streamed.length < committed.length) && Date.now() < until) await sleep(50);
  await sleep(300); // anything extra (a repeat) would show up now
  stop = true;
  await reconnector;
  await pager;
  current.stream?.close();

  const rolledBack = held.filter((h) => !h.commit).map((h) => h.id);
  const heldCommitted = held.filter((h) => h.commit).map((h) => h.id);
  expect(rolledBack.length).toBeGreaterThan(5);
  expect(committed.length).toBeGreaterThan(JOINS + JOINS / 4);
  expect(committed).toEqual(expect.arrayContaining(heldCommitted));
  expect(new Set(paged).size).toBe(paged.length);
  expect(new Set(streamed).size).toBe(streamed.length);
  expect(paged).toEqual(committed);
  expect(streamed).toEqual(committed);
  expect(paged.some((id) => rolledBack.includes(id))).toBe(false);
  expect(reconnects).toBeGreaterThanOrEqual(2);
  // eslint-disable-next-line no-console
  console.log(`feed concurrency: ${committed.length} events, ${heldCommitted.length} held then committed, ${rolledBack.length} rolled back, ${reconnects} reconnects, ${Date.now() - started} ms`);
});
