import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingHttpHeaders } from 'node:http';
import { DbMetrics } from '../../db/db-metrics';
import { requestIdOf } from '../request-id/request-id';
import { resolveError } from './error-envelope';
import { ThrottledLog } from './throttled-log';

interface OutageDetail {
  requestId?: string;
  method?: string;
  url?: string;
  cause: string;
}

/** Writes the SPEC §7 envelope for everything that escapes a handler, framework errors included. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('errors');
  /**
   * While the database is down every request fails the same known way: a stack apiece would bury
   * the log, so the 503s are summed up, one warn line a second (DECISIONS §30).
   */
  private readonly outageLog = new ThrottledLog<OutageDetail>((detail, count) =>
    this.logger.warn({ ...detail, count }, 'database unavailable: answered 503 service_unavailable'),
  );

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly db: DbMetrics,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<{ headers: IncomingHttpHeaders; method?: string; url?: string }>();
    const res = http.getResponse();
    const requestId = requestIdOf(req);
    const { envelope, headers, unexpected, unavailable } = resolveError(exception, requestId);
    if (unexpected) {
      this.logger.error(
        { err: exception, requestId, method: req.method, url: req.url },
        'unhandled error while serving a request',
      );
    } else if (unavailable) {
      this.outageLog.note({ requestId, method: req.method, url: req.url, cause: unavailable });
      // An outage period begins, for svc_db_unavailable, unless one is open.
      this.db.unavailable();
    }
    const adapter = this.adapterHost.httpAdapter;
    // A stream that already sent its headers cannot carry an envelope any more: just end it.
    if (adapter.isHeadersSent(res)) {
      adapter.end(res);
      return;
    }
    for (const [name, value] of Object.entries(headers)) adapter.setHeader(res, name, value);
    adapter.reply(res, envelope, envelope.status);
  }
}
