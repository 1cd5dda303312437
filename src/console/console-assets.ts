import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Where `npm run build` put the console (dist/console). This file runs compiled from
 * dist/src/console and, under the tests, from src/console: walking up finds the build either way,
 * in a clone and in the Docker image alike.
 */
export function consoleAssetsDir(from: string = __dirname): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'dist', 'console');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}
