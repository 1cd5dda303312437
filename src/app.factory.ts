import { emptyUserIdParam } from './common/http/empty-user-id';
import 'reflect-metadata';
import { NotFoundException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Logger } from 'nestjs-pino';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { AppModule } from './app.module';
import { ApiError } from './common/errors/api-error';
import { MAX_PATH_SEGMENT, resolveError } from './common/errors/error-envelope';
import { RequestAuthenticator, type AuthenticatedRequest } from './common/auth/request-authenticator';
import { routeCredentialOf, stampRouteCredentials } from './common/auth/route-credential';
import { isBlankBody, jsonBodyProblem, parseClearJson, parsedBodyProblem } from './common/http/json-body';
import { cutSilentConnectionsOnClose } from './common/http/silent-connections';
import { RateLimiter } from './common/rate-limit/rate-limiter';
import { HealthService } from './health/health.service';
import { DataSource } from 'typeorm';
import { HttpMetrics } from './observability/metrics/http-metrics';
import { consistencyHeaderProblem, installConsistencyHeaders } from './db/replica/consistency-headers';
import { ConsistencyTokens } from './db/replica/consistency-token';
import { SchemaWatch } from './db/schema/schema-watch';
import { rateLimitCheck } from './common/rate-limit/rate-limit-check';
import { REQUEST_ID_HEADER, requestIdFor } from './common/request-id/request-id';
import { SvcValidationPipe } from './common/validation/validation.pipe';
import type { Settings } from './config/settings';
import { mountConsole } from './console/mount-console';
import { TRACING } from './observability/tracing/tracing.module';
import type { Tracing } from './observability/tracing/tracing';
import { quietBoot } from './logging';
import { mountOpenApi } from './openapi';

/**
 * SPEC §8 sets no body-size limit; Fastify's 1 MiB default is raised to a ceiling that only
 * guards the process's memory.
 */
export const BODY_LIMIT_BYTES = 100 * 1024 * 1024;
export const HEADERS_TIMEOUT_MS = 10_000;
const HEALTH_PATHS = new Set(['/', '/healthz']);
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const SHUTTING_DOWN = new ApiError('service_unavailable', 'the server is shutting down; retry on another instance', { 'retry-after': '1' });
export const REQUEST_TIMEOUT_MS = 30_000;

/** How long a refused request's body may go on arriving (discarded) after the answer. */
export const LINGER_MS = 2_000;

/** Once the answer is out, a body still arriving after LINGER_MS ends the connection. */
function lingerThenCut(req: IncomingMessage, res: ServerResponse): void {
  res.once('finish', () => {
    if (req.complete) return;
    const cut = setTimeout(() => req.socket.destroy(), LINGER_MS).unref();
    req.once('end', () => clearTimeout(cut));
    req.socket.once('close', () => clearTimeout(cut));
  });
}

