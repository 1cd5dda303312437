import type { Logger } from '@nestjs/common';
import { databaseUnavailableCause } from './db-unavailable';

/**
 * Logs a failure of background work (worker tick, sweep, relay): while the database cannot be
 * reached that is expected and retried on the next round, so one warn line without a stack;
 * anything else is a bug, logged with its stack.
 */
export function logFailure(logger: Logger, err: unknown, message: string, fields: Record<string, unknown> = {}): void {
  const cause = databaseUnavailableCause(err);
  if (cause) logger.warn({ ...fields, cause }, `${message}: database unavailable`);
  else logger.error({ ...fields, err }, message);
}
