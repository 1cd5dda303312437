import { RELEASE } from '../../src/version';
import { DataSource } from 'typeorm';
import { ERROR_STATUS } from '../../src/common/errors/error-codes';
import { startTestApp, type TestApp } from '../helpers/test-app';

/** The API document: every route, public, outside /v1, served without touching the database. */
describe('OpenAPI document', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('GET /openapi.json is an OpenAPI 3 document listing every route the app serves', async () => {
    const r = await t.http.get('/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toMatch(/^3\./);
    expect(r.body.info).toMatchObject({ title: 'Guildhall', version: RELEASE });
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries<Record<string, unknown>>(r.body.paths)) {
      for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${path}`);
    }
    // Every route Fastify registered through Nest (not the document's own routes) is documented.
    const served = t.app
      .getHttpAdapter()
      .getInstance()
      .printRoutes({ commonPrefix: false });
    const expected = [
      'GET /',
      'GET /healthz',
      'GET /v1/whoami',
      'POST /v1/admin/games',
      'GET /v1/admin/games',
      'GET /v1/admin/games/{gameId}',
      'GET /v1/admin/games/{gameId}/api-keys',
      'POST /v1/admin/games/{gameId}/api-keys',
      'POST /v1/admin/games/{gameId}/api-keys/{keyId}/revoke',
    ];
    for (const route of expected) expect(documented).toContain(route);
    expect(served).toContain('whoami');
  });

  /** The (method, path) pairs Fastify serves, read from its route tree; parameter names ignored. */
  function servedRoutes(tree: string): Set<string> {
    const out = new Set<string>();
    const stack: string[] = [];
    for (const line of tree.split('\n')) {
      const m = /^((?:[│ ] {3})*)[├└]── (\S+) \(([^)]*)\)/.exec(line.replace(/\u00a0/g, ' '));
      if (!m) continue;
      const depth = m[1].length / 4;
      const segment = m[2];
      const parent = stack[depth - 1] ?? '';
      // A child holds the rest of its path after its parent's, whether or not that starts with a
      // slash: `/join` and `/join-requests` share the node `/join`, whose child is `-requests`.
      const path = depth === 0 ? segment : `${parent}${segment}`;
      stack[depth] = path;
      stack.length = depth + 1;
      for (const method of m[3].split(',').map((x) => x.trim())) {
        if (method === 'HEAD') continue;
        out.add(`${method} ${normalise(path)}`);
      }
    }
    return out;
  }
  const normalise = (path: string) => path.replace(/:[^/]+/g, '{}').replace(/\{[^/}]+\}/g, '{}');

  it('every route the server serves is in the document (the API document cannot fall behind)', async () => {
    const doc = (await t.http.get('/openapi.json')).body;
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${normalise(path)}`);
    }
    // Not API operations: the document's own routes, and the operator console's static files
    // (a web page for people, served at /console when an admin token is set; docs/console.md).
    const served = [...servedRoutes(t.app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false }))].filter(
      (r) => !/ \/(docs|openapi\.|console)/.test(r),
    );
    expect(served.length).toBeGreaterThan(60);
    expect(served.filter((r) => !documented.has(r))).toEqual([]);
  });

  it('documents the error envelope and both credentials', async () => {
    const r = await t.http.get('/openapi.json');
    expect(r.body.components.schemas.ErrorEnvelopeDto.properties).toHaveProperty('code');
    expect(r.body.components.securitySchemes).toHaveProperty('apiKey');
    expect(r.body.components.securitySchemes).toHaveProperty('adminToken');
    const create = r.body.paths['/v1/admin/games'].post;
    expect(create.responses['400'].content['application/json'].schema.allOf[0].$ref).toContain('ErrorEnvelopeDto');
    expect(create.responses['401'].content['application/json'].schema.allOf[1].properties.code.enum).toEqual(['invalid_admin_token']);
    expect(create.security).toEqual([{ adminToken: [] }]);
  });

  it('documents 503 service_unavailable with the envelope on every /v1 operation: any may find the database down (DECISIONS §30)', async () => {
    const doc = (await t.http.get('/openapi.json')).body;
    const missing: string[] = [];
    for (const [path, ops] of Object.entries<Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>(doc.paths)) {
      if (!path.startsWith('/v1/')) continue;
      for (const [method, op] of Object.entries(ops)) {
        const schema = JSON.stringify(op.responses['503']?.content?.['application/json']?.schema ?? {});
        if (!schema.includes('ErrorEnvelopeDto')) missing.push(`${method} ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every operation has a readable unique operationId, a summary, and an example request and answer', async () => {
    const doc = (await t.http.get('/openapi.json')).body;
    const ids: string[] = [];
    const problems: string[] = [];
    type Media = Record<string, { schema?: unknown; example?: unknown }>;
    for (const [path, ops] of Object.entries<Record<string, { operationId: string; summary?: string; requestBody?: { content: Media }; responses: Record<string, { content?: Media }> }>>(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method} ${path}`;
        ids.push(op.operationId);
        if (!/^[a-z][A-Za-z]+$/.test(op.operationId)) problems.push(`${where}: operationId ${op.operationId}`);
        if (!op.summary) problems.push(`${where}: no summary`);
        const body = op.requestBody?.content['application/json'];
        if (body && body.example === undefined) problems.push(`${where}: no example request`);
        const answers = Object.entries(op.responses).filter(([status, r]) => Number(status) < 300 && r.content?.['application/json']);
        for (const [status, r] of answers) if (r.content!['application/json'].example === undefined) problems.push(`${where} ${status}: no example answer`);
      }
    }
    expect(problems).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['createGroup', 'joinGroup', 'getEventFeed', 'adminCreateGame']));
  });

  it("every error answer lists its possible codes, each of its status, with an example envelope", async () => {
    const doc = (await t.http.get('/openapi.json')).body;
    const statusOf = Object.fromEntries(Object.entries(ERROR_STATUS));
    const problems: string[] = [];
    for (const [path, ops] of Object.entries<Record<string, { responses: Record<string, { content?: Record<string, { schema: { allOf?: Array<{ properties?: { code?: { enum: string[] } } }> }; example?: { code: string } }> }> }>>(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, r] of Object.entries(op.responses)) {
          // /healthz's 503 is its health report (degraded), not an error envelope.
          if (Number(status) < 400 || path === '/healthz') continue;
          for (const [type, media] of Object.entries(r.content ?? {})) {
            const codes = media.schema.allOf?.[1]?.properties?.code?.enum ?? [];
            const where = `${method} ${path} ${status} ${type}`;
            if (codes.length === 0) problems.push(`${where}: no code enum`);
            for (const code of codes) if (statusOf[code] !== Number(status)) problems.push(`${where}: ${code} is a ${statusOf[code]}`);
            if (!media.example || !codes.includes(media.example.code)) problems.push(`${where}: example ${JSON.stringify(media.example)}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    const join = doc.paths['/v1/groups/{id}/join'].post.responses;
    expect(join['403'].content['application/json'].schema.allOf[1].properties.code.enum.sort()).toEqual(['banned', 'passcode_invalid', 'passcode_required', 'permission_denied']);
    expect(join['409'].content['application/json'].schema.allOf[1].properties.code.enum).toEqual(['already_member', 'group_full', 'already_in_group_of_kind']);
    expect(join['415'].content['application/json'].schema.allOf[1].properties.code.enum).toEqual(['unsupported_media_type']);
    expect(doc.paths['/v1/invitations/{code}'].get.responses).not.toHaveProperty('401');
  });

  it('a live stream documents its 200 as text/event-stream and its refusals as the JSON envelope', async () => {
    const doc = (await t.http.get('/openapi.json')).body;
    const streams = ['/v1/events', '/v1/events/{groupId}', '/v1/admin/games/{gameId}/events', '/v1/admin/games/{gameId}/groups/{groupId}/events'];
    for (const path of streams) {
      const responses: Record<string, { content?: Record<string, unknown> }> = doc.paths[path].get.responses;
      expect([path, Object.keys(responses['200'].content ?? {})]).toEqual([path, ['text/event-stream']]);
      for (const [status, r] of Object.entries(responses)) {
        if (Number(status) >= 400) expect([path, status, Object.keys(r.content ?? {})]).toEqual([path, status, ['application/json']]);
      }
    }
  });

  it('a route that takes no body, {} or a body alike documents its body as optional (DECISIONS §17)', async () => {
    const doc = (await t.http.get('/openapi.json')).body;
    const optional = [
      ['/v1/groups/{id}/members/{userId}/kick', 'post'],
      ['/v1/invitations/{code}/decline', 'post'],
      ['/v1/groups/{id}/members/{userId}/permissions/{permission}', 'post'],
      ['/v1/join-requests/{id}/approve', 'post'],
      ['/v1/join-requests/{id}/decline', 'post'],
      ['/v1/webhooks/{id}/rotate-secret', 'post'],
    ];
    for (const [path, method] of optional) expect([path, doc.paths[path][method].requestBody.required]).toEqual([path, false]);
    expect(doc.components.schemas.JoinGroupDto.properties.passcode.type).toBe('string');
  });

  it('GET /docs serves Swagger UI without credentials', async () => {
    const r = await t.http.get('/docs').redirects(1);
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/swagger/i);
  });

  it('needs no database: the document is served while the pool is closed', async () => {
    const other = await startTestApp({}, t.db);
    await other.app.get(DataSource).destroy();
    try {
      expect((await other.http.get('/openapi.json')).status).toBe(200);
      expect((await other.http.get('/')).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});
