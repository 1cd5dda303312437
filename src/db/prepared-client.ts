import { createHash } from 'node:crypto';
import { Client, type ClientConfig } from 'pg';
import type { DbTarget, SqlSpans } from '../observability/tracing/sql-spans';
import { ADVISORY_LOCKS_SQL, ADVISORY_LOCKS_STATEMENT, advisoryLockValues, type AdvisoryLock } from './advisory-locks';
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
  parsedStatements: Record<string, string>;
  parse(m: { text: string; name: string }): void;
  close(m: { type: 'S'; name: string }): void;
  bind(m: { portal: string; statement: string; values: unknown[] }): void;
  execute(m: { portal: string }): void;
  sync(): void;
}
interface QueryInstance {
  readonly name?: string;
  readonly text: string;
  hasBeenParsed(connection: Connection): boolean;
  requiresPreparation(): boolean;
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

/**
 * A statement riding in another's batch (BEGIN, the locks, COMMIT, the commit's position), under
 * its name with its values (text parameters): prepared on a connection the first time it rides
 * there, then only bound and run. Parsed each time, BEGIN, two lock CALLs, COMMIT and the position
 * cost PostgreSQL about 0.2 ms of CPU a write more (pgbench on this project's bench machine).
 */
interface Rider {
  text: string;
  name: string;
  values?: string[];
  /** What a trace's span of the statement it rides with says of it (`guildhall.db.batched_with`). */
  summary: string;
}

const BEGIN: Rider = { text: 'BEGIN', name: 'svc_begin', summary: 'BEGIN' };
const COMMIT: Rider = { text: 'COMMIT', name: 'svc_commit', summary: 'COMMIT' };
const COMMIT_POSITION: Rider = { text: COMMIT_POSITION_SQL, name: 'svc_commit_position', summary: 'SELECT pg_current_wal_insert_lsn' };
/**
 * Reads the server's sessions into the transaction's view of them: PostgreSQL takes that view the
 * first time a transaction asks (pg_stat_activity) and keeps it to the transaction's end.
 */
const SESSIONS: Rider = { text: 'SELECT 1 FROM pg_stat_activity LIMIT 1', name: 'svc_sessions', summary: 'SELECT pg_stat_activity' };
/**
 * Has the statement it rides ahead of run on its generic plan, for that batch's implicit transaction
 * only (set_config's is_local: the setting ends at the batch's Sync). PostgreSQL's `auto` mode plans
 * a prepared statement anew for its first five calls on each connection, and for good when its
 * generic plan is costed above the custom ones, as one over arrays of unknown length may be. That
 * plan is made once and kept for the connection's life, so it is made without sequential scans
 * wherever an index serves: made while a table was empty (webhook_deliveries on a new database),
 * it read the whole table on every probe once the table had grown (a position claim took 40-80 ms
 * a call in the bench's join rows where it happened, against 3-4 ms).
 */
const GENERIC_PLAN: Rider = {
  text: "SELECT set_config('plan_cache_mode', 'force_generic_plan', true), set_config('enable_seqscan', 'off', true)",
  name: 'svc_generic_indexed_plan',
  summary: 'SET LOCAL plan_cache_mode, enable_seqscan',
};

type QueryClass = new (config: { name?: string; text: string; values: unknown[] }, values?: unknown, callback?: unknown) => QueryInstance;

/**
 * A statement sent in one round trip with the transaction control around it: `before` (BEGIN,
 * and the locks lockBeforeNext queued) and `after` (COMMIT) ride in the same extended-protocol batch,
 * ahead of the one Sync. An error in the statement makes the server skip the rest up to the Sync,
 * so a failed statement never commits; the caller's ROLLBACK then ends the transaction as usual.
 */
class PipelinedQuery extends Query {
  private completions = 0;
  /** The one value of the last row a statement after this one answered (the commit position). */
  trailing: string | null = null;
  /** The riders this batch prepares: known to the connection once it has succeeded. */
  readonly parsedRiders: Pick<Rider, 'name' | 'text'>[] = [];

  constructor(
    config: { name?: string; text: string; values: unknown[] },
    private readonly before: Rider[],
    private readonly after: Rider[],
    callback: (err: Error | null, result: unknown) => void,
  ) {
    super(config, undefined, callback);
  }

  /** Riders need the extended protocol: a statement without values or a name would otherwise go as a simple query, alone. */
  override requiresPreparation(): boolean {
    return true;
  }

  override prepare(connection: Connection): void {
    // A named statement not yet parsed here is parsed ahead of BEGIN: pg marks a name as parsed on
    // the first ParseComplete of the batch, which must be the statement's own, or a statement the
    // server failed to parse would be taken for prepared on this connection from then on.
    if (this.name && this.before.length && !this.hasBeenParsed(connection)) {
      connection.parse({ text: this.text, name: this.name });
      connection.submittedNamedStatements[this.name] = this.text;
    }
    for (const rider of this.before) this.ride(connection, rider);
    super.prepare(connection);
  }

  override _getRows(connection: Connection, rows?: number): void {
    if (rows) return super._getRows(connection, rows);
    connection.execute({ portal: '' });
    for (const rider of this.after) this.ride(connection, rider);
    connection.sync();
  }

  /**
   * A rider's messages. A named one not known here yet is closed first: a batch that failed may
   * have left it prepared or not, and closing a statement that does not exist is no error.
   */
  private ride(connection: Connection, { name, text, values = [] }: Rider): void {
    if (connection.parsedStatements[name] === undefined) {
      connection.close({ type: 'S', name });
      connection.parse({ text, name });
      this.parsedRiders.push({ name, text });
    }
    connection.bind({ portal: '', statement: name, values });
    connection.execute({ portal: '' });
  }

