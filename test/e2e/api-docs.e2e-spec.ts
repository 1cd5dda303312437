import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The generated API reference in docs/api/ (scripts/build-api-docs.mjs) must be the document the
 * code serves: a route, field or description changed without regenerating it fails here.
 */
const API_DIR = join(__dirname, '..', '..', 'docs', 'api');
const JSON_FILE = join(API_DIR, 'openapi.json');
const HTML_FILE = join(API_DIR, 'index.html');
const REGENERATE = 'Run `npm run docs:api` and commit docs/api/.';

/** Where two texts first differ, by line, for a failure message that fits on a screen. */
function firstDifference(committed: string, served: string): string {
  const a = committed.split('\n');
  const b = served.split('\n');
  const cut = (s: string | undefined) => (s === undefined ? '(end of file)' : s.length > 160 ? `${s.slice(0, 157)}...` : s);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return `first difference at line ${i + 1}:\n  docs/api/openapi.json: ${cut(a[i])}\n  served by the code:    ${cut(b[i])}`;
  }
  return 'the files differ';
}

describe('API reference in docs/api', () => {
  let t: TestApp;
  let served: Record<string, unknown>;
  beforeAll(async () => {
    t = await startTestApp();
    const r = await t.http.get('/openapi.json');
    expect(r.status).toBe(200);
    served = r.body;
  });
  afterAll(() => t.close());

  it('docs/api/openapi.json is the document GET /openapi.json serves, byte for byte', () => {
    if (!existsSync(JSON_FILE)) throw new Error(`docs/api/openapi.json is missing. ${REGENERATE}`);
    const committed = readFileSync(JSON_FILE, 'utf8');
    const expected = `${JSON.stringify(served, null, 2)}\n`;
    if (committed !== expected) {
      throw new Error(`docs/api/openapi.json is out of date. ${REGENERATE}\n${firstDifference(committed, expected)}`);
    }
  });

  it('docs/api/index.html renders that same document', () => {
    if (!existsSync(HTML_FILE)) throw new Error(`docs/api/index.html is missing. ${REGENERATE}`);
    const html = readFileSync(HTML_FILE, 'utf8');
    // Redocly's static page embeds the document it was built from in one line of script.
    const embedded = /const __redoc_definition = (.*);\s*$/m.exec(html);
    if (!embedded) throw new Error(`docs/api/index.html holds no Redoc definition. ${REGENERATE}`);
    if (!isDeepStrictEqual(JSON.parse(embedded[1]), served)) {
      throw new Error(`docs/api/index.html was rendered from another version of the document. ${REGENERATE}`);
    }
  });
});
