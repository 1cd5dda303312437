import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ConsistencyTokens, formatPosition } from '../../src/db/replica/consistency-token';
import { latestCommitPosition } from '../../src/db/replica/read-context';
import { ReplicaRouter } from '../../src/db/replica/replica-router';
import { UnitOfWork } from '../../src/db/unit-of-work';
import { authedGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The consistency token without a replica (docs/read-replicas.md): every write answers the WAL
 * position past its commit, a read refuses a token that is none, and the reads run as before.
 */
describe('x-svc-consistency', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let gameId: string;
  let sql: Client;
  beforeAll(async () => {
    t = await startTestApp();
    ({ auth, gameId } = await authedGame(t));
    sql = new Client({ connectionString: t.db.url });
    await sql.connect();
    await sql.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
  });
  afterAll(async () => {
    await sql.end();
    await t.close();
  });

  /** The WAL position a token stands for, opened as the service opens it. */
  const opened = (token: string): string => {
    const reading = t.app.get(ConsistencyTokens).read(token);
    if (reading === null || reading === 'unreadable') throw new Error(`not a token of this database: ${token}`);
    return formatPosition(reading.position);
  };
  const position = async (): Promise<string> => (await sql.query<{ p: string }>('SELECT pg_current_wal_insert_lsn()::text AS p')).rows[0].p;

  it('is on a write answer, at or past the end of the commit record of its transaction', async () => {
    const before = await position();
    // No creator: a creator's member count is applied to the group's row later, by another
    // transaction, which would leave the row's xmin pointing past this write's commit.
    const r = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'Tokens', visibility: 'public' });
    expect(r.status).toBe(201);
    expect(r.headers['x-svc-consistency']).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const token = opened(r.headers['x-svc-consistency']);
    // pg_walinspect reads flushed WAL only: with synchronous_commit off (the embedded server's
    // flags) the WAL writer flushes the write's records within a few hundred milliseconds.
    for (let tries = 0; tries < 100; tries++) {
      const flushed = await sql.query<{ past: boolean }>('SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn AS past', [token]);
      if (flushed.rows[0].past) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { rows } = await sql.query<{ commit_end: string; covered: boolean }>(
      `SELECT w.end_lsn::text AS commit_end, w.end_lsn <= $3::pg_lsn AS covered
       FROM pg_get_wal_records_info($1::pg_lsn, pg_current_wal_flush_lsn()) w
       WHERE w.resource_manager = 'Transaction' AND w.record_type LIKE 'COMMIT%'
         AND w.xid::text = (SELECT xmin::text FROM groups WHERE id = $2)`,
      [before, r.body.id, token],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].covered).toBe(true);
  });

  it('grows with each write, whichever way the commit went (with the flush or on its own)', async () => {
    const a = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'One', visibility: 'public', creatorUserId: 'bob' });
    const b = await t.http.patch(`/v1/groups/${a.body.id}`).set(auth).send({ name: 'Two' });
    const uow = t.app.get(UnitOfWork);
    // Nothing staged for the flush: the COMMIT goes on its own, with the position in its round trip.
    await uow.run((tx) => tx.manager.query(`UPDATE games SET name = name WHERE id = $1`, [gameId]));
    const alone = formatPosition(latestCommitPosition(t.app.get(DataSource))!);
    const c = await t.http.post(`/v1/groups/${a.body.id}/join`).set(auth).send({ userId: 'cid' });
    const tokens = [a, b, c].map((r) => {
      expect(r.status).toBeLessThan(300);
      return opened(r.headers['x-svc-consistency'] as string);
    });
    const { rows } = await sql.query<{ ordered: boolean }>(
      'SELECT $1::pg_lsn < $2::pg_lsn AND $2::pg_lsn < $3::pg_lsn AND $3::pg_lsn < $4::pg_lsn AS ordered',
      [tokens[0], tokens[1], alone, tokens[2]],
    );
    expect(rows[0].ordered).toBe(true);
  });

  it('is not on a read answer nor an error answer', async () => {
    const read = await t.http.get('/v1/groups').set(auth);
    expect(read.status).toBe(200);
    expect(read.headers['x-svc-consistency']).toBeUndefined();
    const refused = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild' });
    expect(refused.status).toBe(400);
    expect(refused.headers['x-svc-consistency']).toBeUndefined();
  });

  it('is taken back by reads; without a replica the primary serves them', async () => {
    const w = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'Mine', visibility: 'public', creatorUserId: 'dan' });
    const r = await t.http.get(`/v1/groups/${w.body.id}`).set(auth).set('x-svc-consistency', w.headers['x-svc-consistency']);
    expect(r.status).toBe(200);
    expect(r.body.name).toBe('Mine');
    expect(t.app.get(ReplicaRouter, { strict: false })).toBeNull();
  });

  it('tells a game nothing of the others: between two of its writes, its tokens carry no distance', async () => {
    const a = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'Quiet A', visibility: 'public' });
    const other = await authedGame(t, 'busy neighbour');
    for (let i = 0; i < 20; i++) await t.http.post('/v1/groups').set(other.auth).send({ kind: 'guild', name: `Busy ${i}`, visibility: 'public' });
    const b = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'Quiet B', visibility: 'public' });
    const [ta, tb] = [a, b].map((r) => r.headers['x-svc-consistency'] as string);
    // Opaque to the game: neither token is a WAL position, nor any number the game could subtract.
    for (const token of [ta, tb]) {
      expect(token).not.toMatch(/\//);
      expect(token).toMatch(/^[A-Za-z0-9_-]{22}$/);
    }
    // Yet the service still orders them.
    const { rows } = await sql.query<{ ordered: boolean }>('SELECT $1::pg_lsn < $2::pg_lsn AS ordered', [opened(ta), opened(tb)]);
    expect(rows[0].ordered).toBe(true);
  });

  it('opens on every instance of the database: the key is made once and shared', async () => {
    const w = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'Shared key', visibility: 'public' });
    const second = await startTestApp({}, t.db);
    try {
      const reading = second.app.get(ConsistencyTokens).read(w.headers['x-svc-consistency'] as string);
      expect(reading).toEqual({ position: expect.any(BigInt) });
      const keys = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM service_keys');
      expect(keys[0].n).toBe(1);
    } finally {
      await second.close();
    }
  });

  it('serves a read whose token does not open here (another key, or an earlier release\'s plain position) from the primary, not 400', async () => {
    const w = await t.http.post('/v1/groups').set(auth).send({ kind: 'guild', name: 'Legacy', visibility: 'public' });
    for (const token of [await position(), 'AAAAAAAAAAAAAAAAAAAAAA']) {
      const r = await t.http.get(`/v1/groups/${w.body.id}`).set(auth).set('x-svc-consistency', token);
      expect(r.status).toBe(200);
    }
  });

  it.each(['', 'nope', '0/', '1/2/3', '123456789/0', '16/B374D848 x', 'AAAAAAAAAAAAAAAAAAAAA', 'AAAAAAAAAAAAAAAAAAAAAAA'])('answers 400 naming the header for %j', async (value) => {
    for (const path of ['/v1/groups', '/v1/permissions/check?groupId=x&userId=y&permission=z']) {
      const r = await t.http.get(path).set(auth).set('x-svc-consistency', value);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'bad_request', message: expect.stringContaining('x-svc-consistency') });
    }
  });
});

/** The routes the replica may serve are stated on their handlers and marked in the API document. */
describe('the routes the read replica may serve', () => {
  const doc = JSON.parse(readFileSync(join(__dirname, '../../docs/api/openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, { operationId: string; 'x-svc-replica-read'?: boolean }>>;
  };
  const marked = Object.values(doc.paths).flatMap((item) => Object.entries(item).filter(([, op]) => op['x-svc-replica-read']));

  it('are reads only', () => {
    expect(marked.length).toBeGreaterThan(30);
    for (const [method] of marked) expect(method).toBe('get');
  });

  it('never include the permission check, the feeds, the streams or the health checks', () => {
    const ids = new Set(marked.map(([, op]) => op.operationId));
    const primaryOnly = [
      'checkPermission',
      'adminCheckPermission',
      'getEventFeed',
      'adminGetEventFeed',
      'streamGameEvents',
      'streamGroupEvents',
      'adminStreamGameEvents',
      'adminStreamGroupEvents',
      'getReadiness',
      'whoami',
      'adminWhoami',
      'previewInvitation',
    ];
    for (const id of primaryOnly) expect(ids.has(id)).toBe(false);
  });
});
