import { SpanKind, SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import {
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_NAMESPACE,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_SUMMARY,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_RESPONSE_STATUS_CODE,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions';
import { ATTR_DB_BATCHED_WITH, ATTR_DB_RESPONSE_RETURNED_ROWS, ATTR_DB_SYSTEM } from './attributes';
import { summarizeStatement } from './statement-summary';
import type { TraceScope } from './trace-scope';

/** Where a connection points, for the span's server attributes. */
export interface DbTarget {
  host?: string;
  port?: number;
  database?: string;
}

/**
 * The CLIENT spans of SQL statements, started by the service's pg client (ServiceClient) for each
 * statement it sends while a traced request or webhook attempt runs; statements of untraced work
 * (the worker's claims, the sweep, the once-a-second folds) get none. A span shows the statement's
 * text without literals and never its parameters, and on failure the SQLSTATE, never the message
 * (PostgreSQL quotes values in some).
 */
export class SqlSpans {
  constructor(private readonly tracing: TraceScope) {}

  /**
   * The span of `text`, sent now with the statements `batchedWith` names in the same round trip
   * (BEGIN, the locks, COMMIT); undefined when the running code is not traced.
   */
  start(text: string, batchedWith: readonly string[], db: DbTarget): Span | undefined {
    const parent = this.tracing.activeContext();
    if (!parent) return undefined;
    const statement = summarizeStatement(text);
    const attributes: Attributes = {
      [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
      [ATTR_DB_SYSTEM]: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
      [ATTR_DB_QUERY_TEXT]: statement.text,
      [ATTR_DB_QUERY_SUMMARY]: statement.summary,
      [ATTR_DB_OPERATION_NAME]: statement.operation,
    };
    if (statement.collection) attributes[ATTR_DB_COLLECTION_NAME] = statement.collection;
    if (db.database) attributes[ATTR_DB_NAMESPACE] = db.database;
    if (db.host) attributes[ATTR_SERVER_ADDRESS] = db.host;
    if (db.port) attributes[ATTR_SERVER_PORT] = db.port;
    if (batchedWith.length) attributes[ATTR_DB_BATCHED_WITH] = [...batchedWith];
    return this.tracing.tracer.startSpan(statement.summary, { kind: SpanKind.CLIENT, attributes }, parent);
  }

  /** Ends the span with the statement's outcome: its rows, or its error's code. */
  end(span: Span, err: unknown, result?: unknown): void {
    if (err) {
      const code = (err as { code?: unknown }).code;
      if (typeof code === 'string') span.setAttribute(ATTR_DB_RESPONSE_STATUS_CODE, code);
      span.setAttribute(ATTR_ERROR_TYPE, typeof code === 'string' ? code : ((err as Error).name ?? 'Error'));
      span.setStatus({ code: SpanStatusCode.ERROR });
    } else {
      const rows = (result as { rows?: unknown } | undefined)?.rows;
      if (Array.isArray(rows)) span.setAttribute(ATTR_DB_RESPONSE_RETURNED_ROWS, rows.length);
    }
    span.end();
  }

  /** `send()` with the span of `text` around it, when traced. */
  around<T>(text: string, batchedWith: readonly string[], db: DbTarget, send: () => Promise<T>): Promise<T> {
    const span = this.start(text, batchedWith, db);
    if (!span) return send();
    return send().then(
      (result) => {
        this.end(span, null, result);
        return result;
      },
      (err: unknown) => {
        this.end(span, err);
        throw err;
      },
    );
  }

  /** pg's callback form: the callback that ends the span of `text` before calling `callback`. */
  wrapCallback<C extends (err: unknown, result?: unknown) => void>(text: string, db: DbTarget, callback: C): C {
    const span = this.start(text, [], db);
    if (!span) return callback;
    return ((err: unknown, result?: unknown) => {
      this.end(span, err, result);
      callback(err, result);
    }) as C;
  }
}
