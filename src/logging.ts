import { RequestMethod } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { Settings } from './config/settings';
import { requestIdOf } from './common/request-id/request-id';

/**
 * nestjs-pino settings: one JSON object per line in production, pretty lines in development,
 * LOG_LEVEL honoured (`silent` silences everything). Successful requests log at debug so a busy
 * instance's info log holds what needs attention.
 */
export function loggerParams(settings: Settings): Params {
  const pretty = settings.nodeEnv === 'development' && settings.logLevel !== 'silent' && canResolve('pino-pretty');
  return {
    // Every path: nestjs-pino's default pattern reaches only `/` through Fastify's middleware layer.
    forRoutes: [{ path: '{*splat}', method: RequestMethod.ALL }],
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
