import { expandIn, type ReleasedMigration } from './release';

/**
 * The second step of the HOT lease (docs/design/write-path.md; the first is
 * DeliveryLease1767000000000): from release 1.2.0 a webhook claim writes its lease to lease_until
 * alone, an update of no indexed column. Release 1.1.0 reads that lease and may run beside it;
 * release 1.0.0 reads only next_attempt_at and would send a leased delivery a second time.
 *
 * The schema needs nothing more, so this migration changes no table: what it does is its record
 * in schema_releases, an expand migration of 1.2.0, which lets 1.1.0 and later run and no older
 * release. Once it is applied a 1.0.0 build refuses to start, and a 1.0.0 instance still running
 * answers writes with 503 and fails /healthz, so no 1.0.0 worker claims beside a 1.2.0 one.
 * Rolling back to 1.1.0 is running 1.1.0, as for any expand migration.
 */
export class LeaseUntilAlone1767100000000 implements ReleasedMigration {
  name = 'LeaseUntilAlone1767100000000';
  readonly release = expandIn('1.2.0');

  async up(): Promise<void> {
    // Nothing to change: the record the runner writes is the point (see above).
  }

  async down(): Promise<void> {
    // Nothing to undo.
  }
}
