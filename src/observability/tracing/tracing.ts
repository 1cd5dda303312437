import { AsyncLocalStorage } from 'node:async_hooks';
import { defaultTextMapGetter, defaultTextMapSetter, ROOT_CONTEXT, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { TracerProvider } from '@opentelemetry/sdk-trace';
import type { FastifyInstance } from 'fastify';
import { traceRequests } from './request-spans';
import { SqlSpans } from './sql-spans';
import type { TraceScope } from './trace-scope';

/**
 * The longest the last export may hold up shutdown: within the 35 s a stop is given, after the
 * worker's drain (30 s at most). A collector that is down or slow loses those spans, nothing else.
 */
export const SHUTDOWN_EXPORT_CAP_MS = 3_000;

/** A W3C trace context as its headers: what an event keeps of the request that wrote it. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/**
 * The traces of one app, when they are on (there is no instance otherwise: every caller checks for
 * null and runs no tracing code). Nothing is registered globally with the OpenTelemetry API: the
 * span a piece of work belongs to is kept in this instance's own AsyncLocalStorage, and passed
 * explicitly to the tracer, so apps built side by side in one process (the tests) keep theirs apart.
 */
export class Tracing implements TraceScope {
  private readonly current = new AsyncLocalStorage<Context>();
  private readonly propagator = new W3CTraceContextPropagator();
  readonly sql = new SqlSpans(this);

  constructor(
    readonly tracer: Tracer,
    private readonly provider: TracerProvider,
  ) {}

  /** One SERVER span per request; must be called before the app's routes are registered. */
  traceRequests(fastify: FastifyInstance): void {
    traceRequests(fastify, this);
  }

  /** Runs `work` as part of the span in `context`. */
  run<T>(context: Context, work: () => T): T {
    return this.current.run(context, work);
  }

  /** Runs `work` outside any span: work a request sets off but does not wait for. */
  detached<T>(work: () => T): T {
    return this.current.exit(work);
  }

  /** The span the running code belongs to, while it records (not once ended, nor when sampled out). */
  activeSpan(): Span | undefined {
    const context = this.current.getStore();
    const span = context && trace.getSpan(context);
    return span?.isRecording() ? span : undefined;
  }

  /** The context of the active span, for a child span: undefined when nothing is traced. */
  activeContext(): Context | undefined {
    const context = this.current.getStore();
    return context && trace.getSpan(context)?.isRecording() ? context : undefined;
  }

  /** The trace context of the active span, to keep with what it writes; null when nothing is traced. */
  carrier(): TraceCarrier | null {
    const context = this.activeContext();
    if (!context) return null;
    const carrier: Partial<TraceCarrier> = {};
    this.propagator.inject(context, carrier, defaultTextMapSetter);
    return carrier.traceparent ? (carrier as TraceCarrier) : null;
  }

  /** The context `headers` carry (traceparent, tracestate), on top of no span when they carry none. */
  extract(headers: Record<string, string | string[] | undefined>): Context {
    return this.propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
  }

  /** The headers that make `span` the parent of what receives them. */
  headersFor(span: Span): Record<string, string> {
    const headers: Record<string, string> = {};
    this.propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
    return headers;
  }

  /** Sends the spans that have ended (the tests call it rather than wait for the batch). */
  flush(): Promise<void> {
    return this.provider.forceFlush();
  }

  /** Sends what remains and stops, for SHUTDOWN_EXPORT_CAP_MS at most; never fails (the exporter reports). */
  async shutdown(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const cap = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_EXPORT_CAP_MS)));
    await Promise.race([this.provider.shutdown().catch(() => undefined), cap]);
    clearTimeout(timer);
  }
}
