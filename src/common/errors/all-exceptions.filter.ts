import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingHttpHeaders } from 'node:http';
import { requestIdOf } from '../request-id/request-id';
import { resolveError } from './error-envelope';

/** Writes the SPEC §7 envelope for everything that escapes a handler, framework errors included. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('errors');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<{ headers: IncomingHttpHeaders; method?: string; url?: string }>();
    const res = http.getResponse();
    const requestId = requestIdOf(req);
    const { envelope, headers, unexpected } = resolveError(exception, requestId);
    if (unexpected) {
      this.logger.error(
        { err: exception, requestId, method: req.method, url: req.url },
        'unhandled error while serving a request',
      );
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
