import { SpanKind, SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
// Types only: the instance is the one @nestjs/platform-fastify creates.
import type { FastifyInstance, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { ATTR_REQUEST_ID } from './attributes';
import type { TraceScope } from './trace-scope';

/**
 * One SERVER span per request, named by its method and route template (`POST /v1/groups/:id/join`,
 * never the path: ids stay out of names), child of the caller's span when the request carries a
 * W3C `traceparent`. The span starts on arrival and ends when the response is closed, so it covers
 * the rate limiter, the body and the answer; each route's handler runs with the span active, so
 * the statements it sends become its children.
 */
export function traceRequests(fastify: FastifyInstance, tracing: TraceScope): void {
  const contexts = new WeakMap<FastifyRequest, Context>();

  fastify.addHook('onRequest', (request, reply, done) => {
    const route = request.routeOptions.url;
    const method = request.method;
    const parent = tracing.extract(request.raw.headers);
    const span = tracing.tracer.startSpan(
      route ? `${method} ${route}` : method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: method,
          ...(route ? { [ATTR_HTTP_ROUTE]: route } : {}),
          [ATTR_URL_SCHEME]: request.protocol,
          [ATTR_REQUEST_ID]: request.id,
        },
      },
      parent,
    );
    // A request sampled out is left alone: no context for its handler (its statements get no span,
    // its events keep no trace context), nothing to end.
    if (!span.isRecording()) return done();
    contexts.set(request, trace.setSpan(parent, span));
    // 'close' comes once the answer is sent, or the connection is gone: streams and hijacked
    // replies included, which never reach Fastify's onResponse.
    reply.raw.once('close', () => {
      if (reply.raw.headersSent) {
        const status = reply.raw.statusCode;
        span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
        // The conventions count a server's 5xx as its error, and a 4xx as the caller's.
        if (status >= 500) {
          span.setAttribute(ATTR_ERROR_TYPE, String(status));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
      }
      span.end();
    });
    done();
  });

  // The handler, not a hook, is what runs with the span active: the body has been read by then,
  // and `run` scopes the span to the handler's own work (guards, pipes, controller, filters).
  fastify.addHook('onRoute', (route) => {
    const handler = route.handler as (this: unknown, ...args: Parameters<RouteHandlerMethod>) => unknown;
    route.handler = function traced(this: unknown, request, reply) {
      const context = contexts.get(request as FastifyRequest);
      return context ? tracing.run(context, () => handler.call(this, request, reply)) : handler.call(this, request, reply);
    } as RouteHandlerMethod;
  });
}
