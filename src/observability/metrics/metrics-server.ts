import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import { StartupError } from '../../common/startup-error';
import type { Settings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.module';
import { MetricsRegistry } from './metrics-registry';

export const METRICS_PATH = '/metrics';

/**
 * `GET /metrics` on METRICS_PORT, a listener of its own: the API port never serves it, so the
 * public surface shows nothing of the service's internals. Started with the app, closed last.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('metrics');
  private server: Server | null = null;

  constructor(
    private readonly metrics: MetricsRegistry,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const port = this.settings.metricsPort;
    if (port === undefined) return;
    const server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path !== METRICS_PATH) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`not found: the metrics are at ${METRICS_PATH}\n`);
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET, HEAD' }).end();
        return;
      }
      this.metrics.metrics().then(
        (text) => res.writeHead(200, { 'content-type': this.metrics.contentType }).end(req.method === 'HEAD' ? undefined : text),
        (err: unknown) => {
          this.logger.error({ err }, 'collecting the metrics failed');
          res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('collecting the metrics failed\n');
        },
      );
    });
    // A scraper that stops sending must not hold a socket.
    server.headersTimeout = 10_000;
    server.requestTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => reject(listenFailure(err, port, this.settings.host)));
      server.listen({ port, host: this.settings.host }, () => resolve());
    });
    this.server = server;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function listenFailure(err: NodeJS.ErrnoException, port: number, host: string): Error {
  if (err.code === 'EADDRINUSE') {
    return new StartupError(`METRICS_PORT ${port} is already in use on ${host}: stop the other process, or set METRICS_PORT to a free port`);
  }
  if (err.code === 'EACCES') return new StartupError(`not allowed to listen on METRICS_PORT ${port}: set a port above 1023`);
  return err;
}
