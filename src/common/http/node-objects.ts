import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The Node request and response under the adapter's objects, for the one route that writes its
 * own bytes (the live stream). Fastify wraps them (`raw`) and must be told to step aside
 * (`hijack`); Express's objects are the Node ones.
 */
export function nodeObjects(req: unknown, res: unknown): { req: IncomingMessage; res: ServerResponse } {
  const r = res as { raw?: ServerResponse; hijack?: () => void };
  r.hijack?.();
  return {
    req: ((req as { raw?: IncomingMessage }).raw ?? req) as IncomingMessage,
    res: r.raw ?? (res as ServerResponse),
  };
}
