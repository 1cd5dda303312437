import type { OnApplicationShutdown } from '@nestjs/common';
import http from 'node:http';
import https from 'node:https';
import type { SvcEvent } from '../events/event';
import type { HostAddressSet } from './address-class';
import { classifyResponse, type AttemptOutcome } from './backoff';
import { formatPayload, type WebhookFormat } from './payload-formats';
import { standardHeaders, svcHeaders, type SigningKeys } from './signed-headers';
import { RefusedAddressError, vettedLookup, type Resolve } from './vetted-lookup';

/** SPEC §6: no response within 10 seconds counts as a failed attempt. */
export const SEND_TIMEOUT_MS = 10_000;

export interface Attempt extends SigningKeys {
  deliveryId: string;
  url: string;
  format: WebhookFormat;
  event: SvcEvent;
  /** The attempt's trace context (traceparent), when traces are on; outside what is signed. */
  traceHeaders?: Record<string, string>;
}

export interface AttemptResult {
  outcome: AttemptOutcome;
  status: number | null;
  /** From the request's start to its answer, or to the failure. */
  durationMs: number;
}

/**
 * The request of one attempt: svc and standard deliveries are signed; discord and slack ones are
 * not (SPEC §5.5).
 */
export function buildRequest(a: Attempt, now: Date): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(formatPayload(a.format, a.event));
  const headers: Record<string, string> = { ...a.traceHeaders, 'content-type': 'application/json', 'user-agent': 'guildhall-webhooks/1' };
  if (a.format === 'svc') Object.assign(headers, svcHeaders(a, a.deliveryId, a.event, body, now));
  if (a.format === 'standard') Object.assign(headers, standardHeaders(a, a.event, body, now));
  return { body, headers };
}

/**
 * Sends attempts and classifies what came back. Connections to receivers are kept open between
 * attempts, as many per origin as attempts are in flight to it. An idle one is closed after 4 s,
 * before the common 5 s server keep-alive timeouts, so an attempt rarely lands on a connection
 * the receiver is closing. node:http rather than fetch: it costs several times less CPU per request.
 *
 * Unless private hosts are allowed, a connection is only opened to an address that may be reached
 * (vetted-lookup.ts): a host name that resolves to an internal, special-purpose or this server's
 * own address is refused, and the attempt is retried like a connection error. A host is
 * resolved when a connection to it is opened; a kept-open connection goes on to the address that
 * was checked when it was opened. Each sender has its own connections, so none is shared with a
 * sender under another policy.
 */
export class DeliverySender implements OnApplicationShutdown {
  private readonly agents: Record<string, http.Agent>;

  constructor(
    private readonly allowPrivateHosts: boolean,
    resolve: Resolve,
    hostAddresses: () => HostAddressSet,
  ) {
    const lookup = vettedLookup(resolve, allowPrivateHosts, hostAddresses);
    this.agents = {
      'http:': new http.Agent({ keepAlive: true, timeout: 4_000, lookup }),
      'https:': new https.Agent({ keepAlive: true, timeout: 4_000, lookup }),
    };
  }

  /** Closes the kept-open connections: on shutdown, after the worker has drained its attempts. */
  onApplicationShutdown(): void {
    for (const agent of Object.values(this.agents)) agent.destroy();
  }

  /** Sends one attempt and classifies what came back. Never rejects; redirects are not followed. */
  send(a: Attempt, timeoutMs = SEND_TIMEOUT_MS): Promise<AttemptResult> {
    const { body, headers } = buildRequest(a, new Date());
    const started = performance.now();
    return new Promise((resolve) => {
      let settled = false;
      const settle = (r: Omit<AttemptResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        resolve({ ...r, durationMs: Math.round(performance.now() - started) });
      };
      const retry = (reason: string) => settle({ outcome: { kind: 'retry', reason }, status: null });
      let url: URL;
      try {
        url = new URL(a.url);
      } catch {
        return retry('network error: invalid url');
      }
      const agent = this.agents[url.protocol];
      if (!agent) return retry(`network error: unsupported protocol ${url.protocol}`);
      const send = url.protocol === 'https:' ? https.request : http.request;
      let req: http.ClientRequest;
      try {
        // Credentials in the URL go out as an Authorization: Basic header (node:http decodes them).
        req = send(url, { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
          const status = res.statusCode ?? 0;
          settle({ outcome: classifyResponse(status), status });
          // The body is not needed: drained, so the connection can carry the next attempt.
          res.on('error', () => undefined);
          res.once('close', () => clearTimeout(timer));
          res.resume();
        });
      } catch (err) {
        // Thrown, not emitted: credentials that are not valid percent-encoding (URIError), say. A
        // rejection would leave the worker's slot taken; only the code is kept, as a message may
        // quote the URL, credentials and all.
        return retry(`network error: ${(err as NodeJS.ErrnoException).code ?? 'invalid request'}`);
      }
      // Until the response is complete: a receiver that never answers, or never ends its answer,
      // loses the connection.
      const timer = setTimeout(() => {
        retry(`no response within ${timeoutMs} ms`);
        req.destroy();
      }, timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        retry(err instanceof RefusedAddressError ? err.message : `network error: ${err.code ?? err.message}`);
      });
      req.end(body);
    });
  }
}
