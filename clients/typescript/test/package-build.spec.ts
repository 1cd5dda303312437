import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

/**
 * The package as it would be published: `npm run build` (scripts/build.mjs) makes both builds;
 * Node resolves `@guildhall/client` to the ES module build for import and the CommonJS build for
 * require, each exposing every export, each working; and the types of each resolve for an
 * application compiled either way.
 */
const run = promisify(execFile);
const pkg = join(__dirname, '..');
const node = (args: string[]) => run(process.execPath, args, { cwd: pkg });

const EXPORTS = [
  'CHECKS_PER_REQUEST',
  'CONSISTENCY_HEADER',
  'ConsistencyTracker',
  'GuildhallError',
  'WebhookVerificationError',
  'checkPermissions',
  'createGuildhallClient',
  'dismissNotification',
  'followFeed',
  'followNotifications',
  'followUnreadCount',
  'listNotifications',
  'markNotificationsRead',
  'notificationCounts',
  'paginate',
  'verifyWebhook',
];

/** Given `m` (the package), `resolved` and `createHmac`: prints the exports and whether they work. */
const CHECK = `
  const timestamp = new Date().toISOString();
  const headers = { 'x-svc-timestamp': timestamp, 'x-svc-signature': 'v1=' + createHmac('sha256', 'secret-0123456789').update(timestamp + '.{}').digest('hex') };
  m.verifyWebhook({ secret: 'secret-0123456789', headers, rawBody: '{}' }).then((verified) => {
    const error = new m.GuildhallError({ status: 404, code: 'not_found', message: 'gone' });
    console.log(JSON.stringify({ resolved, exports: Object.keys(m).sort(), verified, error: error instanceof Error && error.code }));
  });
`;

beforeAll(async () => {
  await node(['scripts/build.mjs']);
}, 120_000);

it('require() gets the CommonJS build, with every export working', async () => {
  const load = "const { createHmac } = require('node:crypto'); const m = require('@guildhall/client'); const resolved = require.resolve('@guildhall/client');";
  const { stdout } = await node(['-e', load + CHECK]);
  expect(JSON.parse(stdout)).toEqual({ resolved: join(pkg, 'dist', 'cjs', 'index.js'), exports: EXPORTS, verified: true, error: 'not_found' });
});

it('import gets the ES module build, with every export working', async () => {
  const load = "import { createHmac } from 'node:crypto'; import * as m from '@guildhall/client'; const resolved = import.meta.resolve('@guildhall/client');";
  const { stdout } = await node(['--input-type=module', '-e', load + CHECK]);
  expect(JSON.parse(stdout)).toEqual({ resolved: pathToFileURL(join(pkg, 'dist', 'esm', 'index.js')).href, exports: EXPORTS, verified: true, error: 'not_found' });
});

it('each build is marked with its module type and imports nothing from node:', () => {
  for (const [dir, type] of [['esm', 'module'], ['cjs', 'commonjs']]) {
    expect(JSON.parse(readFileSync(join(pkg, 'dist', dir, 'package.json'), 'utf8'))).toEqual({ type });
    for (const file of readdirSync(join(pkg, 'dist', dir)).filter((f) => f.endsWith('.js'))) {
      expect(`${dir}/${file}: ${readFileSync(join(pkg, 'dist', dir, file), 'utf8')}`).not.toMatch(/["']node:/);
    }
  }
});

it('an application compiled as ES modules and one compiled as CommonJS both type-check against the built types', async () => {
  const tsc = require.resolve('typescript/bin/tsc');
  await expect(node([tsc, '-p', 'test/fixtures/tsconfig.json'])).resolves.toMatchObject({ stdout: '' });
}, 60_000);
