import type { KnownMigration } from '../db/schema/schema-state';
import { revertRefusal } from './migrate-commands';

const known: KnownMigration[] = [
  { name: 'AddThing1', release: { version: '1.0.0', kind: 'expand' }, oldest: '0.0.0' },
  { name: 'DropOld2', release: { version: '1.0.0', kind: 'contract' }, oldest: '1.0.0' },
  { name: 'AddMore3', release: { version: '1.0.0', kind: 'expand' }, oldest: '0.0.0' },
];

describe('migrate down', () => {
  it('reverts expand migrations of this build', () => {
    expect(revertRefusal(['AddMore3'], known)).toBeNull();
    expect(revertRefusal([], known)).toBeNull();
  });

  it('refuses, naming it, a contract migration (what it removed cannot come back) and one of a newer release', () => {
    expect(revertRefusal(['AddMore3', 'DropOld2', 'AddThing1'], known)).toBe(
      'DropOld2 is a contract migration of release 1.0.0: reverting it cannot bring back what it removed; restore a backup taken before it instead',
    );
    expect(revertRefusal(['Newer9', 'AddMore3'], known)).toMatch(/^Newer9 was applied by a newer release/);
  });
});
