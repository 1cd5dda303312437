import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The API document is lint-clean: Redocly CLI's recommended rules (redocly.yaml) find no error
 * and no warning in docs/api/openapi.json, which api-docs.e2e-spec.ts keeps equal to the document
 * the code serves. Exceptions live in redocly.yaml and .redocly.lint-ignore.yaml, each with its
 * reason. Redocly runs through npx at the version docs:api pins (it is not a dependency: its
 * engines would refuse some Node versions `npm ci` accepts).
 */
const ROOT = join(__dirname, '..', '..');
const PINNED = /const REDOCLY_CLI = '([^']+)'/.exec(readFileSync(join(ROOT, 'scripts', 'build-api-docs.mjs'), 'utf8'))?.[1];

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
}

it('Redocly lint (recommended rules) finds no error and no warning in the API document', () => {
  expect(PINNED).toMatch(/^@redocly\/cli@\d+\.\d+\.\d+$/);
  // The package named by flag, not by position, and without the npm_config_package an outer npx
  // (CI runs the suite again under `npx --package node@24`) would pass down.
  const { npm_config_package: _outer, ...env } = process.env;
  const run = spawnSync('npx', ['--yes', `--package=${PINNED!}`, '--', 'redocly', 'lint', 'docs/api/openapi.json', '--format=json'], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 240_000,
  });
  const start = run.stdout.indexOf('{');
  if (start < 0) throw new Error(`redocly printed no report (exit ${run.status}): ${run.stderr.slice(-2000)}`);
  const report = JSON.parse(run.stdout.slice(start)) as LintReport;
  const problems = report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
  expect(problems).toEqual([]);
  expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
}, 300_000);
