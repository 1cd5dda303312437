import { readdirSync, readlinkSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { EXPORTS_IN_FLIGHT_PER_GAME } from '../../src/common/bulkhead/game-reads';
import { SPOOL_FILE_PREFIX } from '../../src/users/export-spool';
import { expectError } from '../helpers/errors';
import { joinOk, postGroup } from '../helpers/groups';
import { identityOf } from '../helpers/identities';
import { seqUid as uid } from '../helpers/ids';
import { insertAuditSql, insertEventsSql, journalAudit } from '../helpers/journal';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * Exports whose clients stop reading (the security finding): an export reads its whole document
 * from the snapshot into a spool and gives its connection back at the database's pace, never the
 * client's; the answer streams from the spool. A game's exports in flight are bounded, the spool
 * leaves nothing on disk, and a stalled reader still gets the whole, right document when it
 * resumes.
 */

jest.setTimeout(180_000);

// The spools of this process's server: in os.tmpdir(), named with the process id.
const spoolPrefix = `${SPOOL_FILE_PREFIX}${process.pid}-`;

type Auth = Record<string, string>;
type Doc = { exportedAt: string; audit: { action: string }[]; events: unknown[] } & Record<string, unknown>;

let t: TestApp;
let port: number;
let pool: { totalCount: number; idleCount: number; waitingCount: number };

beforeAll(async () => {
  // As many connections as a game may have exports in flight: before the spool, that many stalled
  // readers held the whole pool. No idle-in-transaction timeout to free them meanwhile. All of them
  // read at once (by default half the pool would, the others waiting at most 5 s for a slot: a
  // loaded machine's reads of this history outlast that, and the wait is not what this tests).
  t = await startTestApp({
    DATABASE_POOL_MAX: String(EXPORTS_IN_FLIGHT_PER_GAME),
    GAME_READ_CONCURRENCY: String(EXPORTS_IN_FLIGHT_PER_GAME),
    DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '0',
    WEBHOOK_WORKER_ENABLED: 'false',
  });
  await t.app.listen(0, '127.0.0.1');
  port = (t.app.getHttpServer().address() as AddressInfo).port;
  pool = (t.app.get(DataSource).driver as unknown as { master: typeof pool }).master;
});
afterAll(() => t?.close());

const enc = encodeURIComponent;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Checks `cond` every 50 ms until it holds or `ms` have passed; the last result. */
async function within(ms: number, cond: () => boolean | Promise<boolean>): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await cond()) return true;
    if (Date.now() > end) return false;
    await sleep(50);
  }
}

/** The spool files this process holds open: a spool unlinked at once shows as `(deleted)`. */
function openSpoolFiles(): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(join(tmpdir(), spoolPrefix))) out.push(target);
    } catch {
      // closed between the listing and the read
    }
  }
  return out;
}

/** The spool files of this process that have a name in the directory. */
const namedSpoolFiles = () => readdirSync(tmpdir()).filter((name) => name.startsWith(spoolPrefix));

