import { request as httpRequest } from 'node:http';
import { http, sleep } from '../helpers/process';
import { insertAuditSql } from '../helpers/journal';
import { caseContext, createGame, expectStatus, startInstance, type Game, type Instance } from './helpers/service';

/**
 * The finding this closes: ten exports of one game's player with ~12 MiB of history, each read a
 * few bytes and then paused, held ten pooled connections until the idle-in-transaction timeout,
 * and another game's `GET /v1/groups?limit=1` went from 6 ms to a 10 s wait and a 503. Here the
 * same attack runs against the real process with its default pool, and the other game's p99 is
 * measured before and while the exports stall.
 */
const REQUESTS = 300;
const ROUNDS = 5;
const STALLED = 10;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** `REQUESTS` calls of the other game's one-row page, four at a time; their latencies (ms). */
async function latencies(base: string, key: string): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next++ < REQUESTS) {
      const started = performance.now();
      const r = await http(`${base}/v1/groups?limit=1`, { headers: { authorization: `Bearer ${key}` } });
      times.push(performance.now() - started);
      if (r.status !== 200) throw new Error(`the other game's read answered ${r.status}: ${r.text}`);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return times;
}

/** An export read until its first bytes, then paused; resolves with its status and a way to drop it. */
function stalledExport(base: string, key: string, userId: string): Promise<{ status: number; drop: () => void }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}/v1/users/${userId}/export`, { agent: false, headers: { authorization: `Bearer ${key}` } }, (res) => {
      const drop = () => req.destroy();
      if (res.statusCode !== 200) {
        res.resume();
        return resolve({ status: res.statusCode ?? 0, drop });
      }
      res.once('data', () => {
        res.pause();
        resolve({ status: 200, drop });
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? undefined : reject(err)));
    req.end();
  });
}

describe('bulkheads: one game stalling its exports', () => {
  let ctx: Awaited<ReturnType<typeof caseContext>>;
  let svc: Instance;
  let hoarding: Game;
  let other: Game;

  beforeAll(async () => {
    ctx = await caseContext();
    svc = await startInstance(ctx.db, { LOG_LEVEL: 'info' });
    hoarding = await createGame(svc.base, 'hoarding', ctx.secrets);
    other = await createGame(svc.base, 'bystander', ctx.secrets);
    const call = (game: Game, path: string, body: unknown, status: number) =>
      expectStatus(http(`${svc.base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${game.key}` }, body }), status);
    const group = (await call(hoarding, '/v1/groups', { kind: 'guild', name: 'Hoard', visibility: 'public', creatorUserId: 'hoarder' }, 201)).body;
    for (let i = 0; i < 20; i++) await call(other, '/v1/groups', { kind: 'guild', name: `Elsewhere ${i}`, visibility: 'public' }, 201);
    // ~12 MiB of the player's history: audit entries and events naming them, as the member routes write them.
    const [svcUser] = await ctx.db.query<{ user_id: string }>('SELECT user_id FROM user_identities WHERE game_id = $1 AND external_id = $2', [hoarding.id, 'hoarder']);
    await ctx.db.query(
      insertAuditSql(
        ['id', 'game_id', 'group_id', 'actor_user_id', 'action', 'target_id', 'payload', 'created_at'],
        `SELECT svc_uuidv7(), $1::uuid, $2::uuid, $3::uuid, 'member.updated', 'hoarder',
         jsonb_build_object('before', jsonb_build_object('metadata', jsonb_build_object('title', repeat(md5(n::text), 4))),
                            'after', jsonb_build_object('metadata', jsonb_build_object('title', repeat(md5((n + 1)::text), 4)))),
         now() - make_interval(secs => 40000 - n)
       FROM generate_series(1, 30000) n`,
      ),
      [hoarding.id, group.id, svcUser.user_id],
    );
    await ctx.db.query('ANALYZE journal');
  }, 300_000);

  afterAll(async () => {
    await svc?.stop();
    await ctx?.done();
  }, 60_000);

  it(`keeps another game's p99 near its own while ${STALLED} exports of one game stall, and holds no connection for them`, async () => {
    await latencies(svc.base, other.key); // warm
    // Rounds of the other game's reads without and with stalled exports, alternating, so that the
    // machine's own drift (two cores shared with PostgreSQL and this client) falls on both alike.
    const before: number[] = [];
    const during: number[] = [];
    type Health = { status: string; load: { saturated: boolean } };
    let health: Health | undefined;
    for (let round = 0; round < ROUNDS; round++) {
      before.push(...(await latencies(svc.base, other.key)));
      const exports = await Promise.all(Array.from({ length: STALLED }, () => stalledExport(svc.base, hoarding.key, 'hoarder')));
      try {
        const statuses = exports.map((e) => e.status);
        // Four in flight per game; the rest refused at once (429 with Retry-After), not queued on the pool.
        expect(statuses.filter((st) => st === 200)).toHaveLength(4);
        expect(statuses.filter((st) => st === 429)).toHaveLength(STALLED - 4);
        await untilNoSessionBusy();
        during.push(...(await latencies(svc.base, other.key)));
        health ??= (await http(`${svc.base}/healthz`)).body as Health;
      } finally {
        for (const e of exports) e.drop();
      }
      // The dropped answers free their game's export slots as their spools close.
      await sleep(1_000);
    }
    before.sort((a, b) => a - b);
    during.sort((a, b) => a - b);
    const p = (xs: number[], q: number) => +percentile(xs, q).toFixed(2);
    process.stdout.write(
      `bulkheads: other game's GET /v1/groups?limit=1 x${before.length} each, p50 ${p(before, 50)} -> ${p(during, 50)} ms, p99 ${p(before, 99)} -> ${p(during, 99)} ms ` +
        `with 4 exports of ~12 MiB stalled (${STALLED - 4} more refused 429); healthz ${health?.status}, saturated ${health?.load.saturated}\n`,
    );
    // Before the bulkheads this read waited 10 s and answered 503. The bound is the 20 %,
    // or 10 ms where that is less than the jitter of two shared cores at this tail (seen: 15.8 ->
    // 20.9 ms in one CI run, 19.6 -> 19.3 in another, with the same build).
    const beforeP99 = percentile(before, 99);
    expect(percentile(during, 99)).toBeLessThanOrEqual(Math.max(beforeP99 * 1.2, beforeP99 + 10));
    expect(during.every((ms) => ms < 1_000)).toBe(true);
    expect(health).toMatchObject({ status: 'ok', load: { saturated: false } });
  }, 600_000);

  /** Each export gives its connection back once its document is read, whatever its client does. */
  async function untilNoSessionBusy(): Promise<void> {
    for (let i = 0; ; i++) {
      const [busy] = await ctx.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'guildhall' AND state <> 'idle'`,
      );
      if (busy.n === 0) return;
      if (i > 300) throw new Error(`${busy.n} sessions still busy 30 s after the exports stalled`);
      await sleep(100);
    }
  }
});
