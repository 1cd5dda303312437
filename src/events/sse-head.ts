import type { IncomingMessage, ServerResponse } from 'node:http';
import { REQUEST_ID_HEADER, requestIdOf } from '../common/request-id/request-id';

/**
 * A stream's 200 answer: the headers every stream of the service sends (no caching, no proxy
 * buffering, the request id), then a first comment, with which the client knows it is subscribed.
 */
export function writeStreamHead(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    [REQUEST_ID_HEADER]: requestIdOf(req) ?? '',
  });
  res.write(':ok\n\n');
}
