import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

/** A caller-supplied id is kept when it is short and plain, so traces can span services. */
const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** The id of a request: the caller's `x-request-id` when acceptable, else a fresh UUID. */
export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && ACCEPTABLE.test(given) ? given : randomUUID();
}

/**
 * Reads the id the server settled on. It is written back into the request headers on arrival,
 * so every layer reads it the same way whatever the HTTP adapter.
 */
export function requestIdOf(req: { headers: IncomingHttpHeaders }): string | undefined {
  const v = req.headers[REQUEST_ID_HEADER];
  return typeof v === 'string' ? v : undefined;
}
