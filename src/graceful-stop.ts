import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Server } from 'node:http';

export interface StopOptions {
  /** Said the moment the signal arrives, before the drain (the development launcher's notice). */
  onSignal?: (signal: NodeJS.Signals) => void;
  /** What the launcher owns beside the app, stopped after it (the embedded database). */
  alsoStop?: () => Promise<unknown>;
}

/**
 * On the first SIGTERM or SIGINT: the app drains and closes (its shutdown hooks run as on any close),
 * then `alsoStop` runs, then one line says how long it took and how many client connections the drain
 * closed, and the process exits 0. Later signals are ignored rather than cutting the drain short:
 * under npm, Ctrl-C in a terminal reaches the server twice (from the terminal, and passed on by npm).
 * Installed before `listen`, so every client connection is counted.
 */
export function stopOnSignals(app: NestFastifyApplication, options: StopOptions = {}): void {
  let stopping = false;
  let connectionsClosed = 0;
  (app.getHttpServer() as Server).on('connection', (socket) => {
    socket.once('close', () => {
      if (stopping) connectionsClosed++;
    });
  });

  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    const logger = new Logger('Guildhall');
    options.onSignal?.(signal);
    let failure: unknown;
    await app.close().catch((err: unknown) => (failure = err));
    // What the launcher owns is stopped even when the app's close failed.
    await options.alsoStop?.().catch((err: unknown) => (failure ??= err));
    if (failure) {
      logger.error({ err: failure, signal }, `${signal}: the shutdown failed after ${Date.now() - started} ms`);
      process.exit(1);
    }
    const drainMs = Date.now() - started;
    logger.log(
      { signal, drainMs, connectionsClosed },
      `${signal}: stopped after ${drainMs} ms; ${connectionsClosed} client connection(s) closed`,
    );
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
