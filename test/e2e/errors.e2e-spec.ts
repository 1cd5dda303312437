import { asAdmin, bearer, newGame, startTestApp, type TestApp } from '../helpers/test-app';

/** SPEC §1.8, §5.6, §7: the error envelope on every non-2xx, and x-request-id on every response. */
describe('error envelope and request ids', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp();
    ({ key } = await newGame(t));
  });
  afterAll(() => t.close());

  const expectEnvelope = (r: { status: number; body: Record<string, unknown>; headers: Record<string, string> }, status: number, code: string) => {
    expect(r.status).toBe(status);
    expect(r.headers['content-type']).toMatch(/application\/json/);
    expect(r.body).toMatchObject({ code, status });
    expect(typeof r.body.message).toBe('string');
  };

  it('an unknown route inside /v1 is 404 not_found in the envelope', async () => {
    expectEnvelope(await t.http.get('/v1/no-such-route').set(bearer(key)), 404, 'not_found');
  });

  it('an unknown route outside /v1 is 404 not_found, without any credential', async () => {
    expectEnvelope(await t.http.get('/no-such-page'), 404, 'not_found');
  });

  it('a path the router cannot read is 400 bad_request in the envelope, with its x-request-id: bad percent-encoding, a segment over the longest', async () => {
    for (const path of ['/v1/roles/%FF', '/v1/groups/%C0%AF', '/v1/users/%ED%A0%80/export', '/v1/groups/%E0%A4%A']) {
      const r = await t.http.get(path).set(bearer(key));
      expectEnvelope(r, 400, 'bad_request');
      expect(r.body).toEqual({ code: 'bad_request', status: 400, message: 'the path is not valid: each percent-encoded byte must make UTF-8 text' });
      expect(r.headers['x-request-id']).toMatch(/\S/);
    }
    const r = await t.http.get(`/v1/groups/${'g'.repeat(65_537)}`).set(bearer(key));
    expectEnvelope(r, 400, 'bad_request');
    expect(r.body.message).toBe('the path has a segment longer than 65536 characters');
    expect(r.headers['x-request-id']).toMatch(/\S/);
  });

  it('a query parameter taken once but given twice is 400 saying so', async () => {
    const r = await t.http.get('/v1/groups?limit=1&limit=2').set(bearer(key));
    expectEnvelope(r, 400, 'bad_request');
    expect(r.body.message).toBe('limit must be given once, not 2 times');
  });

  it('malformed JSON is 400 bad_request', async () => {
    const r = await t.http.post('/v1/admin/games').set(asAdmin).set('content-type', 'application/json').send('{"name": ');
    expectEnvelope(r, 400, 'bad_request');
    expect(r.body.message).toMatch(/JSON/);
  });

  it('a prototype key (__proto__, constructor.prototype) is 400 naming it, and nothing is stored', async () => {
    for (const metadata of ['{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}']) {
      const r = await t.http.post('/v1/groups').set(bearer(key)).set('content-type', 'application/json').send(`{"kind":"guild","name":"proto","metadata":${metadata}}`);
      expectEnvelope(r, 400, 'bad_request');
      expect(r.body.message).toMatch(/__proto__/);
    }
    expect(await t.db.query(`SELECT 1 FROM groups WHERE name = 'proto'`)).toHaveLength(0);
    // A key merely named constructor is data like any other.
    const ok = await t.http.post('/v1/groups').set(bearer(key)).send({ kind: 'guild', name: 'ctor', metadata: { constructor: 'x' } });
    expect(ok.status).toBe(201);
  });

  it('a JSON body that is not an object is 400 bad_request', async () => {
    for (const body of ['[1,2]', '"text"', '42']) {
      const r = await t.http.post('/v1/admin/games').set(asAdmin).set('content-type', 'application/json').send(body);
      expectEnvelope(r, 400, 'bad_request');
    }
  });

  it('a failed validation names the missing or failing field', async () => {
    const missing = await t.http.post('/v1/admin/games').set(asAdmin).send({});
    expectEnvelope(missing, 400, 'bad_request');
    expect(missing.body.message).toMatch(/name/);
    const tooLong = await t.http.post('/v1/admin/games').set(asAdmin).send({ name: 'x'.repeat(201) });
    expectEnvelope(tooLong, 400, 'bad_request');
    expect(tooLong.body.message).toMatch(/name/);
    const wrongType = await t.http.post('/v1/admin/games').set(asAdmin).send({ name: 7 });
    expectEnvelope(wrongType, 400, 'bad_request');
    expect(wrongType.body.message).toMatch(/name/);
  });

  it('an empty body sent as application/json counts as no body (DECISIONS §17)', async () => {
    const g = await t.http.post('/v1/admin/games').set(asAdmin).send({ name: 'for keys' });
    const r = await t.http.post(`/v1/admin/games/${g.body.id}/api-keys`).set(asAdmin).set('content-type', 'application/json').send('');
    expect(r.status).toBe(201);
  });

  it('a body that is not JSON is refused with an envelope', async () => {
    const text = await t.http.post('/v1/admin/games').set(asAdmin).set('content-type', 'text/plain').send('name=x');
    expectEnvelope(text, 400, 'bad_request');
    const xml = await t.http.post('/v1/admin/games').set(asAdmin).set('content-type', 'application/xml').send('<name/>');
    expectEnvelope(xml, 415, 'unsupported_media_type');
    expect(xml.body.message).toBe('content-type must be application/json');
  });

  it('an unhandled error is 500 internal with the requestId of the x-request-id header, no SQL, no stack', async () => {
    const { gameId } = await newGame(t, 'broken');
    await t.db.query('ALTER TABLE api_keys RENAME TO api_keys_gone');
    try {
      const r = await t.http.get(`/v1/admin/games/${gameId}/api-keys`).set(asAdmin);
      expectEnvelope(r, 500, 'internal');
      expect(r.body.requestId).toBe(r.headers['x-request-id']);
      expect(JSON.stringify(r.body)).not.toMatch(/api_keys|SELECT|relation|at .*\.js/i);
      expect(Object.keys(r.body).sort()).toEqual(['code', 'message', 'requestId', 'status']);
    } finally {
      await t.db.query('ALTER TABLE api_keys_gone RENAME TO api_keys');
    }
  });

  it('client errors carry no requestId in the body', async () => {
    const r = await t.http.get('/v1/no-such-route').set(bearer(key));
    expect(r.body.requestId).toBeUndefined();
  });

  describe('x-request-id', () => {
    it.each([
      ['a public 200', (h: TestApp['http']) => h.get('/')],
      ['a 404', (h: TestApp['http']) => h.get('/nowhere')],
      ['a 401', (h: TestApp['http']) => h.get('/v1/whoami')],
      ['an admin 401', (h: TestApp['http']) => h.get('/v1/admin/games')],
      ['a malformed-JSON 400', (h: TestApp['http']) => h.post('/v1/admin/games').set(asAdmin).set('content-type', 'application/json').send('{')],
      ['the OpenAPI document', (h: TestApp['http']) => h.get('/openapi.json')],
    ])('is set on %s', async (_, call) => {
      const r = await call(t.http);
      expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('is unique per request', async () => {
      const [a, b] = await Promise.all([t.http.get('/'), t.http.get('/')]);
      expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
    });

    it('keeps a plain caller-supplied id and replaces an unsafe one', async () => {
      const kept = await t.http.get('/').set('x-request-id', 'trace-abc.123');
      expect(kept.headers['x-request-id']).toBe('trace-abc.123');
      const replaced = await t.http.get('/').set('x-request-id', 'bad id with spaces');
      expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });
});
