import type { QueryRunner } from 'typeorm';
import { lockedTransaction } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * Players' reports (EXTENSIONS X10) and the tally of the open ones per subject.
 *
 * `reports`: who reported (an external id; null for a report the service files itself, so that
 * filing by a name check needs no schema change), what (a user by external id, or a group by id,
 * as text), why, and how it was closed. External ids are stored as the game names them, as
 * invitations and bans do: an erasure swaps them for the pseudonym in place. User ids have no
 * length cap, so every index on one goes through svc_external_key (a sha256), as
 * user_identities_external does.
 *
 * Indexes: the operators' list newest first (whole, and per status), at most one open report per
 * reporter and subject (the write's ON CONFLICT target), a reporter's reports by time (the hourly
 * limit, the export, the erasure) and a subject's (the tally, the export, the erasure).
 *
 * `report_subjects`: one row per subject ever reported, rewritten from the subject's open reports
 * in the transaction of each change (under the row's lock), so the queue pages on an index of its
 * own order and the group search hides a group by one probe of the primary key. A subject whose
 * reports are all closed keeps its row with zero counts, outside the queue's partial index. Its
 * `id` breaks ties in the queue's order: a short key a cursor carries whatever the subject's id.
 *
 * Expand: two new tables that only this release reads and writes; the previous release runs beside
 * it and files no reports. The foreign keys to games take a lock that waits only for writes to
 * games (rare): under a short lock_timeout, tried again (lockedTransaction).
 */
export class Reports1766500000000 implements ReleasedMigration {
  name = 'Reports1766500000000';
  readonly release = expandIn('1.1.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedTransaction(q, async () => {
      await q.query(`
        CREATE TABLE IF NOT EXISTS reports (
          id              uuid PRIMARY KEY,
          game_id         uuid NOT NULL REFERENCES games (id) ON DELETE CASCADE,
          reporter_id     text,
          subject_type    text NOT NULL CHECK (subject_type IN ('user', 'group')),
          subject_id      text NOT NULL,
          category        text NOT NULL CHECK (category IN ('cheating', 'harassment', 'offensive_name', 'spam', 'other')),
          message         text,
          status          text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
          created_at      timestamptz(3) NOT NULL DEFAULT now(),
          resolved_at     timestamptz(3),
          resolution      text CHECK (resolution IN ('dismissed', 'actioned')),
          resolution_note text,
          CONSTRAINT reports_closed_whole CHECK ((status = 'open') = (resolved_at IS NULL AND resolution IS NULL))
        )`);
      await q.query(`CREATE INDEX IF NOT EXISTS reports_list ON reports (game_id, created_at DESC, id DESC)`);
      await q.query(`CREATE INDEX IF NOT EXISTS reports_by_status ON reports (game_id, status, created_at DESC, id DESC)`);
      await q.query(
        `CREATE UNIQUE INDEX IF NOT EXISTS reports_open_once ON reports (game_id, svc_external_key(reporter_id), subject_type, svc_external_key(subject_id)) WHERE status = 'open'`,
      );
      await q.query(`CREATE INDEX IF NOT EXISTS reports_reporter ON reports (game_id, svc_external_key(reporter_id), created_at)`);
      await q.query(`CREATE INDEX IF NOT EXISTS reports_subject ON reports (game_id, subject_type, svc_external_key(subject_id), created_at)`);
      await q.query(`
        CREATE TABLE IF NOT EXISTS report_subjects (
          game_id      uuid NOT NULL REFERENCES games (id) ON DELETE CASCADE,
          subject_type text NOT NULL CHECK (subject_type IN ('user', 'group')),
          subject_id   text NOT NULL,
          subject_key  bytea NOT NULL GENERATED ALWAYS AS (svc_external_key(subject_id)) STORED,
          id           uuid NOT NULL DEFAULT svc_uuidv7(),
          open_reports integer NOT NULL DEFAULT 0,
          reporters    integer NOT NULL DEFAULT 0,
          categories   text[] NOT NULL DEFAULT '{}',
          first_at     timestamptz(3),
          last_at      timestamptz(3),
          PRIMARY KEY (game_id, subject_type, subject_key)
        )`);
      await q.query(
        `CREATE INDEX IF NOT EXISTS report_subjects_queue ON report_subjects (game_id, reporters DESC, id DESC) WHERE open_reports > 0`,
      );
    });
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS report_subjects');
    await q.query('DROP TABLE IF EXISTS reports');
  }
}
