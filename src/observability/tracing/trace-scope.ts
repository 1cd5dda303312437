import type { Context, Span, Tracer } from '@opentelemetry/api';

/**
 * What the span makers (requests, statements, webhook attempts) need of an app's tracing: its
 * tracer, the span running now and the W3C propagation. `Tracing` is the one implementation; the
 * makers depend on this rather than on it, so it can build them without an import circle.
 */
export interface TraceScope {
  readonly tracer: Tracer;
  /** Runs `work` as part of the span in `context`. */
  run<T>(context: Context, work: () => T): T;
  /** The context of the span the running code belongs to, while it records. */
  activeContext(): Context | undefined;
  /** The context `headers` carry (traceparent, tracestate), on top of no span when they carry none. */
  extract(headers: Record<string, string | string[] | undefined>): Context;
  /** The headers that make `span` the parent of what receives them. */
  headersFor(span: Span): Record<string, string>;
}
