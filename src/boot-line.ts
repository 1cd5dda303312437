import { hostname } from 'node:os';
import { StartupError } from './common/startup-error';
import { SettingsError } from './config/settings';

/** pino's numbers for the levels of these lines. */
const LEVELS = { fatal: 60, warn: 40 } as const;

type BootLevel = keyof typeof LEVELS;

/**
 * A line the server writes outside its logger (before it exists, or about the process itself), on
 * stderr. In production it is one JSON object with pino's fields, so whatever reads the log parses
 * every line of it; elsewhere it stays the readable `guildhall: …`. The write is synchronous (stderr
 * is a pipe or a file under a supervisor), so a refusal that exits right after is never lost.
 */
export function bootLine(json: boolean, level: BootLevel, context: string, message: string, fields: Record<string, unknown> = {}): void {
  const line = json
    ? JSON.stringify({ level: LEVELS[level], time: Date.now(), pid: process.pid, hostname: hostname(), context, ...fields, msg: message })
    : `guildhall: ${message}`;
  process.stderr.write(`${line}\n`);
}

/** Whether the server's lines are JSON: the same rule as its logger's (SPEC §8 NODE_ENV). */
export const jsonLines = (env: NodeJS.ProcessEnv = process.env): boolean => env.NODE_ENV === 'production';

/**
 * The one line for a server start-up that failed, and exit 1: the cause and its fix, never a
 * stack. Kept apart from the app's code, so a bad setting is refused before that code loads.
 */
export function failStartup(err: unknown): never {
  const known = err instanceof StartupError || err instanceof SettingsError;
  bootLine(jsonLines(), 'fatal', 'Guildhall', known ? err.message : `start-up failed: ${(err as Error)?.message ?? String(err)}`);
  process.exit(1);
}

/**
 * In production, Node's own output goes the same way: its warnings, which it would print as text,
 * and an uncaught error, which it would print as a stack before exiting 1.
 */
export function processLinesAsJson(): void {
  // Node prints its warnings from a listener of its own: without it, only this one speaks.
  process.removeAllListeners('warning');
  process.on('warning', (warning) => bootLine(true, 'warn', 'node', `${warning.name}: ${warning.message}`));
  process.on('uncaughtException', (err: unknown) => {
    // pino's shape for an error, so the stack stays inside the one line.
    const e = err instanceof Error ? { type: err.name, message: err.message, stack: err.stack } : { message: String(err) };
    bootLine(true, 'fatal', 'node', `uncaught error: ${e.message}`, { err: e });
    process.exit(1);
  });
}
