import { exampleOf, type Components, type Schema } from '../../../src/openapi/examples';

/** What the contract run needs to know of one operation of GET /openapi.json. */
export interface Operation {
  key: string; // 'POST /v1/groups/{id}/join'
  id: string;
  method: string;
  path: string;
  credential: 'apiKey' | 'adminToken' | 'public';
  statuses: number[];
  /** Its 200 is an event stream, which Prism cannot relay (it reads an answer to its end). */
  stream: boolean;
  pathParams: string[];
  headerParams: string[];
  query: Array<{ name: string; required: boolean; schema: Schema }>;
  body?: { required: boolean; schema: Schema; example: unknown };
}

interface RawOperation {
  operationId: string;
  security?: Array<Record<string, unknown>>;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Schema }>;
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema; example?: unknown }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
}

export interface ApiDocument {
  paths: Record<string, Record<string, RawOperation>>;
  components: { schemas: Components };
}

export function operationsOf(doc: ApiDocument): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      const params = op.parameters ?? [];
      const json = op.requestBody?.content['application/json'];
      ops.push({
        key: `${method.toUpperCase()} ${path}`,
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        credential: schemes.includes('adminToken') ? 'adminToken' : schemes.includes('apiKey') ? 'apiKey' : 'public',
        statuses: Object.keys(op.responses).map(Number),
        stream: Boolean(op.responses['200']?.content?.['text/event-stream']),
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        headerParams: params.filter((p) => p.in === 'header').map((p) => p.name),
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, required: p.required === true, schema: p.schema ?? {} })),
        body: json && { required: op.requestBody?.required === true, schema: json.schema, example: json.example },
      });
    }
  }
  return ops;
}

/** The query an operation requires, with the document's own example values. */
export function requiredQuery(op: Operation, doc: ApiDocument): Record<string, string> {
  const out: Record<string, string> = {};
  for (const q of op.query) if (q.required) out[q.name] = String(exampleOf(q.schema, doc.components.schemas, 'request', q.name));
  return out;
}