  /** Only the statement's own completion is its result; the riders' are not. */
  override handleCommandComplete(msg: unknown, connection: Connection): void {
    const index = this.completions++;
    if (index === this.before.length) super.handleCommandComplete(msg, connection);
  }

  /**
   * Only the statement's own rows are its result: a rider ahead of it (the locks) answers a row
   * that is dropped, the last row of one after it (the commit position) is kept aside.
   */
  override handleRowDescription(msg: unknown): void {
    if (this.completions === this.before.length) super.handleRowDescription(msg);
  }

  override handleDataRow(msg: { fields: unknown[] }): void {
    if (this.completions === this.before.length) return super.handleDataRow(msg);
    if (this.completions < this.before.length) return;
    const [value] = msg.fields;
    if (typeof value === 'string') this.trailing = value;
  }
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
 * - BEGIN is not sent on its own but in the batch of the transaction's first statement, and the
 *   advisory locks queued by `lockBeforeNext` go as one statement in the batch of the one after them;
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
  private pendingLocks: AdvisoryLock[] = [];
  private genericNext = false;
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
    this.unitOfWork = this.beginPending = this.commitNext = this.commitSent = this.genericNext = false;
    this.pendingLocks = [];
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

  /**
   * `locks` are taken in the batch of the next statement, ahead of it, in the order queued (their
   * keys are checked as that statement's parameters are made: one that is not a key fails it).
   */
  lockBeforeNext(locks: readonly AdvisoryLock[]): void {
    this.pendingLocks.push(...locks);
  }

  /**
   * The next statement runs on its generic plan (GENERIC_PLAN rides ahead of it), and so does every
   * prepared statement after it to the transaction's end: set_config's local settings last as long
   * as the transaction. For a statement over arrays of writes (a batch's shared lookup), which
   * `auto` would plan anew on every call, costing its plan for ten rows above the custom ones.
   */
  genericPlanNext(): void {
    if (this.unitOfWork) this.genericNext = true;
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
      this.beginPending = this.commitSent = this.genericNext = false;
      this.pendingLocks = [];
      return folded(text) as never;
    }
    const locks: Rider[] = this.pendingLocks.length
      ? [{ text: ADVISORY_LOCKS_SQL, name: ADVISORY_LOCKS_STATEMENT, values: advisoryLockValues(this.pendingLocks), summary: 'SELECT pg_advisory_xact_lock' }]
      : [];
    const before = [...(this.beginPending ? [BEGIN] : []), ...locks, ...(this.genericNext ? [GENERIC_PLAN] : [])];
    this.beginPending = this.genericNext = false;
    this.pendingLocks = [];
    if (!Array.isArray(values)) {
      if (!before.length) return this.sent(args);
      const ahead = before.reduce<Promise<unknown>>((p, r) => p.then(() => this.sent([{ name: r.name, text: r.text, values: r.values }])), Promise.resolve());
      return ahead.then(() => this.sent(args)) as never;
    }
    const after = this.commitNext ? [COMMIT, ...(this.positions ? [COMMIT_POSITION] : [])] : [];
    this.commitNext = false;
    const name = statementName(text);
    if (!name && !before.length && !after.length) return this.sent(args);
    return this.pipelined(text, values, before, after, name) as never;
  }

  /**
   * Runs `text` in one round trip after SESSIONS, in the same implicit transaction (one Sync):
   * whatever the statement reads of pg_stat_activity is the sessions as they were before its own
   * snapshot was taken. The feed's horizon needs that (HORIZON, feed.repository.ts). A named
   * prepared statement on its generic plan (GENERIC_PLAN), unless `planEachCall`. Outside a unit
   * of work only.
   */
  async queryAfterSessions<R>(text: string, values: unknown[], planEachCall = false): Promise<R[]> {
    if (this.unitOfWork) throw new Error('queryAfterSessions runs outside a unit of work');
    const name = planEachCall ? undefined : statementName(text);
    const before = name ? [SESSIONS, GENERIC_PLAN] : [SESSIONS];
    return ((await this.pipelined(text, values, before, [], name)) as { rows: R[] }).rows;
  }

  /**
   * `text` as a named prepared statement on its generic plan (GENERIC_PLAN rides ahead of it, in
   * the same implicit transaction). Outside a unit of work only.
   */
  async queryGenericPlan<R>(text: string, values: unknown[]): Promise<R[]> {
    if (this.unitOfWork) throw new Error('queryGenericPlan runs outside a unit of work');
    return ((await this.pipelined(text, values, [GENERIC_PLAN], [], statementName(text))) as { rows: R[] }).rows;
  }

  /** `text` (under `name`, prepared, when given) with `before` and `after` riding in its batch, ahead of its one Sync. */
  private pipelined(text: string, values: unknown[], before: Rider[], after: Rider[], name: string | undefined): Promise<unknown> {
    const run = () =>
      new Promise((resolve, reject) => {
        const done = (err: Error | null, result: unknown) => {
          if (err) return reject(err);
          const statements = (this.connection as unknown as Connection).parsedStatements;
          for (const r of query.parsedRiders) statements[r.name] = r.text;
          if (after.length) {
            this.commitSent = true;
            this.commitPosition = query.trailing;
          }
          resolve(result);
        };
        const query = new PipelinedQuery({ ...(name ? { name } : {}), text, values }, before, after, done);
        this.plain([query]);
      });
    if (!this.sqlSpans) return run();
    return this.sqlSpans.around(text, [...before, ...after].map((r) => r.summary), this.target(), run);
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
