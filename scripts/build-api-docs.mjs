#!/usr/bin/env node
/**
 * `npm run docs:api`: the API reference in docs/api/, generated, never edited by hand.
 *
 * 1. docs/api/openapi.json: the OpenAPI document the server serves at GET /openapi.json, built
 *    from the compiled app (dist/, so run after `npm run build`). Nest's preview mode wires every
 *    module and controller without running a provider, so no database is needed. Pretty-printed,
 *    keys in the order the document is produced, so a diff shows exactly what changed.
 * 2. docs/api/index.html: that document rendered by Redocly CLI, run through npx at a pinned
 *    version (not a dependency: its engines would refuse some Node versions `npm ci` accepts).
 *
 * test/e2e/api-docs.e2e-spec.ts fails when either file falls behind the code.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const REDOCLY_CLI = '@redocly/cli@2.77.0';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'docs', 'api');
const jsonFile = join(outDir, 'openapi.json');
const htmlFile = join(outDir, 'index.html');
const rel = (p) => relative(process.cwd(), p) || '.';

function fail(message) {
  process.stderr.write(`docs:api: ${message}\n`);
  process.exit(1);
}

/** The document exactly as `GET /openapi.json` serves it, from the compiled app. */
async function buildDocument() {
  const dist = join(root, 'dist', 'src');
  if (!existsSync(join(dist, 'app.module.js'))) fail('dist/ is missing: run `npm run build` first');
  const require = createRequire(join(root, 'package.json'));
  require('reflect-metadata');
  const { NestFactory } = require('@nestjs/core');
  const { FastifyAdapter } = require('@nestjs/platform-fastify');
  const { AppModule } = require(join(dist, 'app.module.js'));
  const { parseSettings } = require(join(dist, 'config', 'settings.js'));
  const { buildOpenApiDocument } = require(join(dist, 'openapi'));

  const settings = parseSettings({ NODE_ENV: 'production', LOG_LEVEL: 'silent' });
  const app = await NestFactory.create(AppModule.forRoot(settings), new FastifyAdapter(), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  return buildOpenApiDocument(app);
}

function renderHtml() {
  const args = ['--yes', REDOCLY_CLI, 'build-docs', rel(jsonFile), '-o', rel(htmlFile), '--title', 'Guildhall API reference', '--openapi.disableTelemetry=true'];
  const r = spawnSync('npx', args, {
    cwd: process.cwd(),
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
  });
  if (r.error) fail(`could not run npx: ${r.error.message}`);
  if (r.status !== 0) fail(`${REDOCLY_CLI} build-docs exited with ${r.status}`);
}

const document = await buildDocument();
mkdirSync(outDir, { recursive: true });
writeFileSync(jsonFile, `${JSON.stringify(document, null, 2)}\n`);
process.stdout.write(`wrote ${rel(jsonFile)}\n`);
renderHtml();
process.stdout.write(`wrote ${rel(htmlFile)}\n`);
