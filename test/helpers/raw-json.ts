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

/**
 * Every page of `path` at `limit`, each compared byte for byte with what JSON.stringify writes of
 * its slice of `items` and the nextCursor it names; the last page has none.
 */
export async function pagesMatch(t: TestApp, path: string, headers: Record<string, string>, items: unknown[], limit: number): Promise<void> {
  const sep = path.includes('?') ? '&' : '?';
  let cursor: string | null = null;
  let i = 0;
  do {
    const page = await rawJson(t, `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, headers);
    cursor = (JSON.parse(page) as { nextCursor: string | null }).nextCursor;
    expect(page).toBe(JSON.stringify({ items: items.slice(i, i + limit), nextCursor: cursor }));
    i += limit;
  } while (cursor);
  expect(i).toBeGreaterThanOrEqual(items.length);
}
