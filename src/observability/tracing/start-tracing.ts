import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TracingSettings } from '../../config/settings';
import { Tracing } from './tracing';

/** The resource attribute that tells instances apart (incubating in the conventions, so copied). */
const ATTR_SERVICE_INSTANCE_ID = 'service.instance.id';
/** A collector that cannot be reached is said at most this often. */
const EXPORT_FAILURE_LOG_MS = 60_000;

/**
 * Builds the traces of one app from its settings: spans batched (every 5 s, or 512 at a time, up to
 * 2048 waiting; beyond that new spans are dropped rather than held) and POSTed as OTLP/HTTP JSON.
 * The exporter also honours the OTEL_EXPORTER_OTLP_ headers, timeout, compression and certificate
 * variables of the environment. Loaded only when traces are on (TracingModule).
 */
export function startTracing(settings: TracingSettings): Tracing {
  const exporter = new ReportingExporter(new OTLPTraceExporter({ url: settings.tracesUrl }), settings.tracesUrl);
  const provider = new TracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({
        [ATTR_SERVICE_INSTANCE_ID]: randomUUID(),
        ...settings.resourceAttributes,
        [ATTR_SERVICE_NAME]: settings.serviceName,
      }),
    ),
    sampler: sampler(settings),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  return new Tracing(provider.getTracer('guildhall'), provider);
}

/** OTEL_TRACES_SAMPLER and its argument, as the OpenTelemetry specification defines them. */
export function sampler({ sampler: name, samplerRatio }: Pick<TracingSettings, 'sampler' | 'samplerRatio'>): Sampler {
  const root = name.endsWith('always_off') ? new AlwaysOffSampler() : name.endsWith('traceidratio') ? new TraceIdRatioBasedSampler(samplerRatio) : new AlwaysOnSampler();
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

/** The exporter, saying in the log (at most once a minute) when spans could not be sent. */
class ReportingExporter implements SpanExporter {
  private readonly logger = new Logger('Tracing');
  private lastReportAt = 0;
  private failed = 0;

  private readonly url: string;

  constructor(
    private readonly inner: SpanExporter,
    url: string,
  ) {
    // Without credentials a URL may carry.
    const u = new URL(url);
    this.url = `${u.origin}${u.pathname}`;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) {
        this.failed += spans.length;
        if (Date.now() - this.lastReportAt >= EXPORT_FAILURE_LOG_MS) {
          this.logger.warn(`could not send ${this.failed} spans to ${this.url}: ${result.error?.message ?? 'export failed'}`);
          this.lastReportAt = Date.now();
          this.failed = 0;
        }
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
