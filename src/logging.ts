import { RequestMethod, type LoggerService } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { Settings } from './config/settings';
import { requestIdOf } from './common/request-id/request-id';

/**
 * nestjs-pino settings: one JSON object per line in production, pretty lines in development,
 * LOG_LEVEL honoured (`silent` silences everything). Requests are logged at debug, so a busy
 * instance's info log holds what needs attention; unexpected errors are logged by the error filter
 * with their request id at any level.
 */
export function loggerParams(settings: Settings): Params {
  const pretty = settings.nodeEnv === 'development' && settings.logLevel !== 'silent' && canResolve('pino-pretty');
  return {
    // A request line is a debug line: below debug, no per-request logger (and no async context per
    // request) is set up at all, which is most of its cost. The path pattern reaches every route
    // through Fastify's middleware layer (nestjs-pino's default reaches only `/`).
    forRoutes: settings.logLevel === 'debug' ? [{ path: '{*splat}', method: RequestMethod.ALL }] : [],
    pinoHttp: {
      level: settings.logLevel,
      genReqId: (req: IncomingMessage) => requestIdOf(req) ?? '',
      customLogLevel: (_req: IncomingMessage, res: ServerResponse, err?: Error) =>
        err || res.statusCode >= 500 ? 'error' : 'debug',
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
      serializers: {
        req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
      },
      ...(pretty ? { transport: { target: 'pino-pretty', options: { singleLine: true, translateTime: 'SYS:HH:MM:ss.l' } } } : {}),
    },
  };
}

/** pino-pretty is a development dependency: a production install runs without it. */
function canResolve(name: string): boolean {
  try {
    require.resolve(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * Nest's start-up chatter: one line per module and per route, and its "starting" and "started",
 * useful only when debugging. The server's own start line (boot.ts) says what an operator needs.
 */
const BOOT_CONTEXTS = new Set(['NestFactory', 'NestApplication', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/** Sends Nest's start-up chatter to debug, so an info log starts with the one start line. */
export function quietBoot(inner: LoggerService): LoggerService {
  const context = (params: unknown[]) => params[params.length - 1];
  return {
    log: (message: unknown, ...params: unknown[]) =>
      BOOT_CONTEXTS.has(context(params) as string) ? inner.debug?.(message, ...params) : inner.log(message, ...params),
    error: (message: unknown, ...params: unknown[]) => inner.error(message, ...params),
    warn: (message: unknown, ...params: unknown[]) => inner.warn(message, ...params),
    debug: (message: unknown, ...params: unknown[]) => inner.debug?.(message, ...params),
    verbose: (message: unknown, ...params: unknown[]) => inner.verbose?.(message, ...params),
    fatal: (message: unknown, ...params: unknown[]) => inner.fatal?.(message, ...params),
  };
}
