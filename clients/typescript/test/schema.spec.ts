import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * src/schema.ts is openapi-typescript's rendering of docs/api/openapi.json: when the document
 * changes (`npm run docs:api`), this fails until `npm run client:types` regenerates the types.
 */
it('the committed types are what the API document generates today', async () => {
  const script = join(__dirname, '..', 'scripts', 'generate-types.mjs');
  await expect(promisify(execFile)(process.execPath, [script, '--check'])).resolves.toMatchObject({ stderr: '' });
}, 60_000);
