import { createHash } from 'node:crypto';
import { Client, type ClientConfig } from 'pg';
import type { DbTarget, SqlSpans } from '../observability/tracing/sql-spans';
// pg's Query is not in its public types; a unit of work's statements extend it to carry BEGIN and COMMIT.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Query: QueryClass = require('pg/lib/query');

/**
 * How long opening a connection may take: with a database that accepts but never answers, a
 * request answers 503 within the 2 s the health check allows. A refused connection fails at once.
 */
export const DB_CONNECT_TIMEOUT_MS = 1_500;

/**
 * Distinct statement texts that may be prepared. Each prepared statement lives in every backend
 * that ran it, so a text built from unbounded input (a list spelt out as placeholders, say) must
 * not leak one per call: past the cap, new texts run unnamed as before.
 */
export const MAX_PREPARED_TEXTS = 300;

const names = new Map<string, string>();

/** The statement's name: the same on every connection for one text, so each plans it once. */
export function statementName(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_PREPARED_TEXTS) {
    name = `uow_${createHash('sha1').update(text).digest('base64url')}`;
    names.set(text, name);
  }
  return name;
}

interface Connection {
  submittedNamedStatements: Record<string, string>;
  parse(m: { text: string; name: string }): void;
  bind(m: { portal: string; statement: string; values: unknown[] }): void;
  execute(m: { portal: string }): void;
  sync(): void;
}
interface QueryInstance {
  readonly name?: string;
  readonly text: string;
  hasBeenParsed(connection: Connection): boolean;
  _getRows(connection: Connection, rows?: number): void;
  prepare(connection: Connection): void;
  handleCommandComplete(msg: unknown, connection: Connection): void;
  handleRowDescription(msg: unknown): void;
  handleDataRow(msg: { fields: unknown[] }): void;
}
/**
 * Asked right after a COMMIT, on the same connection and in the same round trip: the position of the
 * WAL's end, at or past the commit record, is the consistency token of what was just written (a
 * replica that has replayed up to it has the commit). Before the COMMIT it would come short of it.
 */
export const COMMIT_POSITION_SQL = 'SELECT pg_current_wal_insert_lsn()::text';

type QueryClass = new (config: { name?: string; text: string; values: unknown[] }, values?: unknown, callback?: unknown) => QueryInstance;

/**
 * A statement sent in one round trip with the transaction control around it: `before` (BEGIN,
 * and what runBeforeNext queued) and `after` (COMMIT) ride in the same extended-protocol batch,
 * ahead of the one Sync. An error in the statement makes the server skip the rest up to the Sync,
 * so a failed statement never commits; the caller's ROLLBACK then ends the transaction as usual.
 */
class PipelinedQuery extends Query {
  private completions = 0;
  /** The one value of the last row a statement after this one answered (the commit position). */
  trailing: string | null = null;

  constructor(
    config: { name?: string; text: string; values: unknown[] },
    private readonly before: string[],
    private readonly after: string[],
    callback: (err: Error | null, result: unknown) => void,
  ) {
    super(config, undefined, callback);
  }

  override prepare(connection: Connection): void {
    // A named statement not yet parsed here is parsed ahead of BEGIN: pg marks a name as parsed on
    // the first ParseComplete of the batch, which must be the statement's own, or a statement the
    // server failed to parse would be taken for prepared on this connection from then on.
    if (this.name && this.before.length && !this.hasBeenParsed(connection)) {
      connection.parse({ text: this.text, name: this.name });
      connection.submittedNamedStatements[this.name] = this.text;
    }
    for (const text of this.before) runUnnamed(connection, text);
    super.prepare(connection);
  }

  override _getRows(connection: Connection, rows?: number): void {
    if (rows) return super._getRows(connection, rows);
    connection.execute({ portal: '' });
    for (const text of this.after) runUnnamed(connection, text);
    connection.sync();
  }

