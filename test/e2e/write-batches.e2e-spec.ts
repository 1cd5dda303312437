import { Client } from 'pg';
import type { Gauge } from 'prom-client';
import { MetricsRegistry } from '../../src/observability/metrics/metrics-registry';
import { expectError } from '../helpers/errors';
import { postGroup, postJoin, postLeave } from '../helpers/groups';
import { journalAudit, journalEvents } from '../helpers/journal';
import { asAdmin, authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Joins and leaves sharing transactions while they wait for one (WRITE_BATCH_MAX, UnitOfWork): on
 * two lanes, parallel requests queue and ride together. Each answers as it would alone, the cap and
 * the exclusive kinds hold, a batch that fails runs its writes again one by one, and one whose COMMIT
 * may have gone is never run again.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER_ENABLED: 'false', DATABASE_POOL_MAX: '2', WRITE_BATCH_MAX: '8' });
});
afterAll(() => t.close());

type Auth = Record<string, string>;

const count = async (sql: string, params: unknown[]) => (await t.db.query<{ n: number }>(sql, params))[0].n;
const activeCount = (groupId: string) => count(`SELECT count(*)::int AS n FROM members WHERE group_id = $1 AND status = 'active'`, [groupId]);
/** Transactions that wrote the game's journal rows of `type`. */
const transactionsOf = (gameId: string, type: string) => count(`SELECT count(DISTINCT xid)::int AS n FROM ${journalEvents()} WHERE game_id = $1 AND type = $2`, [gameId, type]);
const publicGroup = (auth: Auth, name: string, body: Record<string, unknown> = {}) => postGroup(t, auth, { kind: 'guild', name, visibility: 'public', ...body });
const players = (n: number, prefix = 'p') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('batched joins and leaves', () => {
  it('forty parallel joins over four groups share transactions, each answered and recorded as alone, the feed in commit order', async () => {
    const g = await authedGame(t);
    const groups: { id: string }[] = [];
    for (let i = 0; i < 4; i++) groups.push(await publicGroup(g.auth, `g${i}`));
    const joins = players(40).map((u, i) => ({ u, groupId: groups[i % 4].id }));
    const answers = await Promise.all(joins.map(({ u, groupId }) => postJoin(t, g.auth, groupId, { userId: u })));
    answers.forEach((r, i) => {
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ groupId: joins[i].groupId, userId: joins[i].u, status: 'active' });
    });
    expect(await transactionsOf(g.gameId, 'member.joined')).toBeLessThan(40);
    const rows = await t.db.query<{ member: string; n: number }>(
      `SELECT e.body->'member'->>'userId' AS member, count(*)::int AS n FROM ${journalEvents()} WHERE e.game_id = $1 AND e.type = 'member.joined' GROUP BY 1`,
      [g.gameId],
    );
    expect(rows.map((r) => [r.member, r.n]).sort()).toEqual(joins.map((j) => [j.u, 1]).sort());
    expect(await count(`SELECT count(*)::int AS n FROM ${journalAudit()} WHERE a.game_id = $1 AND a.action = 'member.joined'`, [g.gameId])).toBe(40);
    for (const group of groups) expect(await activeCount(group.id)).toBe(10);

    // Then each leaves while as many others join: every player's events come joined, then left.
    const more = players(40, 'q').map((u, i) => ({ u, groupId: groups[i % 4].id }));
    const second = await Promise.all([
      ...joins.map(({ u, groupId }) => postLeave(t, g.auth, groupId, { userId: u })),
      ...more.map(({ u, groupId }) => postJoin(t, g.auth, groupId, { userId: u })),
    ]);
    expect(second.map((r) => r.status)).toEqual([...joins.map(() => 200), ...more.map(() => 201)]);
    for (const group of groups) expect(await activeCount(group.id)).toBe(10);
    const stored = await t.db.query<{ id: string; type: string; member: string }>(
      `SELECT e.id, e.type, e.body->'member'->>'userId' AS member FROM ${journalEvents()} WHERE e.game_id = $1 ORDER BY e.era, e.xid, e.seq`,
      [g.gameId],
    );
    const fed = await feedOf(g.auth, stored.length);
    expect(fed).toEqual(stored.map((s) => s.id));
    for (const { u } of joins) expect(stored.filter((s) => s.member === u).map((s) => s.type)).toEqual(['member.joined', 'member.left']);
  });

  it('a batch with writes that fail answers each as alone: the refusals write nothing, the others are made', async () => {
    const g = await authedGame(t);
    const open = await publicGroup(g.auth, 'open');
    const secret = await postGroup(t, g.auth, { kind: 'guild', name: 'hidden', visibility: 'secret' });
    const inviteOnly = await postGroup(t, g.auth, { kind: 'guild', name: 'closed', visibility: 'invite-only' });
    expect((await postJoin(t, g.auth, open.id, { userId: 'already' })).status).toBe(201);
    const asks = players(24).map((u, i) => {
      const which = i % 4;
      if (which === 1) return { u, groupId: secret.id, expect: [404, 'not_found'] as const };
      if (which === 2) return { u, groupId: inviteOnly.id, expect: [403, 'permission_denied'] as const };
      if (which === 3) return { u: 'already', groupId: open.id, expect: [409, 'already_member'] as const };
      return { u, groupId: open.id, expect: [201, null] as const };
    });
    const leaves = players(6, 'never').map((u) => postLeave(t, g.auth, open.id, { userId: u }));
    const answers = await Promise.all(asks.map((a) => postJoin(t, g.auth, a.groupId, { userId: a.u })));
    answers.forEach((r, i) => {
      const [status, code] = asks[i].expect;
      if (code === null) expect(r.status).toBe(status);
      else expectError(r, status, code);
    });
    for (const r of await Promise.all(leaves)) expectError(r, 404, 'not_found');
    expect(await activeCount(open.id)).toBe(1 + 6);
    expect(await activeCount(secret.id)).toBe(0);
    expect(await activeCount(inviteOnly.id)).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM ${journalEvents()} WHERE e.game_id = $1 AND e.type = 'member.joined'`, [g.gameId])).toBe(1 + 6);
  });

  it('a hundred parallel joins of a group with six free places admit exactly six', async () => {
    const g = await authedGame(t);
    const group = await publicGroup(g.auth, 'capped', { maxMembers: 6 });
    const answers = await Promise.all(players(100).map((u) => postJoin(t, g.auth, group.id, { userId: u })));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(6);
    for (const r of answers.filter((a) => a.status !== 201)) expectError(r, 409, 'group_full');
    expect(await activeCount(group.id)).toBe(6);
    expect((await t.http.get(`/v1/groups/${group.id}`).set(g.auth)).body.memberCount).toBe(6);
  });

  it("a player's parallel joins of ten groups of an exclusive kind admit one", async () => {
    const g = await authedGame(t);
    const r = await t.http.patch(`/v1/admin/games/${g.gameId}/config`).set(asAdmin).send({ config: { groups: { exclusiveKinds: ['clan'] } } });
    expect(r.status).toBe(200);
    const clans: { id: string }[] = [];
    for (let i = 0; i < 10; i++) clans.push(await postGroup(t, g.auth, { kind: 'clan', name: `c${i}`, visibility: 'public' }));
    const answers = await Promise.all(clans.map((c) => postJoin(t, g.auth, c.id, { userId: 'loyal' })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 201)) expectError(a, 409, 'already_in_group_of_kind');
    expect(await count(`SELECT count(*)::int AS n FROM members m JOIN groups gr ON gr.id = m.group_id WHERE gr.game_id = $1 AND m.status = 'active' AND m.external_user_id = 'loyal'`, [g.gameId])).toBe(1);
  });

  it('a batch failed before its COMMIT runs each write again alone; one whose connection is lost in its COMMIT round trip answers 503 and is not run again', async () => {
    for (const lostInCommit of [false, true]) {
      const g = await authedGame(t);
      const group = await publicGroup(g.auth, 'gated');
      await withJournalGate(async (gate) => {
        // Two writes alone take both lanes and wait at the gate; ten queue behind them.
        const fillers = Promise.all(['f1', 'f2'].map((u) => postJoin(t, g.auth, group.id, { userId: u })));
        const fillerPids = await gate.waiters(2);
        const queued = Promise.all(players(10).map((u) => postJoin(t, g.auth, group.id, { userId: u })));
        await until(async () => (await waitingWrites()) === 10);
        // Ended from outside, their COMMIT's outcome unknown: 503, as any write's.
        for (const pid of fillerPids) await gate.end(pid, true);
        for (const r of await fillers) expectError(r, 503, 'service_unavailable');
        // The lanes came free together: the ten went as two batches (up to eight), each now at the gate.
        const [batch] = await gate.waiters(2, fillerPids);
        await gate.end(batch, lostInCommit);
        gate.open();
        const statuses = (await queued).map((r) => r.status);
        if (lostInCommit) {
          const lost = statuses.filter((s) => s === 503).length;
          expect(lost).toBeGreaterThanOrEqual(2);
          expect(statuses.filter((s) => s === 201)).toHaveLength(10 - lost);
          expect(await activeCount(group.id)).toBe(10 - lost);
        } else {
          expect(statuses).toEqual(players(10).map(() => 201));
          expect(await activeCount(group.id)).toBe(10);
        }
      });
    }
  });
});

const until = async (done: () => Promise<boolean>) => {
  const end = Date.now() + 15_000;
  while (!(await done())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((ok) => setTimeout(ok, 10));
  }
};

async function waitingWrites(): Promise<number> {
  const gauge = t.app.get(MetricsRegistry).registry.getSingleMetric('svc_write_batch_waiting') as Gauge;
  return (await gauge.get()).values[0]?.value ?? 0;
}

/** The game's feed, read until it shows `n` events, as its ids. */
async function feedOf(auth: Auth, n: number): Promise<string[]> {
  const until = Date.now() + 15_000;
  for (;;) {
    const r = await t.http.get('/v1/events/feed?limit=1000').set(auth);
    expect(r.status).toBe(200);
    if (r.body.items.length >= n || Date.now() > until) return r.body.items.map((e: { id: string }) => e.id);
    await new Promise((ok) => setTimeout(ok, 25));
  }
}

/**
 * A lock the journal's inserts wait on while the test holds it (a trigger on this test database's
 * journal), so a write can be caught in its flush, the statement its COMMIT rides with.
 */
interface Gate {
  /** The first `n` backends waiting at the gate but `besides`, once there are that many. */
  waiters(n: number, besides?: number[]): Promise<number[]>;
  /** Ends a waiting backend: terminated (the connection lost, a COMMIT of unknown outcome) or its statement cancelled (an error answered). */
  end(pid: number, terminate: boolean): Promise<void>;
  open(): void;
}

async function withJournalGate(body: (gate: Gate) => Promise<void>) {
  const holder = new Client({ connectionString: t.db.url });
  await holder.connect();
  await t.db.query(`CREATE FUNCTION test_journal_gate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_advisory_xact_lock_shared(4242); RETURN NEW; END $$`);
  await t.db.query('CREATE TRIGGER test_journal_gate BEFORE INSERT ON journal FOR EACH ROW EXECUTE FUNCTION test_journal_gate()');
  await holder.query('BEGIN');
  await holder.query('SELECT pg_advisory_xact_lock(4242)');
  let opened = false;
  const open = () => {
    if (!opened) void holder.query('COMMIT');
    opened = true;
  };
  const waiting = async (besides: number[]) =>
    (
      await t.db.query<{ pid: number }>(
        `SELECT a.pid FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid AND l.locktype = 'advisory' AND NOT l.granted
         WHERE a.datname = current_database() AND NOT a.pid = ANY ($1::int[]) ORDER BY a.query_start`,
        [besides],
      )
    ).map((r) => r.pid);
  try {
    await body({
      open,
      async waiters(n, besides = []) {
        let pids: number[] = [];
        await until(async () => (pids = await waiting(besides)).length >= n);
        return pids.slice(0, n);
      },
      async end(pid, terminate) {
        await t.db.query(terminate ? 'SELECT pg_terminate_backend($1, 5000)' : 'SELECT pg_cancel_backend($1)', [pid]);
      },
    });
  } finally {
    open();
    await holder.end();
    await t.db.query('DROP TRIGGER test_journal_gate ON journal');
    await t.db.query('DROP FUNCTION test_journal_gate()');
  }
}
