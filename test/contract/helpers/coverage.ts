import type { Ledger } from './contract-client';

/**
 * What the run did not see: per operation, a documented success status, and each of 400, 401 and
 * 404 that the operation documents (400 not of `no400`: routes with no input a validating proxy
 * lets through to be refused).
 */
export function coverageGaps(ledger: Ledger, no400: readonly string[]): string[] {
  const gaps: string[] = [];
  for (const op of ledger.ops.values()) {
    const seen = ledger.seen.get(op.key) ?? new Set<number>();
    const wanted = [
      op.statuses.filter((s) => s < 300),
      ...[400, 401, 404].filter((s) => op.statuses.includes(s) && !(s === 400 && no400.includes(op.key))).map((s) => [s]),
    ];
    for (const any of wanted) if (any.length > 0 && !any.some((s) => seen.has(s))) gaps.push(`${op.key}: no ${any.join(' or ')} (saw ${[...seen].join(', ') || 'nothing'})`);
  }
  return gaps;
}
