/** A stand-in OpenTelemetry collector: takes OTLP/HTTP JSON exports and keeps their spans. */
import { gunzipSync } from 'node:zlib';
import { listenLocal, type LocalServer } from './webhook-receiver';

/** SpanKind as OTLP numbers it. */
export const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: number;
  resource: Record<string, unknown>;
}

export interface OtlpReceiver extends LocalServer {
  /** http://127.0.0.1:<port>: what OTEL_EXPORTER_OTLP_ENDPOINT names. */
  endpoint: string;
  /** Every export request, as received (path and raw body). */
  requests: { path: string; body: string }[];
  spans: ReceivedSpan[];
  /** Waits until `find` matches a span, at most `timeoutMs`. */
  waitForSpan(find: (s: ReceivedSpan) => boolean, timeoutMs?: number): Promise<ReceivedSpan>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}

function valueOf(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

const attributesOf = (kvs: OtlpKeyValue[] | undefined) => Object.fromEntries((kvs ?? []).map((kv) => [kv.key, valueOf(kv.value)]));

/** Starts the receiver; every POST is answered 200 `{}` as a collector does. */
export async function otlpReceiver(): Promise<OtlpReceiver> {
  const requests: OtlpReceiver['requests'] = [];
  const spans: ReceivedSpan[] = [];
  const waiters = new Set<() => void>();
  const local = await listenLocal((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let raw = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      const body = raw.toString('utf8');
      requests.push({ path: req.url ?? '', body });
      try {
        const parsed = JSON.parse(body) as {
          resourceSpans?: { resource?: { attributes?: OtlpKeyValue[] }; scopeSpans?: { spans?: Record<string, any>[] }[] }[];
        };
        for (const rs of parsed.resourceSpans ?? []) {
          const resource = attributesOf(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                name: s.name,
                kind: s.kind,
                attributes: attributesOf(s.attributes),
                links: (s.links ?? []).map((l: { traceId: string; spanId: string }) => ({ traceId: l.traceId, spanId: l.spanId })),
                status: s.status?.code ?? 0,
                resource,
              });
            }
          }
        }
      } catch {
        // kept in `requests` as received
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      waiters.forEach((w) => w());
    });
  });
  const waitForSpan = (find: (s: ReceivedSpan) => boolean, timeoutMs = 10_000) =>
    new Promise<ReceivedSpan>((resolve, reject) => {
      const check = () => {
        const found = spans.find(find);
        if (!found) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no matching span within ${timeoutMs} ms; received: ${spans.map((s) => s.name).join(', ')}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  return { ...local, endpoint: `http://127.0.0.1:${local.port}`, requests, spans, waitForSpan };
}

/** The parts of a W3C traceparent header. */
export function parseTraceparent(header: string | undefined): { traceId: string; parentId: string; sampled: boolean } {
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(header ?? '');
  if (!m) throw new Error(`not a traceparent: ${header}`);
  return { traceId: m[1], parentId: m[2], sampled: (parseInt(m[3], 16) & 1) === 1 };
}
