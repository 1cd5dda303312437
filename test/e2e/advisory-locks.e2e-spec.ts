import { Client } from 'pg';
import { uuidv7 } from '../../src/common/ids';
import type { AdvisoryLock } from '../../src/db/advisory-locks';
import { ServiceClient } from '../../src/db/prepared-client';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

/**
 * A write's advisory locks (its group's, its users', a friend pair's) go to PostgreSQL as one
 * prepared statement riding in the batch of the write's next statement, as BEGIN, COMMIT and the
 * commit's position ride prepared: the same locks as the procedures earlier releases CALL, taken in
 * the order asked, and a batch that fails leaves the connection as usable as before.
 */
let db: TestDatabase;
const open: Client[] = [];
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.end().catch(() => undefined)));
  await db.drop();
});

async function plainClient(): Promise<Client> {
  const c = new Client({ connectionString: db.url });
  await c.connect();
  open.push(c);
  return c;
}

async function serviceClient(): Promise<ServiceClient> {
  const c = new ServiceClient({ connectionString: db.url });
  await c.connect();
  open.push(c);
  return c;
}

type Rows = { rows: Record<string, unknown>[] };
/** The statements of a unit of work as TypeORM sends them: (text, values). */
const send = (c: ServiceClient, text: string, values?: unknown[]) => (c.query as unknown as (t: string, v?: unknown[]) => Promise<Rows>)(text, values);

/** One unit of work on `c`: `locks` before its one statement `text`, which carries the COMMIT. */
async function unitOfWork(c: ServiceClient, locks: AdvisoryLock[], text: string, values: unknown[] = []): Promise<Rows> {
  c.startUnitOfWork();
  try {
    await send(c, 'START TRANSACTION');
    c.lockBeforeNext(locks);
    c.commitWithNext();
    const result = await send(c, text, values);
    await send(c, 'COMMIT');
    return result;
  } catch (err) {
    await send(c, 'ROLLBACK');
    throw err;
  } finally {
    c.endUnitOfWork();
  }
}

/** The advisory locks backend `pid` holds or waits for, as keys and modes. */
async function advisoryLocks(pid: number): Promise<{ key: string; mode: string; granted: boolean }[]> {
  const { rows } = await (await plainClient()).query(
    `SELECT ((classid::bigint << 32) | objid::bigint)::text AS key, mode, granted FROM pg_locks
     WHERE locktype = 'advisory' AND pid = $1`,
    [pid],
  );
  return (rows as { key: string; mode: string; granted: boolean }[]).sort(byKey);
}
const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

const pidOf = async (c: Client) => ((await c.query('SELECT pg_backend_pid() AS pid')).rows[0] as { pid: number }).pid;
const groupKey = async (groupId: string) =>
  BigInt(((await db.query<{ k: string }>(`SELECT hashtextextended($1::text, 7310422101)::text AS k`, [groupId]))[0]).k);

it('takes every lock of a write in one statement, prepared once per connection, and answers only the statement it rode with', async () => {
  const c = await serviceClient();
  const pid = await pidOf(c);
  const group = uuidv7();
  const observed: { key: string; mode: string; granted: boolean }[][] = [];
  for (let i = 0; i < 2; i++) {
    c.startUnitOfWork();
    try {
      await send(c, 'START TRANSACTION');
      c.lockBeforeNext([
        { group, exclusive: false },
        { key: 42n, exclusive: false },
        { key: '-7', exclusive: true },
      ]);
      const { rows } = await send(c, 'SELECT $1::int AS x', [i]);
      expect(rows).toEqual([{ x: i }]);
      observed.push(await advisoryLocks(pid));
      c.commitWithNext();
      expect((await send(c, 'SELECT 2 AS y', [])).rows).toEqual([{ y: 2 }]);
      await send(c, 'COMMIT');
    } finally {
      c.endUnitOfWork();
    }
    expect(c.takeCommitPosition()).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
  }
  const expected = [
    { key: String(await groupKey(group)), mode: 'ShareLock', granted: true },
    { key: '42', mode: 'ShareLock', granted: true },
    { key: '-7', mode: 'ExclusiveLock', granted: true },
  ].sort(byKey);
  expect(observed).toEqual([expected, expected]);
  expect(await advisoryLocks(pid)).toEqual([]);
  const { rows } = await send(
    c,
    `SELECT name, generic_plans + custom_plans AS runs FROM pg_prepared_statements WHERE name LIKE 'svc\_%' ORDER BY name COLLATE "C"`,
    [],
  );
  expect(rows).toEqual([
    { name: 'svc_advisory_locks', runs: '2' },
    { name: 'svc_begin', runs: '2' },
    { name: 'svc_commit', runs: '2' },
    { name: 'svc_commit_position', runs: '2' },
  ]);
});

