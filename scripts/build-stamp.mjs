#!/usr/bin/env node
// Whether dist/ was built from the sources as they are now, so that the suites that run the built
// service (test:reliability, test:ops, …) build only when something changed since the last build,
// instead of once each, one after the other, in CI.
//
//   node scripts/build-stamp.mjs write   after a build: records the sources' digest in dist/
//   node scripts/build-stamp.mjs fresh   exits 0 when dist/ holds a build of these sources, 1 if not
//
// The digest covers every file a build reads (the TypeScript of src/ and migrations/, the console's
// sources, the compiler's settings, the dependencies as locked) by path and content.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const stamp = join(root, 'dist', '.sources-digest');
const INPUTS = ['src', 'migrations', 'console/src', 'console/build.mjs', 'console/index.html', 'console/styles.css', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

function* files(path) {
  if (!existsSync(path)) return;
  if (!statSync(path).isDirectory()) {
    yield path;
    return;
  }
  for (const name of readdirSync(path).sort()) yield* files(join(path, name));
}

function digest() {
  const hash = createHash('sha256');
  for (const input of INPUTS) {
    for (const file of files(join(root, input))) {
      hash.update(`${relative(root, file)}\0`);
      hash.update(readFileSync(file));
      hash.update('\0');
    }
  }
  return hash.digest('hex');
}

const [mode] = process.argv.slice(2);
if (mode === 'write') {
  writeFileSync(stamp, `${digest()}\n`);
} else if (mode === 'fresh') {
  const fresh = existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === digest();
  if (fresh) process.stderr.write('dist/ is a build of the sources as they are: not building again\n');
  process.exit(fresh ? 0 : 1);
} else {
  process.stderr.write('usage: node scripts/build-stamp.mjs write|fresh\n');
  process.exit(2);
}
