import { isSpanContextValid, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Link } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import {
  ATTR_EVENT_ID,
  ATTR_EVENT_TYPE,
  ATTR_WEBHOOK_ATTEMPT,
  ATTR_WEBHOOK_DELIVERY_ID,
  ATTR_WEBHOOK_ENDPOINT_ID,
  ATTR_WEBHOOK_FORMAT,
  ATTR_WEBHOOK_OUTCOME,
} from '../observability/tracing/attributes';
import type { TraceScope } from '../observability/tracing/trace-scope';
import type { AttemptRecord, ClaimedDelivery } from './webhook-rows';

const ATTEMPT_SPAN_NAME = 'webhook attempt';

/** A started attempt: the headers that carry its span to the receiver, and how to end it. */
export interface AttemptSpan {
  headers: Record<string, string>;
  end(result: AttemptRecord): void;
}

/**
 * One CLIENT span per webhook delivery attempt. Attempts run long after the request that caused
 * their event (retries, hours later), so each starts a trace of its own, linked to the span of that
 * request when the event kept its trace context; the receiver gets `traceparent` with the attempt
 * as parent. The URL is not recorded (chat webhooks carry their secret in the path): only its host
 * and port.
 */
export class AttemptSpans {
  constructor(private readonly tracing: TraceScope) {}

  start(d: ClaimedDelivery): AttemptSpan {
    const attributes: Attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: 'POST',
      [ATTR_WEBHOOK_ENDPOINT_ID]: d.endpointId,
      [ATTR_WEBHOOK_DELIVERY_ID]: d.id,
      [ATTR_WEBHOOK_ATTEMPT]: d.attempts,
      [ATTR_WEBHOOK_FORMAT]: d.format,
    };
    if (d.event) {
      attributes[ATTR_EVENT_ID] = d.event.id;
      attributes[ATTR_EVENT_TYPE] = d.event.type;
    }
    try {
      const url = new URL(d.url);
      attributes[ATTR_URL_SCHEME] = url.protocol.replace(/:$/, '');
      attributes[ATTR_SERVER_ADDRESS] = url.hostname;
      attributes[ATTR_SERVER_PORT] = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    } catch {
      // The send reports the invalid URL.
    }
    const links: Link[] = [];
    if (d.traceContext) {
      const origin = trace.getSpanContext(this.tracing.extract({ ...d.traceContext }));
      if (origin && isSpanContextValid(origin)) links.push({ context: origin });
    }
    const span = this.tracing.tracer.startSpan(ATTEMPT_SPAN_NAME, { kind: SpanKind.CLIENT, root: true, attributes, links }, ROOT_CONTEXT);
    return {
      headers: this.tracing.headersFor(span),
      end: (result) => {
        span.setAttribute(ATTR_WEBHOOK_OUTCOME, result.outcome);
        if (result.status !== null) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, result.status);
        if (result.outcome !== 'delivered') {
          span.setAttribute(ATTR_ERROR_TYPE, errorType(result));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
      },
    };
  }
}

/** The status code, or the kind of failure without its detail: timeout, a network error's code. */
function errorType({ status, error }: AttemptRecord): string {
  if (status !== null) return String(status);
  if (error?.startsWith('no response within')) return 'timeout';
  const network = /^network error: ([A-Z_]+)$/.exec(error ?? '');
  if (network) return network[1];
  return error === 'the event is no longer available' ? 'event_gone' : 'network_error';
}
