import type { KnownMigration } from '../db/schema/schema-state';
import { MIGRATIONS } from '../../migrations';
import { downsInTransaction } from '../../migrations/release';
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

  it('runs the down of a migration of 1.0.0 or later outside a transaction when its up runs so; the others in one', () => {
    const byName = (name: string) => MIGRATIONS.map((M) => new M()).find((m) => m.name === name);
    expect(downsInTransaction(byName('EventEnvelopeFromColumns1768400000000'))).toBe(false);
    expect(downsInTransaction(byName('DerivedDeliveryIds1768000000000'))).toBe(true);
    expect(downsInTransaction(byName('Groups1763800000000'))).toBe(true);
    expect(downsInTransaction(undefined)).toBe(true);
  });
});
