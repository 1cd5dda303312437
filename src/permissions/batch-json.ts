import type { BatchCheckResult } from './dto/check-batch.dto';

/** A check-batch answer already serialised; sent as it is. */
export type BatchJson = string & { readonly __batchJson: unique symbol };

const SOURCES = ['none', 'timeout', 'default', 'override'] as const;
/** Every answer that names no role, as JSON.stringify writes it, by whether it allows and its source. */
const PLAIN = new Map(
  [true, false].map((allowed) => [allowed, new Map(SOURCES.map((source) => [source as string, JSON.stringify({ allowed, source })]))]),
);

/**
 * `{ results }` byte for byte as JSON.stringify writes it: a batch is a hundred small answers of a
 * handful of shapes, each written once per batch (an answer through a role once per role), on the
 * route whose cost is all in this process (its answers come from the cache).
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
    } else json = PLAIN.get(r.allowed)?.get(r.source) ?? JSON.stringify(r);
    out += i === 0 ? json : `,${json}`;
  }
  return `${out}]}` as BatchJson;
}
