/** SPEC §3/§6: six attempts; the waits after attempts 1 to 5. The sixth attempt is terminal. */
export const MAX_ATTEMPTS = 6;
const WAITS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 8 * 3_600_000];

/** The wait before the next attempt after `attempts` failed ones, or null when none remains. */
export function retryDelayMs(attempts: number): number | null {
  return attempts >= 1 && attempts < MAX_ATTEMPTS ? WAITS_MS[attempts - 1] : null;
}

/** What an attempt's outcome means: retry on 5xx, 408, 429 and network failures or timeouts. */
export type AttemptOutcome = { kind: 'delivered' } | { kind: 'retry'; reason: string } | { kind: 'fail'; reason: string };

export function classifyResponse(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  if (status >= 500 || status === 408 || status === 429) return { kind: 'retry', reason: `HTTP ${status}` };
  return { kind: 'fail', reason: `HTTP ${status}` };
}

/** SPEC §6: an endpoint is disabled after this many consecutive failed attempts. */
export const AUTO_DISABLE_AFTER = 25;
