#!/usr/bin/env node
'use strict';
// The operator command's entry (`npx guildhall`, `npm run svc`). It runs the built code and never
// builds: a build starts by deleting dist/, which a running server loads its code from.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const cli = join(__dirname, '..', 'dist', 'src', 'cli.js');
if (!existsSync(cli)) {
  process.stderr.write('guildhall: dist/src/cli.js is missing: run `npm run build` first\n');
  process.exit(1);
}
require(cli);
