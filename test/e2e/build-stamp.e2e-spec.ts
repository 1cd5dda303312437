import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, ROOT, runNode } from '../helpers/process';

/**
 * scripts/build-stamp.mjs: the suites that run the built service build only when dist/ is not a
 * build of the sources as they are (`npm run build:once`). Run on a copy of the script in a project
 * of a few files, so that the test changes no source of the real one.
 */

const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

describe('build stamp', () => {
  let project: string;
  let script: string;
  const run = async (mode: string) => (await runNode(script, [mode], cleanEnv())).code;

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'guildhall-stamp-'));
    for (const dir of ['scripts', 'src/db', 'migrations', 'console/src', 'dist']) mkdirSync(join(project, dir), { recursive: true });
    script = join(project, 'scripts/build-stamp.mjs');
    copyFileSync(join(ROOT, 'scripts/build-stamp.mjs'), script);
    writeFileSync(join(project, 'src/main.ts'), 'export const a = 1;\n');
    writeFileSync(join(project, 'src/db/x.ts'), 'export const x = 1;\n');
    writeFileSync(join(project, 'migrations/1-first.ts'), 'export {};\n');
    writeFileSync(join(project, 'console/src/main.ts'), 'export {};\n');
    writeFileSync(join(project, 'package-lock.json'), '{}\n');
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('is fresh after a write, stale after any change to what a build reads, fresh again once undone', async () => {
    expect(await run('fresh')).toBe(1);
    expect(await run('write')).toBe(0);
    expect(await run('fresh')).toBe(0);

    const changes: [string, () => void, () => void][] = [
      ['a source edited', () => writeFileSync(join(project, 'src/db/x.ts'), 'export const x = 2;\n'), () => writeFileSync(join(project, 'src/db/x.ts'), 'export const x = 1;\n')],
      ['a migration added', () => writeFileSync(join(project, 'migrations/2-second.ts'), 'export {};\n'), () => unlinkSync(join(project, 'migrations/2-second.ts'))],
      ['a file of the console', () => writeFileSync(join(project, 'console/src/main.ts'), 'export const c = 1;\n'), () => writeFileSync(join(project, 'console/src/main.ts'), 'export {};\n')],
      ['the locked dependencies', () => writeFileSync(join(project, 'package-lock.json'), '{"x":1}\n'), () => writeFileSync(join(project, 'package-lock.json'), '{}\n')],
      ['a source added', () => copyFileSync(join(project, 'src/main.ts'), join(project, 'src/main2.ts')), () => unlinkSync(join(project, 'src/main2.ts'))],
    ];
    for (const [what, change, undo] of changes) {
      change();
      expect({ what, code: await run('fresh') }).toEqual({ what, code: 1 });
      undo();
      expect({ what, code: await run('fresh') }).toEqual({ what, code: 0 });
    }
  });

  it('a build of dist/ removed with it: stale', async () => {
    expect(await run('write')).toBe(0);
    rmSync(join(project, 'dist'), { recursive: true });
    mkdirSync(join(project, 'dist'));
    expect(await run('fresh')).toBe(1);
  });

  it('npm run build writes the stamp; the suites of the built service build with build:once, npm test always builds', () => {
    expect(PACKAGE.scripts.build).toMatch(/&& node scripts\/build-stamp\.mjs write$/);
    expect(PACKAGE.scripts['build:once']).toBe('node scripts/build-stamp.mjs fresh || npm run --silent build');
    for (const suite of ['test:reliability', 'test:contract', 'test:console', 'test:ops', 'test:ha', 'test:upgrade']) {
      expect({ suite, builds: PACKAGE.scripts[suite].match(/npm run --silent build\S*/g) }).toEqual({ suite, builds: ['npm run --silent build:once'] });
    }
    expect(PACKAGE.scripts.test).toContain('npm run --silent build &&');
  });
});
