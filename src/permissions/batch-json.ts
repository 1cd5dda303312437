import type { BatchCheckResult } from './dto/check-batch.dto';

/** A check-batch answer already serialised; sent as it is. */
export type BatchJson = string & { readonly __batchJson: unique symbol };

/**
 * `{ results }` byte for byte as JSON.stringify writes it: a batch is a hundred small
 * answers of a handful of shapes, and writing them here costs a fraction of the generic
 * serialiser, on the route whose cost is all in this process (its answers come from the cache).
 */
export function batchJson(results: readonly BatchCheckResult[]): BatchJson {
  let out = '{"results":[';
  for (let i = 0; i < results.length; i++) {
    if (i > 0) out += ',';
    out += resultJson(results[i]);
  }
  return `${out}]}` as BatchJson;
}

function resultJson(r: BatchCheckResult): string {
  if ('error' in r) return `{"error":{"code":${JSON.stringify(r.error.code)},"message":${JSON.stringify(r.error.message)}}}`;
  if (r.source === 'role') return `{"allowed":true,"source":"role","viaRoleId":${JSON.stringify(r.viaRoleId)}}`;
  return `{"allowed":${r.allowed},"source":${JSON.stringify(r.source)}}`;
}
