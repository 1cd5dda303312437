import { exampleOf, type Schema } from '../../../src/openapi/examples';
import { requiredQuery, type ApiDocument, type Operation } from './api-document';
import type { CallOptions, ContractClient } from './contract-client';

// Error answers asked of every operation at once, each with a request the document accepts (else
// Prism, not the service, would answer): the document's own example values, and ids nothing has.

/** A call with the document's example path values, required query and example body (sent even where optional: a client copies it). */
export function exampleCall(op: Operation, doc: ApiDocument): CallOptions {
  const params: Record<string, string> = {};
  for (const name of op.pathParams) params[name] = String(exampleOf({ type: 'string' }, doc.components.schemas, 'request', name));
  return { params, query: requiredQuery(op, doc), body: op.body?.example };
}

export interface SweepResult {
  mismatches: string[];
}

async function sweep(calls: Array<readonly [Operation, CallOptions]>, status: number, client: ContractClient): Promise<SweepResult> {
  const mismatches: string[] = [];
  for (const [op, call] of calls) {
    try {
      const r = await client.call(op.key, call);
      if (r.status !== status) mismatches.push(`${op.key}: ${r.status} ${r.text.slice(0, 300)}`);
      else if (r.body?.status !== status || typeof r.body?.code !== 'string') mismatches.push(`${op.key}: not an envelope: ${r.text.slice(0, 300)}`);
    } catch (e) {
      mismatches.push((e as Error).message);
    }
  }
  return { mismatches };
}

/** 401 from every route that takes a credential, given a well-formed one that is not valid. */
export function unauthorisedSweep(ops: Operation[], doc: ApiDocument, client: ContractClient): Promise<SweepResult> {
  const wrong = { apiKey: 'jk_0123456789abcdef.not-the-secret-of-any-key', adminToken: 'jadm_not_the_admin_token' };
  const secured = ops.filter((op) => op.credential !== 'public');
  return sweep(secured.map((op) => [op, { ...exampleCall(op, doc), token: wrong[op.credential as keyof typeof wrong] }] as const), 401, client);
}

/** 404 from every route that documents it, asked about ids that exist nowhere (through `client`'s game). */
export function notFoundSweep(ops: Operation[], doc: ApiDocument, client: ContractClient): Promise<SweepResult> {
  return sweep(ops.filter((op) => op.statuses.includes(404)).map((op) => [op, exampleCall(op, doc)] as const), 404, client);
}

/**
 * 400 from every route that documents it and takes input the document cannot fully describe: a
 * cursor nothing issued, a limit over the page cap (a setting, so the document gives no maximum),
 * else a NUL character, which PostgreSQL cannot store, in a free string of the body, the query or
 * the path. Returns, beside the mismatches, the routes with no such input.
 */
export async function badRequestSweep(
  ops: Operation[],
  doc: ApiDocument,
  client: ContractClient,
  pathValues: (op: Operation) => Record<string, string>,
): Promise<SweepResult & { unreachable: string[] }> {
  const calls: Array<readonly [Operation, CallOptions]> = [];
  const unreachable: string[] = [];
  for (const op of ops.filter((o) => o.statuses.includes(400))) {
    const call = refusedCall(op, doc, { ...exampleCall(op, doc), params: pathValues(op) });
    if (call) calls.push([op, call]);
    else unreachable.push(op.key);
  }
  return { ...(await sweep(calls, 400, client)), unreachable };
}

/** A string holding the NUL character, as long as `schema` asks. */
const withNul = (schema: Schema = {}): string => 'a\u0000'.padEnd(Math.max(3, typeof schema.minLength === 'number' ? schema.minLength : 0), 'b');

function refusedCall(op: Operation, doc: ApiDocument, call: CallOptions): CallOptions | null {
  const cursor = op.query.find((q) => q.name === 'cursor' || q.name === 'before');
  if (cursor) return { ...call, query: { ...call.query, [cursor.name]: 'not-a-cursor-of-ours' } };
  const limit = op.query.find((q) => q.name === 'limit');
  if (limit && limit.schema.maximum === undefined) return { ...call, query: { ...call.query, limit: '100000' } };
  const body = call.body;
  const properties = op.body ? (resolve(op.body.schema, doc).properties as Record<string, Schema> | undefined) ?? {} : {};
  const field = isRecord(body) ? Object.keys(body).find((k) => properties[k] && freeString(resolve(properties[k], doc))) : undefined;
  if (isRecord(body) && field) return { ...call, body: { ...body, [field]: withNul(resolve(properties[field], doc)) } };
  const query = op.query.find((q) => freeString(q.schema));
  if (query) return { ...call, query: { ...call.query, [query.name]: withNul(query.schema) } };
  // A read the replica may serve refuses a consistency token that is none (docs/read-replicas.md).
  if (op.headerParams.includes('x-svc-consistency')) return { ...call, headers: { ...call.headers, 'x-svc-consistency': 'not-a-token' } };
  const param = op.pathParams[0];
  if (param) return { ...call, params: { ...call.params, [param]: withNul() } };
  // A batch, whose items each get their own answer: the NUL character in a free string of its first item.
  const list = isRecord(body) ? Object.keys(body).find((k) => Array.isArray(body[k]) && isRecord((body[k] as unknown[])[0]) && properties[k]?.items) : undefined;
  if (!isRecord(body) || !list) return null;
  const itemProperties = (resolve(properties[list].items as Schema, doc).properties as Record<string, Schema> | undefined) ?? {};
  const [first, ...rest] = body[list] as Record<string, unknown>[];
  const inner = Object.keys(first).find((k) => itemProperties[k] && freeString(resolve(itemProperties[k], doc)));
  return inner ? { ...call, body: { ...body, [list]: [{ ...first, [inner]: withNul(resolve(itemProperties[inner], doc)) }, ...rest] } } : null;
}

/** A string the document constrains no further than its length: the NUL character is allowed there. */
const freeString = (s: Schema): boolean => s.type === 'string' && s.pattern === undefined && s.enum === undefined && s.format === undefined;

function resolve(schema: Schema, doc: ApiDocument): Schema {
  const ref = schema.$ref;
  return typeof ref === 'string' ? (doc.components.schemas[ref.replace('#/components/schemas/', '')] ?? {}) : schema;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
