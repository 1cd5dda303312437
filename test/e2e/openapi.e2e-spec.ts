import { DataSource } from 'typeorm';
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
    expect(r.body.info).toMatchObject({ title: 'Guildhall', version: '0.0.0' });
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

  it('documents the error envelope and both credentials', async () => {
    const r = await t.http.get('/openapi.json');
    expect(r.body.components.schemas.ErrorEnvelopeDto.properties).toHaveProperty('code');
    expect(r.body.components.securitySchemes).toHaveProperty('apiKey');
    expect(r.body.components.securitySchemes).toHaveProperty('adminToken');
    const create = r.body.paths['/v1/admin/games'].post;
    expect(create.responses['400'].content['application/json'].schema.$ref).toContain('ErrorEnvelopeDto');
    expect(create.security).toEqual([{ adminToken: [] }]);
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
