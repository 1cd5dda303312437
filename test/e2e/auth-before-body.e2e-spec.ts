import { connect } from 'node:net';
import { ADMIN_TOKEN, newGame, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * DECISIONS §31: a request is authenticated before its body is read. Each request here announces a
 * 50 MiB body and sends only its first kilobyte: a server that read the body first would wait for
 * the rest (until its 30 s request timeout); one that checks on arrival answers at once.
 */
const ANNOUNCED = 50 * 1024 * 1024;

interface Answer {
  status: number;
  headers: string;
  body: string;
  ms: number;
}

function announceAndStall(port: number, method: string, path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s: the server waited for the body')));
    socket.on('data', (d) => {
      data += d.toString('latin1');
      const end = data.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(data);
      if (end < 0 || !length || data.length < end + 4 + Number(length[1])) return;
      socket.destroy();
      resolve({
        status: Number(data.slice(9, 12)),
        headers: data.slice(0, end).toLowerCase(),
        body: data.slice(end + 4, end + 4 + Number(length[1])),
        ms: performance.now() - started,
      });
    });
    socket.on('error', reject);
    const head = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', `Content-Length: ${ANNOUNCED}`];
    for (const [k, v] of Object.entries(headers)) head.push(`${k}: ${v}`);
    socket.write(`${head.join('\r\n')}\r\n\r\n{"kind":"guild","name":"${'x'.repeat(1000)}`);
  });
}

describe('authentication before the body (DECISIONS §31)', () => {
  let t: TestApp;
  let port: number;
  let key: string;
  let gameId: string;
  beforeAll(async () => {
    t = await startTestApp();
    ({ key, gameId } = await newGame(t));
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as { port: number }).port;
  });
  afterAll(() => t.close());

  it.each([
    ['no credential on a game route', 'POST', '/v1/groups', {}, 401, 'invalid_api_key'],
    ['a wrong key on a game route', 'POST', '/v1/groups', { authorization: 'Bearer jk_0123456789abcdef.wrongwrongwrongwrongwrongwrongwrongwrong12' }, 401, 'invalid_api_key'],
    ['the admin token on a game route', 'POST', '/v1/groups', { authorization: `Bearer ${ADMIN_TOKEN}` }, 401, 'invalid_api_key'],
    ['no credential on an admin route', 'POST', '/v1/admin/games', {}, 401, 'invalid_admin_token'],
    ['an API key on an admin route', 'POST', '/v1/admin/games', 'key', 401, 'invalid_admin_token'],
    ['an unknown route inside /v1', 'POST', '/v1/no-such-route', {}, 404, 'not_found'],
    ['an unknown route outside /v1', 'PUT', '/no-such-page', {}, 404, 'not_found'],
  ] as const)('%s: answers at once, without waiting for the body', async (_, method, path, headers, status, code) => {
    const sent = headers === 'key' ? { authorization: `Bearer ${key}` } : headers;
    const r = await announceAndStall(port, method, path, sent);
    expect(r.status).toBe(status);
    expect(JSON.parse(r.body)).toMatchObject({ code, status });
    expect(r.headers).toMatch(/^x-request-id: \S+$/m);
    expect(r.ms).toBeLessThan(2_000);
  });

  it('refuses every operation of the API document that takes a credential on arrival', async () => {
    const doc = (await t.http.get('/openapi.json')).body as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    const checked: string[] = [];
    for (const [template, item] of Object.entries(doc.paths)) {
      const path = template.replace(/\{[^}]+\}/g, '0190a0b0-0000-7000-8000-000000000001');
      for (const [method, op] of Object.entries(item)) {
        if (op.security?.length === 0) continue;
        const r = await announceAndStall(port, method.toUpperCase(), path, {});
        checked.push(`${method} ${template}`);
        expect({ op: `${method} ${template}`, status: r.status }).toEqual({ op: `${method} ${template}`, status: 401 });
        expect(r.ms).toBeLessThan(2_000);
      }
    }
    expect(checked.length).toBeGreaterThan(100);
  }, 120_000);

  it('still reads the body of an authenticated request (a short body is awaited, then parsed)', async () => {
    const r = await t.http.post('/v1/groups').set('authorization', `Bearer ${key}`).send({ kind: 'guild', name: 'after auth' });
    expect(r.status).toBe(201);
    expect(r.body.gameId).toBe(gameId);
  });
});
