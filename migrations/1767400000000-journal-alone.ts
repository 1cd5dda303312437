import { expandIn, type ReleasedMigration } from './release';

/**
 * The journal, third release (docs/design/write-path.md, section 4): from release 1.4.0 a change is
 * written to the journal alone, no longer to audit_entries and outbox_events. Release 1.3.0 reads
 * only the journal (its restore check, feed-lag gauge and sweep included) and may run beside it;
 * release 1.2.0 reads the old tables and would miss every change 1.4.0 makes.
 *
 * The schema needs nothing more, so this migration changes no table: what it does is its record in
 * schema_releases, an expand migration of 1.4.0, which lets 1.3.0 and later run and no older
 * release. Once it is applied a 1.2.0 build refuses to start, and a 1.2.0 instance still running
 * answers writes with 503 and fails /healthz. Rolling back to 1.3.0 is running 1.3.0, which reads the
 * changes 1.4.0 wrote from the journal and writes both again.
 */
export class JournalAlone1767400000000 implements ReleasedMigration {
  name = 'JournalAlone1767400000000';
  readonly release = expandIn('1.4.0');

  async up(): Promise<void> {
    // Nothing to change: the record the runner writes is the point (see above).
  }

  async down(): Promise<void> {
    // Nothing to undo.
  }
}
