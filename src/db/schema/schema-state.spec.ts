import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS } from '../../../migrations';
import { oldestReleaseFor, RELEASES, releaseOf } from '../../../migrations/release';
import { RELEASE } from '../../version';
import { blockingMigrations, incompatibility, KNOWN_MIGRATIONS, type ForeignMigration, type SchemaState } from './schema-state';

const state = (foreign: ForeignMigration[]): SchemaState => ({ applied: new Set(), pending: [], foreign });
const newer = (name: string, release: string | null, kind: string | null, oldest: string | null): ForeignMigration => ({ name, release, kind, oldest });

describe('what a build may run beside', () => {
  it('runs beside a newer release\'s expand migration whose oldest release is at or below it', () => {
    expect(blockingMigrations(state([newer('Add1800000000000', '1.1.0', 'expand', '1.0.0')]), '1.0.0')).toEqual([]);
    expect(blockingMigrations(state([newer('Add1800000000000', '1.1.0', 'expand', '1.0.0')]), '1.0.5')).toEqual([]);
  });

  it('refuses a contract migration of a newer release, and one nobody recorded', () => {
    const contract = newer('Drop1900000000000', '1.2.0', 'contract', '1.2.0');
    const unrecorded = newer('Mystery1950000000000', null, null, null);
    expect(blockingMigrations(state([contract, unrecorded]), '1.1.9')).toEqual([contract, unrecorded]);
    expect(blockingMigrations(state([contract]), '1.2.0')).toEqual([]);
  });

  it('says why in one line naming both releases', () => {
    const line = incompatibility([newer('Drop1900000000000', '1.2.0', 'contract', '1.2.0')], '1.0.0');
    expect(line).toBe(
      'the database has migration Drop1900000000000 of release 1.2.0 (contract), which needs release 1.2.0 or later; this build is release 1.0.0: run release 1.2.0 or later, or have that release roll the schema back (guildhall migrate down)',
    );
    expect(line).not.toContain('\n');
  });
});

describe('the migrations and the releases', () => {
  it('lists the releases in order, ending with this build\'s or the one in preparation, each a section of CHANGELOG.md', () => {
    const changelog = readFileSync(join(__dirname, '../../../CHANGELOG.md'), 'utf8');
    const last = RELEASES[RELEASES.length - 1];
    // Migrations of the next release are marked with it before it ships; CHANGELOG lists them under [Unreleased].
    const preparing = last !== RELEASE;
    if (preparing) {
      expect(RELEASES[RELEASES.length - 2]).toBe(RELEASE);
      expect(changelog).toMatch(/^## \[Unreleased\]\n\n\S/m);
    }
    const shipped = preparing ? RELEASES.slice(1, -1) : RELEASES.slice(1);
    for (const r of shipped) expect(changelog).toMatch(new RegExp(`^## \\[${r.replace(/\./g, '\\.')}\\]`, 'm'));
  });

  it('has every migration from release 1.0.0 on say its release and kind, and CHANGELOG.md list it so', () => {
    const changelog = readFileSync(join(__dirname, '../../../CHANGELOG.md'), 'utf8');
    const first = MIGRATIONS.findIndex((M) => new M().name === 'MentionNames1765800000000');
    expect(first).toBeGreaterThan(0);
    for (const M of MIGRATIONS.slice(first)) {
      const m = new M();
      expect({ name: m.name, declared: 'release' in m }).toEqual({ name: m.name, declared: true });
      const r = releaseOf(m);
      expect(RELEASES).toContain(r.version);
      expect(changelog).toContain(`\`${m.name}\` (${r.kind})`);
    }
  });

  it('lets the previous release run beside an expand migration, and only its own release beside a contract one', () => {
    expect(oldestReleaseFor({ version: '1.0.0', kind: 'expand' })).toBe('0.0.0');
    expect(oldestReleaseFor({ version: '1.0.0', kind: 'contract' })).toBe('1.0.0');
    expect(KNOWN_MIGRATIONS.find((k) => k.name === 'SchemaReleases1766000000000')).toMatchObject({ release: { version: '1.0.0', kind: 'expand' }, oldest: '0.0.0' });
  });
  it('keeps release 1.0.0 away from 1.2.0\'s claims, which lease in lease_until alone: LeaseUntilAlone lets 1.1.0 and later run', () => {
    const floor = KNOWN_MIGRATIONS.find((k) => k.name === 'LeaseUntilAlone1767100000000')!;
    expect(floor).toMatchObject({ release: { version: '1.2.0', kind: 'expand' }, oldest: '1.1.0' });
    const recorded = newer(floor.name, floor.release.version, floor.release.kind, floor.oldest);
    expect(blockingMigrations(state([recorded]), '1.0.0')).toEqual([recorded]);
    expect(blockingMigrations(state([recorded]), '1.1.0')).toEqual([]);
  });
  it('keeps release 1.4.0, whose erasure trusts the index of names for every id, away from 1.6.0\'s writers: ServiceWordsUnindexed lets 1.5.0 and later run', () => {
    const floor = KNOWN_MIGRATIONS.find((k) => k.name === 'ServiceWordsUnindexed1767700000000')!;
    expect(floor).toMatchObject({ release: { version: '1.6.0', kind: 'expand' }, oldest: '1.5.0' });
    const recorded = newer(floor.name, floor.release.version, floor.release.kind, floor.oldest);
    expect(blockingMigrations(state([recorded]), '1.4.0')).toEqual([recorded]);
    expect(blockingMigrations(state([recorded]), '1.5.0')).toEqual([]);
  });
});
