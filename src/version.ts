import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * This build's release (semver), from the project's package.json: the one number an operator
 * reads in `GET /`, `/healthz`, the start-up line, `svc_build_info` and CHANGELOG.md. Found by
 * walking up from this file, which sits at a different depth in src/ (tests) and dist/src/ (builds).
 */
function readRelease(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'guildhall' && pkg.version) return pkg.version;
    }
    if (dirname(dir) === dir) throw new Error('the package.json of guildhall was not found above the code');
  }
}

export const RELEASE = readRelease();

/** SPEC: `GET /` answers a constant `version` that does not identify builds; the release is a field of its own. */
export const INTERFACE_VERSION = '0.0.0';

/** The parts of a semver version, for ordering releases (pre-release and build suffixes are not used here). */
export function parseRelease(version: string): [number, number, number] | null {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

/** Negative, zero or positive as release `a` is older than, the same as, or newer than `b`. */
export function compareReleases(a: string, b: string): number {
  const x = parseRelease(a);
  const y = parseRelease(b);
  if (!x || !y) throw new Error(`not a release version: ${x ? b : a}`);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}