  /** Only the statement's own completion is its result; BEGIN's and COMMIT's are not. */
  override handleCommandComplete(msg: unknown, connection: Connection): void {
    const index = this.completions++;
    if (index === this.before.length) super.handleCommandComplete(msg, connection);
  }

  /** Rows after the statement's own completion are the trailing statements': kept aside, not in its result. */
  override handleRowDescription(msg: unknown): void {
    if (this.completions <= this.before.length) super.handleRowDescription(msg);
  }

  override handleDataRow(msg: { fields: unknown[] }): void {
    if (this.completions <= this.before.length) return super.handleDataRow(msg);
    const [value] = msg.fields;
    if (typeof value === 'string') this.trailing = value;
  }
}

function runUnnamed(connection: Connection, text: string): void {
  connection.parse({ text, name: '' });
  connection.bind({ portal: '', statement: '', values: [] });
  connection.execute({ portal: '' });
}

/** What pg answers for a statement with no rows; given for the BEGIN or COMMIT folded elsewhere. */
const folded = (command: string) => Promise.resolve({ command, rowCount: null, rows: [], fields: [] });

/** Told the SQLSTATE of each error the server answers on a pooled connection (the metrics count them). */
export type ServerErrorListener = (code: string | undefined) => void;

/**
 * pg's client with the short connect timeout (the pool's own queue timeout is the longer one), and
 * the round trips of a unit of work cut down while `unitOfWork` is set:
 * - parameterised statements run as named prepared statements, parsed and planned once per
 *   connection instead of on every call (planning cost as much as executing them);
 * - BEGIN is not sent on its own but in the batch of the transaction's first statement, and so is
 *   a statement queued by `runBeforeNext` (a group's lock) in the batch of the one after it;
 * - after `commitWithNext()`, the next statement carries the COMMIT, and the COMMIT that follows
 *   is answered here.
 * With traces on (`sqlSpans`), each statement sent for traced work gets a span; one answered here
 * (a folded BEGIN or COMMIT) gets none, and the statements sharing a round trip are named on the
 * span of the one they ride with.
 */
export class ServiceClient extends Client {
  private unitOfWork = false;
  private beginPending = false;
  private commitNext = false;
  private commitSent = false;
  private pendingBefore: string[] = [];
  private commitPosition: string | null = null;
  /** What this unit of work has taken already (a lock held until its end need not be asked for twice). */
  private readonly taken = new Set<string>();
  private readonly sqlSpans: SqlSpans | undefined;
  /** False on a replica's connections: a server in recovery has no WAL insert position to give. */
  private readonly positions: boolean;

  constructor(config: ClientConfig & { sqlSpans?: SqlSpans; onServerError?: ServerErrorListener; commitPositions?: boolean }) {
    const { sqlSpans, onServerError, commitPositions = true, ...pgConfig } = config;
    super({ ...pgConfig, connectionTimeoutMillis: DB_CONNECT_TIMEOUT_MS });
    this.sqlSpans = sqlSpans;
    this.positions = commitPositions;
    // Every error PostgreSQL sends on this connection, whatever catches it later (a retry, a 409, a 503).
    if (onServerError) {
      this.connection.on('errorMessage', (m: { code?: string }) => onServerError(m.code));
    }
  }

  startUnitOfWork(): void {
    this.unitOfWork = true;
  }

  endUnitOfWork(): void {
    this.unitOfWork = this.beginPending = this.commitNext = this.commitSent = false;
    this.pendingBefore = [];
    this.taken.clear();
  }

  /** True the first time `key` is named in this unit of work, false after. */
  firstInUnitOfWork(key: string): boolean {
    if (this.taken.has(key)) return false;
    this.taken.add(key);
    return true;
  }

  get inUnitOfWork(): boolean {
    return this.unitOfWork;
  }

  /** `text` (no parameters, no rows: a CALL) is sent in the batch of the next statement, ahead of it. */
  runBeforeNext(text: string): void {
    this.pendingBefore.push(text);
  }

