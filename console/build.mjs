// Bundles the operator console (console/src, console/styles.css) into dist/console with esbuild:
// one script and one stylesheet, named by content hash, and index.html pointing at them. Every
// asset ships in the build (uPlot included), so the console makes no third-party request.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist', 'console');

mkdirSync(out, { recursive: true });
const result = await build({
  entryPoints: [join(here, 'src', 'main.ts'), join(here, 'styles.css')],
  outdir: join(out, 'assets'),
  entryNames: '[name]-[hash]',
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const outputs = Object.entries(result.metafile.outputs);
const named = (entry) => basename(outputs.find(([, o]) => o.entryPoint?.endsWith(entry))[0]);
const html = readFileSync(join(here, 'index.html'), 'utf8')
  .replace('{{script}}', `assets/${named('main.ts')}`)
  .replace('{{styles}}', `assets/${named('styles.css')}`);
writeFileSync(join(out, 'index.html'), html);