/** Whether a body follows the headers (one still unread when a request is refused on arrival). */
function carriesBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** Whether the body is JSON by the language's own rules (run only on a body Fastify's parser refused). */
function isPlainJson(body: Buffer): boolean {
  try {
    JSON.parse(body.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

type JsonParser = (req: unknown, body: Buffer, done: (err: Error | null, value?: unknown) => void) => void;

/**
 * Builds the application exactly as production runs it (pipes, filters, guards, adapter),
 * initialised but not yet listening. `main.ts` and the tests both start from here; the signals are
 * the launcher's to handle (graceful-stop.ts).
 */
export async function createApp(settings: Settings): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    logger: false,
    // User ids have no length cap (SPEC §8) and travel in paths: Fastify's default is 100 characters.
    // A path carries ids up to 16,384 characters (MAX_PATH_USER_ID); the router and Node's header
    // limit take more, so a longer one reaches its route and is refused there by name (400), not
    // as an unknown route (404) or by Node (431).
    routerOptions: { maxParamLength: MAX_PATH_SEGMENT },
    genReqId: (req: IncomingMessage) => requestIdFor(req),
    requestIdHeader: false,
    // A path Fastify cannot route (a percent-encoding that is not UTF-8, a segment over
    // maxParamLength) is refused before any hook, and outside Nest's error handling: answered
    // here in our envelope, with the request id every answer carries, not Fastify's own body.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const { envelope } = resolveError(error, request.id);
      void reply.code(envelope.status).header(REQUEST_ID_HEADER, request.id).send(envelope);
    },
    // A client has 10 s to send its headers and 30 s for the whole request, checked every second:
    // trickling clients (slow loris) are cut off instead of holding sockets for Node's 60-300 s.
    http: { headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1_000, maxHeaderSize: 80 * 1024 },
    requestTimeout: REQUEST_TIMEOUT_MS,
  });

  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(settings), adapter, {
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(quietBoot(app.get(Logger)));
  // Before the hook below (so the span covers refused requests too) and before any route exists.
  app.get<symbol, Tracing | null>(TRACING)?.traceRequests(adapter.getInstance());
  const tokens = app.get(ConsistencyTokens);
  installConsistencyHeaders(adapter.getInstance(), app.get(DataSource), tokens);
  // On arrival, before routing: every response carries the request id (404s and body-parse errors
  // included), and the rate limiter sees every request. One hook, as it runs on every request.
  const limiter = app.get(RateLimiter);
  const limit = limiter.enabled ? rateLimitCheck(limiter, settings.trustProxy) : null;
  const health = app.get(HealthService);
  const authenticator = app.get(RequestAuthenticator);
  const schema = app.get(SchemaWatch);
  adapter.getInstance().addHook('onRequest', (request, reply, done) => {
    request.raw.headers[REQUEST_ID_HEADER] = request.id;
    reply.header(REQUEST_ID_HEADER, request.id);
    // Shutting down: requests already in flight finish, new ones are refused (the health routes
    // still answer, /healthz with its 503 report), and the client is told to reconnect elsewhere.
    if (health.stopping && !HEALTH_PATHS.has(request.url.split('?')[0])) {
      reply.header('connection', 'close');
      return done(SHUTTING_DOWN);
    }
    const refused = limit && limit(request.raw);
    if (refused) return done(refused);
    if (WRITES.has(request.method)) {
      const outgrown = schema.writeRefusal();
      if (outgrown) return done(outgrown);
    }
    // Refused before the body is read (DECISIONS §31): an unknown route, a missing or wrong
    // credential. Node discards what of the body still comes (nothing is buffered), and a client
    // still sending it LINGER_MS after the answer is cut off. Closing at once instead would reset
    // the connection under a client that is still writing, which may then never read the answer.
    const refuse = (err: unknown) => {
      if (carriesBody(request.headers)) lingerThenCut(request.raw, reply.raw);
      done(err as Error);
    };
    if (request.is404) return refuse(new NotFoundException(`Cannot ${request.method} ${request.url.split('?')[0]}`));
    const empty = emptyUserIdParam(request.routeOptions.url, request.params);
    const malformed = empty ? ApiError.badRequest(`${empty} must not be empty`) : consistencyHeaderProblem(tokens, request.headers);
    if (malformed) return done(malformed);
    let checking: void | Promise<void>;
    try {
      checking = authenticator.authenticate(request as unknown as AuthenticatedRequest, routeCredentialOf(request.routeOptions.config));
    } catch (err) {
      return refuse(err);
    }
    if (checking) checking.then(() => done(), refuse);
    else done();
  });
  app.get(HttpMetrics).install(adapter.getInstance());
  cutSilentConnectionsOnClose(adapter.getInstance());
  app.useGlobalPipes(new SvcValidationPipe());

  // An empty body sent as application/json means "no body" (DECISIONS §17), not malformed JSON.
  const json = adapter.getInstance().getDefaultJsonParser('error', 'error') as unknown as JsonParser;
  app.useBodyParser('application/json', { bodyLimit: BODY_LIMIT_BYTES }, ((req, body, done) => {
    if (isBlankBody(body)) return done(null, undefined);
    const clear = parseClearJson(body);
    if (clear) return 'value' in clear ? done(null, clear.value) : done(ApiError.badRequest(clear.problem));
    const problem = jsonBodyProblem(body);
    if (problem) return done(ApiError.badRequest(problem));
    json(req, body, (err, value) => {
      // Fastify's parser refuses valid JSON that holds these keys (prototype pollution) with the error of broken JSON: say which.
      if (err && isPlainJson(body)) {
        return done(ApiError.badRequest('request body holds a "__proto__" or "constructor": { "prototype" } key, which is refused'));
      }
      const unstorable = err ? null : parsedBodyProblem(body, value);
      if (unstorable) return done(ApiError.badRequest(unstorable));
      done(err, value);
    });
  }) as JsonParser);

  stampRouteCredentials(app);
  mountOpenApi(app);
  await mountConsole(app, settings);
  await app.init();
  await adapter.getInstance().ready();
  return app;
}