  /**
   * The WAL position just past this connection's last COMMIT (then forgotten): asked in the COMMIT's
   * own round trip, so the consistency token costs no extra one.
   */
  takeCommitPosition(): string | null {
    const position = this.commitPosition;
    this.commitPosition = null;
    return position;
  }

  /** The next statement is the transaction's last: it carries the COMMIT. */
  commitWithNext(): void {
    if (this.unitOfWork) this.commitNext = true;
  }

  // pg's overloads cannot be restated one by one here; TypeORM calls query(text, values).
  override query(...args: unknown[]): never {
    const [text, values] = args;
    if (this.positions && text === 'COMMIT' && !values && args.length <= 2 && !(this.unitOfWork && (this.beginPending || this.commitSent))) {
      return this.commitAndPosition() as never;
    }
    if (!this.unitOfWork || typeof text !== 'string' || args.length !== 2) return this.sent(args);
    if (text === 'START TRANSACTION' && !values) {
      this.beginPending = true;
      return folded('BEGIN') as never;
    }
    if ((text === 'COMMIT' || text === 'ROLLBACK') && !values && (this.beginPending || (text === 'COMMIT' && this.commitSent))) {
      // Nothing was begun, or the COMMIT already went with the last statement.
      this.beginPending = this.commitSent = false;
      this.pendingBefore = [];
      return folded(text) as never;
    }
    const before = [...(this.beginPending ? ['BEGIN'] : []), ...this.pendingBefore];
    this.beginPending = false;
    this.pendingBefore = [];
    if (!Array.isArray(values)) {
      if (!before.length) return this.sent(args);
      const ahead = before.reduce<Promise<unknown>>((p, t) => p.then(() => this.sent([t])), Promise.resolve());
      return ahead.then(() => this.sent(args)) as never;
    }
    const after = this.commitNext ? ['COMMIT', ...(this.positions ? [COMMIT_POSITION_SQL] : [])] : [];
    this.commitNext = false;
    const name = statementName(text);
    if (!name && !before.length && !after.length) return this.sent(args);
    const pipelined = () =>
      new Promise((resolve, reject) => {
        const done = (err: Error | null, result: unknown) => {
          if (err) return reject(err);
          if (after.length) {
            this.commitSent = true;
            this.commitPosition = query.trailing;
          }
          resolve(result);
        };
        const query = new PipelinedQuery({ ...(name ? { name } : {}), text, values }, before, after, done);
        this.plain([query]);
      });
    if (!this.sqlSpans) return pipelined() as never;
    return this.sqlSpans.around(text, [...before, ...after], this.target(), pipelined) as never;
  }

  /** A COMMIT sent on its own: the commit position rides in the same simple-protocol round trip. */
  private async commitAndPosition(): Promise<unknown> {
    const results = (await this.sent([`COMMIT; ${COMMIT_POSITION_SQL}`])) as unknown as { rows: Record<string, unknown>[] }[];
    const position = Array.isArray(results) ? results[1]?.rows[0]?.pg_current_wal_insert_lsn : undefined;
    this.commitPosition = typeof position === 'string' ? position : null;
    return Array.isArray(results) ? results[0] : results;
  }

  /** pg's own query, in a span when traces are on: a text (and values), or a config object, with or without a callback. */
  private sent(args: unknown[]): never {
    if (!this.sqlSpans) return this.plain(args);
    const [first] = args;
    const text = typeof first === 'string' ? first : (first as { text?: unknown } | null)?.text;
    // A Submittable (a cursor, a stream) reports its end its own way: left untraced.
    if (typeof text !== 'string' || typeof (first as { submit?: unknown }).submit === 'function') return this.plain(args);
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      return this.plain([...args.slice(0, -1), this.sqlSpans.wrapCallback(text, this.target(), last as (err: unknown) => void)]);
    }
    return this.sqlSpans.around(text, [], this.target(), () => this.plain(args) as Promise<unknown>) as never;
  }

  private target(): DbTarget {
    return { host: this.host, port: this.port, database: this.database };
  }

  private plain(args: unknown[]): never {
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}
