import fc from 'fast-check';

/* eslint-disable @typescript-eslint/no-explicit-any -- JSON schemas and fuzzed values are untyped by nature */
type Schema = Record<string, any>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  method: string;
  path: string;
  operationId: string;
  parameters: Parameter[];
  body?: Schema;
  auth: 'apiKey' | 'adminToken' | 'none';
  /** Documented answers: status → JSON schema (null when the answer has no JSON body). */
  responses: Map<number, Schema | null>;
  /** Whether the 200 answer is an event stream (left open by the server). */
  stream: boolean;
}

/** Every operation of an OpenAPI 3 document. */
export function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const security = op.security ?? doc.security ?? [];
      const auth = security.some((s: any) => 'adminToken' in s) ? 'adminToken' : security.some((s: any) => 'apiKey' in s) ? 'apiKey' : 'none';
      const responses = new Map<number, Schema | null>();
      let stream = false;
      for (const [status, r] of Object.entries<any>(op.responses ?? {})) {
        const content = r.content ?? {};
        if (content['text/event-stream']) stream = true;
        responses.set(Number(status), content['application/json']?.schema ?? null);
      }
      ops.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId,
        parameters: (op.parameters ?? []).map((p: any) => ({ name: p.name, in: p.in, required: Boolean(p.required), schema: p.schema ?? {} })),
        body: op.requestBody?.content?.['application/json']?.schema,
        auth,
        responses,
        stream,
      });
    }
  }
  return ops;
}

/** Real ids and values of the fuzzed game, by the name of the field or parameter they fit. */
export type Pools = Record<string, string[]>;

/** Strings that have broken parsers, queries and routers elsewhere. */
const NASTY = [
  '',
  ' ',
  '\u0000',
  'null',
  'undefined',
  'true',
  '-1',
  '0',
  '1e309',
  'NaN',
  '__proto__',
  'constructor',
  "' OR 1=1 --",
  '"; DROP TABLE groups; --',
  '../../etc/passwd',
  '%',
  '%00',
  '%zz',
  '\ud800',
  '😀'.repeat(40),
  'ａｂｃ',
  'x'.repeat(5_000),
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '2026-13-45T99:99:99Z',
  '#zzzzzz',
];

const nasty = fc.constantFrom(...NASTY);
const junkString = fc.oneof(nasty, fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }), fc.uuid());
const junk: fc.Arbitrary<unknown> = fc.oneof(
  junkString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.jsonValue(), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue(), { maxKeys: 4 }),
);

function resolve(doc: any, schema: Schema): Schema {
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++) s = s.$ref.split('/').slice(1).reduce((o: any, k: string) => o[k], doc);
  if (s?.allOf) return Object.assign({}, ...s.allOf.map((x: Schema) => resolve(doc, x)));
  return s ?? {};
}

/** A value that fits `schema`, ids drawn from the pools when the name says what they are. */
export function valueOf(doc: any, schema: Schema, pools: Pools, name: string, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(doc, schema);
  const pool = pools[name];
  const arb = ((): fc.Arbitrary<unknown> => {
    if (s.enum) return fc.constantFrom(...s.enum);
    if (s.oneOf || s.anyOf) return fc.oneof(...(s.oneOf ?? s.anyOf).map((x: Schema) => valueOf(doc, x, pools, name, depth + 1)));
    switch (s.type) {
      case 'string':
        if (pool?.length) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...pool) }, { weight: 1, arbitrary: junkString });
        if (s.format === 'date-time') return fc.date({ noInvalidDate: true, min: new Date(2000, 0, 1), max: new Date(2100, 0, 1) }).map((d) => d.toISOString());
        if (s.format === 'uuid') return fc.uuid();
        return fc.string({ minLength: s.minLength ?? 1, maxLength: Math.min(s.maxLength ?? 24, 24) });
      case 'integer':
        return fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 100_000 });
      case 'number':
        return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true });
      case 'boolean':
        return fc.boolean();
      case 'array':
        if (depth > 4) return fc.constant([]);
        return fc.array(valueOf(doc, s.items ?? {}, pools, name, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 4, 4) });
      case 'object':
      default: {
        if (!s.properties) return depth > 4 ? fc.constant({}) : fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
        const required = new Set<string>(s.required ?? []);
        const shape: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [k, v] of Object.entries<Schema>(s.properties)) shape[k] = valueOf(doc, v, pools, k, depth + 1);
        return fc.record(shape, { requiredKeys: [...required].filter((k) => k in shape) });
      }
    }
  })();
  return s.nullable ? fc.oneof({ weight: 5, arbitrary: arb }, { weight: 1, arbitrary: fc.constant(null) }) : arb;
}

