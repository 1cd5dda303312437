import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { sampler } from './start-tracing';
import { SHUTDOWN_EXPORT_CAP_MS, Tracing } from './tracing';

function tracingWith(provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })] })): Tracing {
  return new Tracing(provider.getTracer('test'), provider);
}

describe('Tracing', () => {
  describe('the active span', () => {
    it('is none outside a request or an attempt', () => {
      const sut = tracingWith();

      expect(sut.activeSpan()).toBeUndefined();
      expect(sut.carrier()).toBeNull();
    });

    it('is the span run() was given, and its trace context is the W3C traceparent of that span', () => {
      const sut = tracingWith();
      const span = sut.tracer.startSpan('request', {}, ROOT_CONTEXT);
      const { traceId, spanId } = span.spanContext();

      const carrier = sut.run(trace.setSpan(ROOT_CONTEXT, span), () => sut.carrier());

      expect(carrier).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
    });

    it('is none once the span has ended, so late work is not hung on a finished request', () => {
      const sut = tracingWith();
      const span = sut.tracer.startSpan('request', {}, ROOT_CONTEXT);
      span.end();

      expect(sut.run(trace.setSpan(ROOT_CONTEXT, span), () => sut.activeContext())).toBeUndefined();
    });

    it('is none for a span sampled out', () => {
      const provider = new TracerProvider({ sampler: sampler({ sampler: 'always_off', samplerRatio: 1 }) });
      const sut = tracingWith(provider);
      const span = sut.tracer.startSpan('request', {}, ROOT_CONTEXT);

      expect(sut.run(trace.setSpan(ROOT_CONTEXT, span), () => sut.carrier())).toBeNull();
    });

    it('is none in detached() work', () => {
      const sut = tracingWith();
      const span = sut.tracer.startSpan('request', {}, ROOT_CONTEXT);

      expect(sut.run(trace.setSpan(ROOT_CONTEXT, span), () => sut.detached(() => sut.activeSpan()))).toBeUndefined();
    });
  });

  it('reads back the headers it writes for a span', () => {
    const sut = tracingWith();
    const span = sut.tracer.startSpan('attempt', {}, ROOT_CONTEXT);

    const extracted = trace.getSpanContext(sut.extract(sut.headersFor(span)));

    expect(extracted).toMatchObject({ traceId: span.spanContext().traceId, spanId: span.spanContext().spanId, isRemote: true });
  });

  it('gives up on a collector that never answers at shutdown after SHUTDOWN_EXPORT_CAP_MS', async () => {
    jest.useFakeTimers();
    try {
      const provider = new TracerProvider();
      jest.spyOn(provider, 'shutdown').mockReturnValue(new Promise(() => undefined));
      let done = false;

      const stopping = tracingWith(provider)
        .shutdown()
        .then(() => (done = true));
      await jest.advanceTimersByTimeAsync(SHUTDOWN_EXPORT_CAP_MS - 1);
      expect(done).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      await stopping;

      expect(done).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  it('never fails shutdown when the last export does', async () => {
    const provider = new TracerProvider();
    jest.spyOn(provider, 'shutdown').mockRejectedValue(new Error('connect ECONNREFUSED'));

    await expect(tracingWith(provider).shutdown()).resolves.toBeUndefined();
  });
});

describe('sampler', () => {
  it.each([
    ['always_on', 'AlwaysOnSampler'],
    ['always_off', 'AlwaysOffSampler'],
    ['traceidratio', 'TraceIdRatioBased{0.25}'],
    ['parentbased_always_on', 'ParentBased{root=AlwaysOnSampler'],
    ['parentbased_always_off', 'ParentBased{root=AlwaysOffSampler'],
    ['parentbased_traceidratio', 'ParentBased{root=TraceIdRatioBased{0.25}'],
  ] as const)('%s is %s', (name, described) => {
    expect(sampler({ sampler: name, samplerRatio: 0.25 }).toString()).toContain(described);
  });
});
