// Two compilations of src/: ES modules into dist/esm, CommonJS into dist/cjs. Each directory gets
// a package.json naming its module type, since the package's own (no "type") says CommonJS.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync(new URL('dist', root), { recursive: true, force: true });
for (const [config, dir, type] of [
  ['tsconfig.json', 'dist/esm', 'module'],
  ['tsconfig.cjs.json', 'dist/cjs', 'commonjs'],
]) {
  execFileSync(process.execPath, [tsc, '-p', config], { cwd: root, stdio: 'inherit' });
  mkdirSync(new URL(dir, root), { recursive: true });
  writeFileSync(new URL(`${dir}/package.json`, root), `${JSON.stringify({ type })}\n`);
}