/** A body that is the schema's, or one broken in a way a careless or hostile client would. */
function bodyOf(doc: any, schema: Schema | undefined, pools: Pools): fc.Arbitrary<string | undefined> {
  const valid = schema ? valueOf(doc, schema, pools, '') : fc.constant({});
  const mutated = fc.tuple(valid, fc.string({ maxLength: 12 }), junk, fc.nat()).map(([v, key, bad, n]) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return bad;
    const o = { ...(v as Record<string, unknown>) };
    const keys = Object.keys(o);
    switch (n % 4) {
      case 0: // a field of the wrong type or value
        if (keys.length) o[keys[n % keys.length]] = bad;
        return o;
      case 1: // a required field missing
        if (keys.length) delete o[keys[n % keys.length]];
        return o;
      case 2: // a field nobody knows
        o[key || 'unknown'] = bad;
        return o;
      default: // the whole body of another type
        return bad;
    }
  });
  const raw = fc.constantFrom(
    '{',
    '{"a":',
    '[]',
    '"text"',
    '42',
    'null',
    '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
    `${'['.repeat(5_000)}${']'.repeat(5_000)}`,
    `{"userId":"${'y'.repeat(100_000)}"}`,
  );
  return fc.oneof(
    { weight: 5, arbitrary: valid.map((v) => JSON.stringify(v)) },
    { weight: 4, arbitrary: mutated.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: raw },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

export interface FuzzRequest {
  method: string;
  /** Path with its parameters filled in and encoded, plus the query string. */
  url: string;
  body?: string;
  contentType?: string;
  auth: 'right' | 'none' | 'garbage' | 'other';
}

/** The pool a parameter's real values come from: its name, or for `{id}` (a group's, a role's, a webhook's ... id) the segment before it, which says whose. */
export function poolNameOf(op: Operation, p: Parameter): string {
  if (p.name !== 'id') return p.name;
  const before = op.path.split('/{id}')[0].split('/').pop() ?? '';
  return `id:${before}`;
}

/** The requests fuzzing one operation: parameters, query, body, credentials and content type. */
export function requestsOf(doc: any, op: Operation, pools: Pools): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const paramValue = (p: Parameter) =>
    fc.oneof(
      { weight: 6, arbitrary: valueOf(doc, { ...p.schema, type: 'string' }, pools, poolNameOf(op, p)).map(String) },
      { weight: 1, arbitrary: junkString.filter((s) => s.length > 0) },
    );
  const path = fc.tuple(...pathParams.map(paramValue)).map((values) =>
    pathParams.reduce((acc, p, i) => acc.replace(`{${p.name}}`, encodeURIComponent(wellFormed(values[i] as string))), op.path),
  );
  const query = fc
    .tuple(
      ...queryParams.map((p) =>
        fc.option(
          fc.oneof({ weight: 4, arbitrary: valueOf(doc, p.schema, pools, p.name) }, { weight: 1, arbitrary: junk }),
          { freq: p.required ? 10 : 2 },
        ),
      ),
      fc.option(fc.tuple(fc.string({ maxLength: 8 }), junkString), { freq: 5 }),
    )
    .map((values) => {
      const q = new URLSearchParams();
      queryParams.forEach((p, i) => {
        const v = values[i];
        if (v === null || v === undefined) return;
        for (const x of Array.isArray(v) ? v : [v]) q.append(p.name, typeof x === 'object' ? JSON.stringify(x) : String(x));
      });
      const extra = values[queryParams.length] as [string, string] | null;
      if (extra) q.append(extra[0] || 'x', extra[1]);
      const s = q.toString();
      return s ? `?${s}` : '';
    });
  const hasBody = op.body !== undefined || ['POST', 'PUT', 'PATCH'].includes(op.method);
  return fc.record({
    path,
    query,
    body: hasBody ? bodyOf(doc, op.body, pools) : fc.constant(undefined),
    contentType: fc.constantFrom('application/json', 'application/json', 'application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1'),
    auth: fc.constantFrom<FuzzRequest['auth']>('right', 'right', 'right', 'right', 'right', 'right', 'none', 'garbage', 'other'),
  }).map((r) => ({ method: op.method, url: `${r.path}${r.query}`, body: r.body, contentType: r.body === undefined ? undefined : r.contentType, auth: r.auth }));
}

/** A lone surrogate cannot be put in a URL: it becomes U+FFFD, as a browser would send it. */
const wellFormed = (s: string) => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
