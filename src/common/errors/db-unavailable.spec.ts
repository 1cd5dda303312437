import { createServer, type Server, type Socket } from 'node:net';
import { DatabaseError, Pool } from 'pg';
import { QueryFailedError, TypeORMError } from 'typeorm';
import { freePort } from '../../db/embedded-postgres';
import { createDataSource, DB_CONNECT_TIMEOUT_MS } from '../../db/data-source';
import { databaseUnavailableCause } from './db-unavailable';

/** A server error as pg parses it off the wire. */
function serverError(code: string, message: string): DatabaseError {
  return Object.assign(new DatabaseError(message, 0, 'error'), { code, severity: 'FATAL' });
}

const errnoError = (code: string, message: string) => Object.assign(new Error(message), { code, errno: -1, syscall: 'connect' });

describe('databaseUnavailableCause', () => {
  describe('recognises', () => {
    it.each([
      ['ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'],
      ['ECONNRESET', 'read ECONNRESET'],
      ['ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.5:5432'],
      ['EPIPE', 'write EPIPE'],
      ['EHOSTUNREACH', 'connect EHOSTUNREACH 10.0.0.5:5432'],
      ['EAI_AGAIN', 'getaddrinfo EAI_AGAIN db.internal'],
    ])('the socket error %s', (code, message) => {
      expect(databaseUnavailableCause(errnoError(code, message))).toBe(message);
    });

    it.each([
      ['57P01', 'terminating connection due to administrator command'],
      ['57P02', 'terminating connection because of crash of another server process'],
      ['57P03', 'the database system is shutting down'],
      ['57P03', 'the database system is starting up'],
      ['08006', 'connection failure'],
      ['08001', 'could not connect'],
      ['08P01', 'protocol violation'],
      ['57014', 'canceling statement due to statement timeout'],
      ['25P03', 'terminating connection due to idle-in-transaction timeout'],
      ['25006', 'cannot execute INSERT in a read-only transaction'],
    ])('the server error %s (%s)', (code, message) => {
      expect(databaseUnavailableCause(serverError(code, message))).toBe(`${code}: ${message}`);
    });

    it.each([
      'Connection terminated unexpectedly',
      'Connection terminated',
      'Connection terminated due to connection timeout',
      'timeout exceeded when trying to connect',
      'Client has encountered a connection error and is not queryable',
    ])('the driver message "%s"', (message) => {
      expect(databaseUnavailableCause(new Error(message))).toBe(message);
    });

    it("TypeORM's QueryFailedError around any of them", () => {
      const err = new QueryFailedError('SELECT 1', [], serverError('57P01', 'terminating connection due to administrator command'));

      expect(databaseUnavailableCause(err)).toBe('57P01: terminating connection due to administrator command');
    });

    it('an error reached through driverError only', () => {
      const err = Object.assign(new TypeORMError('query failed'), { driverError: new Error('Connection terminated unexpectedly') });

      expect(databaseUnavailableCause(err)).toBe('Connection terminated unexpectedly');
    });

    it('an error reached through a cause', () => {
      const err = new Error('Connection lost', { cause: errnoError('ECONNRESET', 'read ECONNRESET') });

      expect(databaseUnavailableCause(err)).toBe('read ECONNRESET');
    });

    it('an AggregateError of refused addresses (a host name with IPv4 and IPv6 addresses)', () => {
      const err = new AggregateError([errnoError('ECONNREFUSED', 'connect ECONNREFUSED ::1:5432')], '');

      expect(databaseUnavailableCause(err)).toBe('connect ECONNREFUSED ::1:5432');
    });
  });

  describe('leaves alone', () => {
    it.each<[string, unknown]>([
      ['a unique violation', serverError('23505', 'duplicate key value violates unique constraint')],
      ['a syntax error', serverError('42601', 'syntax error at or near "SELEC"')],
      ['a serialization failure', serverError('40001', 'could not serialize access')],
      ['a query that failed for its own reasons', new QueryFailedError('SELECT x', [], serverError('42703', 'column "x" does not exist'))],
      ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'id')")],
      ['a pool closed by this process', new Error('Cannot use a pool after calling end on the pool')],
      ['a client closed by this process', new Error('Client was closed and is not queryable')],
      ['a message that only mentions a connection', new Error('webhook receiver: Connection terminated unexpectedly')],
      ['a numeric code', { code: 8006, message: 'x' }],
      ['null', null],
      ['a string', 'ECONNREFUSED'],
    ])('%s', (_case, err) => {
      expect(databaseUnavailableCause(err)).toBeNull();
    });

    it('a cycle of causes', () => {
      const a: Error & { cause?: unknown } = new Error('a');
      const b = new Error('b', { cause: a });
      a.cause = b;

      expect(databaseUnavailableCause(a)).toBeNull();
    });
  });

  // What pg itself throws, rather than look-alikes built by hand.
  describe('on real failures of pg', () => {
    let hung: Server | undefined;
    const sockets = new Set<Socket>();
    afterAll(async () => {
      for (const s of sockets) s.destroy();
      if (hung) await new Promise((r) => hung!.close(r));
    });

    it('a refused connection', async () => {
      const pool = new Pool({ host: '127.0.0.1', port: await freePort(), connectionTimeoutMillis: 1_000 });
      const err = await pool.query('SELECT 1').catch((e: unknown) => e);
      await pool.end();

      expect(databaseUnavailableCause(err)).toMatch(/ECONNREFUSED/);
    });

    it('a server that accepts the connection but never answers', async () => {
      const server = (hung = createServer((s) => sockets.add(s)));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const { port } = server.address() as { port: number };
      const pool = new Pool({ host: '127.0.0.1', port, connectionTimeoutMillis: 100 });
      const err = await pool.query('SELECT 1').catch((e: unknown) => e);
      await pool.end();

      expect(databaseUnavailableCause(err)).toMatch(/timeout/);
    });

    it("the service's own pool against a server that never answers: its clients' connect timeout", async () => {
      const server = createServer((s) => sockets.add(s));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const { port } = server.address() as { port: number };
      const ds = createDataSource({ url: `postgres://postgres@127.0.0.1:${port}/x` });
      const started = performance.now();
      const err = await ds.initialize().catch((e: unknown) => e);
      const ms = performance.now() - started;
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));

      expect(databaseUnavailableCause(err)).not.toBeNull();
      expect(ms).toBeLessThan(DB_CONNECT_TIMEOUT_MS + 1_000);
    });
  });
});
