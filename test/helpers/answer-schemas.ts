import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument } from '../../src/openapi';

/**
 * Checks every 2xx JSON answer the in-process test apps give against its operation's schema in
 * the API document, so the document (and the typed client generated from it) cannot drift from
 * what the service really answers. Objects are checked closed: a field the document does not
 * list is a mismatch too.
 */

type Schema = Record<string, unknown>;
type OpenApi = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };
type Operation = { operationId?: string; responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> };

export interface AnswerCheck {
  /** A body that does not match its operation's schema: the operation, the status, ajv's complaints. */
  mismatches: string[];
  /** How many answers were checked. */
  checked: number;
}

export const answerCheck: AnswerCheck = { mismatches: [], checked: 0 };

let routes: Array<{ method: string; pattern: RegExp; params: number; op: Operation }> | null = null;
let components: Record<string, Schema> = {};
const validators = new Map<string, ValidateFunction | null>();
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);

/** Every object with listed properties and nothing said about others is closed. */
export function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v as Schema).map(([n, s]) => [n, closed(s)])) : closed(v);
  if (out.properties && out.additionalProperties === undefined && !('allOf' in out)) out.additionalProperties = false;
  return out;
}

/** Compiles a response schema against the document's components. */
export function compileAnswerSchema(schema: Schema, schemas: Record<string, Schema>): ValidateFunction {
  return ajv.compile({ ...(closed(schema) as Schema), components: { schemas: closed(schemas) } });
}

function load(doc: OpenApi): void {
  components = doc.components?.schemas ?? {};
  routes = Object.entries(doc.paths)
    .flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({
        method: method.toUpperCase(),
        pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        params: (path.match(/\{/g) ?? []).length,
        op,
      })),
    )
    // A literal segment wins over a parameter (/v1/events/feed over /v1/events/{groupId}).
    .sort((a, b) => a.params - b.params);
}

function validatorFor(method: string, path: string, status: number): { name: string; validate: ValidateFunction | null } | null {
  const route = routes?.find((r) => r.method === method && r.pattern.test(path));
  if (!route) return null;
  const name = `${route.op.operationId ?? `${method} ${path}`} ${status}`;
  if (!validators.has(name)) {
    const schema = route.op.responses?.[String(status)]?.content?.['application/json']?.schema;
    validators.set(name, schema ? compileAnswerSchema(schema, components) : null);
  }
  return { name, validate: validators.get(name) ?? null };
}

function check(req: IncomingMessage, res: ServerResponse, contentType: string, body: Buffer): void {
  if (res.statusCode < 200 || res.statusCode > 299 || !contentType.startsWith('application/json')) return;
  const path = (req.url ?? '').split('?')[0];
  const found = validatorFor(req.method ?? 'GET', path, res.statusCode);
  if (!found) return;
  if (!found.validate) {
    answerCheck.mismatches.push(`${found.name}: a JSON answer the document gives no schema for (${req.method} ${path})`);
    return;
  }
  answerCheck.checked++;
  if (!found.validate(JSON.parse(body.toString('utf8')))) {
    const errors = [...new Set((found.validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`))];
    answerCheck.mismatches.push(`${found.name} (${req.method} ${path}): ${errors.join('; ')}`);
  }
}

/** Checks every answer `app` gives from now on; call before the first request. */
export function checkAnswers(app: NestFastifyApplication): void {
  if (!routes) load(buildOpenApiDocument(app) as unknown as OpenApi);
  const server = app.getHttpServer() as Server;
  const handlers = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let contentType = '';
    const { writeHead, write, end } = res;
    // Fastify hands its headers to writeHead, where getHeader() does not see them.
    res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
      const headers = rest.find((r) => typeof r === 'object' && r !== null) as Record<string, unknown> | undefined;
      contentType = String(headers?.['content-type'] ?? res.getHeader('content-type') ?? '');
      return (writeHead as (...a: unknown[]) => ServerResponse).call(this, status, ...rest);
    } as typeof res.writeHead;
    res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      if (chunk) chunks.push(Buffer.from(chunk as string));
      return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof res.write;
    res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      if (chunk && typeof chunk !== 'function') chunks.push(Buffer.from(chunk as string));
      return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } as typeof res.end;
    res.once('finish', () => check(req, res, contentType || String(res.getHeader('content-type') ?? ''), Buffer.concat(chunks)));
    for (const handler of handlers) handler(req, res);
  });
}
