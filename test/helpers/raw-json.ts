import type { TestApp } from './test-app';

/**
 * The body of a 200 JSON answer as the bytes the service wrote, not parsed: for the pages written
 * as JSON by the service itself, compared byte for byte with what JSON.stringify writes.
 */
export async function rawJson(t: TestApp, path: string, headers: Record<string, string>): Promise<string> {
  const r = await t.http
    .get(path)
    .set(headers)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks).toString('utf8')));
    });
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
  return r.body as string;
}
