import type { BatchCheckResult } from './dto/check-batch.dto';

/** A check-batch answer already serialised; sent as it is. */
export type BatchJson = string & { readonly __batchJson: unique symbol };

/** Every answer that names no role, as JSON.stringify writes it: [denying, allowing] by source. */
const PLAIN = [false, true].map((allowed) => ({
  none: JSON.stringify({ allowed, source: 'none' }),
  timeout: JSON.stringify({ allowed, source: 'timeout' }),
  default: JSON.stringify({ allowed, source: 'default' }),
  override: JSON.stringify({ allowed, source: 'override' }),
}));

/**
 * `{ results }` byte for byte as JSON.stringify writes it: a batch is a hundred small answers of a
 * handful of shapes, those naming no role written once for all and one through a role once a batch
 * per role, on the route whose cost is all in this process (its answers come from the cache).
 */
export function batchJson(results: readonly BatchCheckResult[]): BatchJson {
  const viaRole = new Map<string, string>();
  let out = '{"results":[';
  for (let i = 0; i < results.length; i++) {
    const r = results[i];
    let json: string | undefined;
    if ('error' in r) json = JSON.stringify(r);
    else if (r.source === 'role') {
      json = viaRole.get(r.viaRoleId);
      if (json === undefined) viaRole.set(r.viaRoleId, (json = JSON.stringify(r)));
    } else json = PLAIN[r.allowed ? 1 : 0][r.source];
    out += i === 0 ? json : `,${json}`;
  }
  return `${out}]}` as BatchJson;
}
