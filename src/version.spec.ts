import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareReleases, parseRelease, RELEASE } from './version';

describe('the release', () => {
  it('is the version of package.json, and semver', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
    expect(RELEASE).toBe(pkg.version);
    expect(parseRelease(RELEASE)).not.toBeNull();
  });

  it('orders releases by major, minor and patch, as numbers', () => {
    expect(compareReleases('1.0.0', '1.0.0')).toBe(0);
    expect(compareReleases('0.0.0', '1.0.0')).toBeLessThan(0);
    expect(compareReleases('1.10.0', '1.9.3')).toBeGreaterThan(0);
    expect(compareReleases('2.0.0', '1.99.99')).toBeGreaterThan(0);
    expect(() => compareReleases('1.0', '1.0.0')).toThrow('not a release version: 1.0');
  });
});