describe('the same locks as the procedures of earlier releases', () => {
  const cases: { name: string; held: (g: string) => [string, unknown[]]; asked: (g: string) => AdvisoryLock }[] = [
    { name: "a group write's CALL svc_lock_group holds back a member write's group lock", held: (g) => ['CALL svc_lock_group($1)', [g]], asked: (g) => ({ group: g, exclusive: false }) },
    { name: "a member write's CALL svc_lock_group_members holds back a group write's lock", held: (g) => ['CALL svc_lock_group_members($1)', [g]], asked: (g) => ({ group: g, exclusive: true }) },
    { name: "a write's CALL svc_lock_user_shared holds back an erasure-like exclusive key", held: () => ['CALL svc_lock_user_shared($1)', ['9001']], asked: () => ({ key: 9001n, exclusive: true }) },
    { name: "a friend write's CALL svc_lock_keys holds back a shared key", held: () => [`CALL svc_lock_keys('{9002}')`, []], asked: () => ({ key: 9002n, exclusive: false }) },
  ];
  it.each(cases)('$name, until it commits', async ({ held, asked }) => {
    const group = uuidv7();
    const holder = await plainClient();
    const c = await serviceClient();
    await send(c, `SET lock_timeout = '300ms'`);
    await holder.query('BEGIN');
    await holder.query(...held(group));
    await expect(unitOfWork(c, [asked(group)], 'SELECT 1 AS x')).rejects.toMatchObject({ code: '55P03' });
    await holder.query('COMMIT');
    expect((await unitOfWork(c, [asked(group)], 'SELECT 1 AS x')).rows).toEqual([{ x: 1 }]);
  });

  it('shared group locks taken both ways do not hold each other back', async () => {
    const group = uuidv7();
    const holder = await plainClient();
    const c = await serviceClient();
    await send(c, `SET lock_timeout = '300ms'`);
    await holder.query('BEGIN');
    await holder.query('CALL svc_lock_group_members($1)', [group]);
    expect((await unitOfWork(c, [{ group, exclusive: false }], 'SELECT 1 AS x')).rows).toEqual([{ x: 1 }]);
    await holder.query('COMMIT');
  });
});

it('takes the locks in the order asked: waiting for the second, it holds the first', async () => {
  const holder = await plainClient();
  await holder.query('BEGIN');
  await holder.query('SELECT pg_advisory_xact_lock(502)');
  const c = await serviceClient();
  const pid = await pidOf(c);
  const waiting = unitOfWork(c, [
    { key: 501n, exclusive: true },
    { key: 502n, exclusive: true },
    { key: 503n, exclusive: true },
  ], 'SELECT 1 AS x');
  let seen: { key: string; mode: string; granted: boolean }[] = [];
  for (let i = 0; i < 100 && !seen.some((l) => !l.granted); i++) {
    await new Promise((r) => setTimeout(r, 20));
    seen = await advisoryLocks(pid);
  }
  expect(seen).toEqual([
    { key: '501', mode: 'ExclusiveLock', granted: true },
    { key: '502', mode: 'ExclusiveLock', granted: false },
  ]);
  await holder.query('COMMIT');
  expect((await waiting).rows).toEqual([{ x: 1 }]);
});

describe('a batch that fails leaves the connection usable', () => {
  it.each([
    ['the statement fails to parse', 'SELEC 1'],
    ['the statement fails as it runs', 'SELECT 1 / $1::int AS x'],
  ])('%s: the next unit of work on the connection takes its locks and commits', async (_, text) => {
    const c = await serviceClient();
    // Its first batch: the locks' statement is prepared in it, then the batch fails.
    await expect(unitOfWork(c, [{ key: 77n, exclusive: true }], text, text.includes('$1') ? [0] : [])).rejects.toHaveProperty('code');
    for (let i = 0; i < 2; i++) {
      expect((await unitOfWork(c, [{ key: 77n, exclusive: true }], 'SELECT $1::int AS x', [i])).rows).toEqual([{ x: i }]);
    }
    expect(c.takeCommitPosition()).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
  });

  it('the locks time out: the write fails with 55P03 and the next one takes them', async () => {
    const holder = await plainClient();
    const c = await serviceClient();
    await send(c, `SET lock_timeout = '200ms'`);
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock(88)');
    await expect(unitOfWork(c, [{ key: 88n, exclusive: true }], 'SELECT 1 AS x')).rejects.toMatchObject({ code: '55P03' });
    await holder.query('COMMIT');
    expect((await unitOfWork(c, [{ key: 88n, exclusive: true }], 'SELECT 1 AS x')).rows).toEqual([{ x: 1 }]);
  });
});