/** The service's sessions on the test database that sit in a transaction or run a statement. */
async function busySessions(): Promise<number> {
  const [row] = await t.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND application_name = 'guildhall' AND state IN ('idle in transaction', 'active')`,
  );
  return row.n;
}

const poolIdle = () => pool.idleCount === pool.totalCount && pool.waitingCount === 0;

interface Reader {
  status: number;
  headers: IncomingHttpHeaders;
  /** Resumes reading and resolves with the whole body, or rejects when the answer is cut. */
  finish(): Promise<string>;
  /** Drops the connection. */
  abandon(): void;
}

/** A GET read by a raw client that takes the first chunk and then stops reading (res.pause()). */
function startStalled(path: string, auth: Auth): Promise<Reader> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: false, headers: auth }, (res) => {
      const parts: Buffer[] = [];
      const ended = new Promise<string>((done, cut) => {
        res.on('end', () => done(Buffer.concat(parts).toString('utf8')));
        res.on('aborted', () => cut(new Error('answer cut short')));
        res.on('error', cut);
      });
      ended.catch(() => undefined);
      const reader: Reader = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        finish: () => {
          res.on('data', (d: Buffer) => parts.push(d));
          res.resume();
          return ended;
        },
        abandon: () => req.destroy(),
      };
      res.once('data', (first: Buffer) => {
        parts.push(first);
        res.pause();
        resolve(reader);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** A GET read at full speed: status, headers and body. */
function fetchWhole(path: string, auth: Auth): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: false, headers: auth }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * The document as any snapshot of the unchanged history gives it, as text: the time it was taken,
 * and the records of the exports themselves, set aside. Throws unless it is valid JSON.
 */
function comparable(text: string): string {
  const { exportedAt: _at, ...doc } = JSON.parse(text) as Doc;
  return JSON.stringify({ ...doc, audit: doc.audit.filter((a) => a.action !== 'user.exported') });
}

/**
 * A player's long history, as the member routes write it: `entries` audit entries of metadata
 * changes targeting them (before and after, about 0.4 KB each in the document) and `events`
 * member.updated events naming them.
 */
async function seedHistory(gameId: string, groupId: string, userId: string, entries: number, events: number): Promise<void> {
  const svcUserId = await identityOf(t, gameId, userId);
  await t.db.query(
    insertAuditSql(
      ['id', 'game_id', 'group_id', 'actor_user_id', 'action', 'target_id', 'payload', 'created_at'],
      `SELECT svc_uuidv7(), $1::uuid, $2::uuid, $3::uuid, 'member.updated', $4::text,
       jsonb_build_object('memberId', gen_random_uuid(),
         'before', jsonb_build_object('metadata', jsonb_build_object('class', 'ranger', 'level', n, 'title', 'Warden of the ' || md5(n::text))),
         'after', jsonb_build_object('metadata', jsonb_build_object('class', 'ranger', 'level', n + 1, 'title', 'Warden of the ' || md5((n + 1)::text)))),
       now() - make_interval(secs => $5::int - n)
     FROM generate_series(1, $5::int) n`,
    ),
    [gameId, groupId, svcUserId, userId, entries],
  );
  await t.db.query(
    insertEventsSql(
      `SELECT e.id, $1::uuid, $2::uuid, 'member.updated',
       jsonb_build_object('id', e.id, 'type', 'member.updated', 'gameId', $1::text, 'groupId', $2::text, 'occurredAt', now(),
         'member', jsonb_build_object('userId', $3::text, 'groupId', $2::text, 'status', 'active', 'roles', '[]'::jsonb,
           'metadata', jsonb_build_object('class', 'ranger', 'level', n, 'title', 'Warden of the ' || md5(n::text))),
         'changes', jsonb_build_array('metadata'))
     FROM generate_series(1, $4::int) n, LATERAL (SELECT substr(md5(random()::text || n), 1, 24) AS id) e`,
    ),
    [gameId, groupId, userId, events],
  );
  await t.db.query('ANALYZE journal');
}

describe('exports whose clients stop reading', () => {
  let game: { gameId: string; auth: Auth };
  let other: { gameId: string; auth: Auth };
  const hoarder = uid('hoarder');
  const bystander = uid('bystander');
  const path = `/v1/users/${enc(hoarder)}/export`;
  let stalled: Reader[] = [];

  beforeAll(async () => {
    game = await authedGame(t, 'stalled exports');
    other = await authedGame(t, 'another game');
    const g = await postGroup<{ id: string }>(t, game.auth, { kind: 'guild', name: 'Wardens', visibility: 'public' });
    await joinOk(t, game.auth, g.id, hoarder);
    await seedHistory(game.gameId, g.id, hoarder, 36_000, 4_000);
    const og = await postGroup<{ id: string }>(t, other.auth, { kind: 'guild', name: 'Elsewhere', visibility: 'public' });
    await joinOk(t, other.auth, og.id, bystander);

    stalled = await Promise.all(Array.from({ length: EXPORTS_IN_FLIGHT_PER_GAME }, () => startStalled(path, game.auth)));
    expect(stalled.map((r) => r.status)).toEqual(Array(EXPORTS_IN_FLIGHT_PER_GAME).fill(200));
  });
  afterAll(() => {
    for (const r of stalled) r.abandon();
  });

  it('(a) every export gives its connection back within seconds while its reader stays paused', async () => {
    // The readers never resume: any bound tells the database's pace from theirs (before the spool,
    // the connections stayed held for good, with no idle-in-transaction timeout here).
    // A moment with every connection idle and no session busy, all the exports still in flight, is
    // the proof; a later look may meet a background task (a sweep) holding one for its own work.
    expect(await within(30_000, async () => poolIdle() && (await busySessions()) === 0)).toBe(true);
  });

  it('(b) meanwhile another game is served at once', async () => {
    const t0 = Date.now();
    const r = await t.http.get('/v1/groups?limit=1').set(other.auth);
    expect({ status: r.status, fast: Date.now() - t0 < 2_000 }).toEqual({ status: 200, fast: true });
  });

  it('(e) each stalled answer is spooled to a file already unlinked: nothing of it is in the directory', () => {
    expect(openSpoolFiles()).toHaveLength(EXPORTS_IN_FLIGHT_PER_GAME);
    for (const f of openSpoolFiles()) expect(f).toMatch(/ \(deleted\)$/);
    expect(namedSpoolFiles()).toEqual([]);
  });

  it(`(d) export number ${EXPORTS_IN_FLIGHT_PER_GAME + 1} of the same game is 429 with Retry-After; another game exports`, async () => {
    const refused = await t.http.get(path).set(game.auth);
    expectError(refused, 429, 'rate_limit_exceeded');
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body.message).toContain('exports');
    const elsewhere = await t.http.get(`/v1/users/${enc(bystander)}/export`).set(other.auth);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.userId).toBe(bystander);
  });

  it('(c) resumed, each reader gets the whole document, the same as one read at full speed', async () => {
    const texts = await Promise.all(stalled.map((r) => r.finish()));
    const whole = await fetchWhole(path, game.auth);
    expect(whole.status).toBe(200);
    expect(whole.text.length).toBeGreaterThan(12 * 2 ** 20);
    const expected = comparable(whole.text);
    expect((JSON.parse(expected) as Doc).audit).toHaveLength(36_000 + 1);
    // Compared as text: the documents are some 15 MB each.
    expect(texts.map((text) => comparable(text) === expected)).toEqual(Array(texts.length).fill(true));
  });

  it('(e) once the answers ended, no spool is left, on disk or open', async () => {
    expect(await within(2_000, () => openSpoolFiles().length === 0)).toBe(true);
    expect(namedSpoolFiles()).toEqual([]);
  });

  it('(e) a client that disconnects mid-way leaves no spool either, and its slot is free again', async () => {
    const readers = await Promise.all(Array.from({ length: EXPORTS_IN_FLIGHT_PER_GAME }, () => startStalled(path, game.auth)));
    try {
      // A spool's file is made once more than its memory and the socket hold is written: on a loaded
      // machine, four exports read that much of the history in as long as (a) allows them.
      expect(await within(30_000, () => openSpoolFiles().length === EXPORTS_IN_FLIGHT_PER_GAME)).toBe(true);
    } finally {
      // Abandoned whatever happened: readers left paused would hold the game's slots for the next test.
      for (const r of readers) r.abandon();
    }
    expect(await within(5_000, () => openSpoolFiles().length === 0)).toBe(true);
    expect(namedSpoolFiles()).toEqual([]);
    // The readers never resume: any bound tells the database's pace from theirs (before the spool,
    // the connections stayed held for good, with no idle-in-transaction timeout here).
    expect(await within(30_000, async () => poolIdle() && (await busySessions()) === 0)).toBe(true);
    // Every slot of the game's was given back: as many exports as ever run again.
    const again = await Promise.all(Array.from({ length: EXPORTS_IN_FLIGHT_PER_GAME }, () => startStalled(path, game.auth)));
    for (const r of again) r.abandon();
    expect(again.map((r) => r.status)).toEqual(Array(EXPORTS_IN_FLIGHT_PER_GAME).fill(200));
    expect(await within(8_000, () => openSpoolFiles().length === 0)).toBe(true);
    // Their slots free again before the next test asks for one.
    expect(await within(30_000, async () => poolIdle() && (await busySessions()) === 0)).toBe(true);
  });
  it('a database lost mid-export cuts the answer short, is logged, and leaves no spool, connection or slot behind', async () => {
    const logged = [jest.spyOn(Logger.prototype, 'warn'), jest.spyOn(Logger.prototype, 'error')];
    const locker = new Client({ connectionString: t.db.url });
    await locker.connect();
    try {
      const exported = async () =>
        (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${journalAudit()} WHERE action = 'user.exported' AND target_id = $1`, [hoarder]))[0].n;
      const before = await exported();
      const reading = startStalled(path, game.auth);
      // Once the export is recorded its snapshot opens; its notifications, read after the audit
      // entries and events (both from the journal, which the snapshot may already hold a lock on),
      // are held behind a lock the test takes, and the export's connection is ended while it waits there.
      expect(await within(5_000, async () => (await exported()) > before)).toBe(true);
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE notifications IN ACCESS EXCLUSIVE MODE');
      let victim: number | undefined;
      expect(
        await within(10_000, async () => {
          const [row] = await t.db.query<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'DECLARE export_notifications%'`,
          );
          victim = row?.pid;
          return victim !== undefined;
        }),
      ).toBe(true);
      await t.db.query('SELECT pg_terminate_backend($1)', [victim]);
      await locker.query('ROLLBACK');

      const reader = await reading;
      expect(reader.status).toBe(200);
      await expect(reader.finish()).rejects.toThrow();
      expect(await within(5_000, () => logged.some((spy) => spy.mock.calls.some((c) => String(c[1]).startsWith('user export cut short'))))).toBe(true);
      expect(await within(5_000, () => openSpoolFiles().length === 0)).toBe(true);
      expect(namedSpoolFiles()).toEqual([]);
      expect(await within(30_000, async () => poolIdle() && (await busySessions()) === 0)).toBe(true);
      const again = await Promise.all(Array.from({ length: EXPORTS_IN_FLIGHT_PER_GAME }, () => startStalled(path, game.auth)));
      for (const r of again) r.abandon();
      expect(again.map((r) => r.status)).toEqual(Array(EXPORTS_IN_FLIGHT_PER_GAME).fill(200));
    } finally {
      for (const spy of logged) spy.mockRestore();
      await locker.end();
    }
  });
});
