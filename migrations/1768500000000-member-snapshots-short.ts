import type { QueryRunner } from 'typeorm';
import { backfillInBatches } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * From release 1.13.0 a write stores each member event's member snapshot short: without its group
 * (the journal row's group_id) and without each field at its usual value (src/db/member-snapshot.ts),
 * which every reader of release 1.12.0 and later puts back. Release 1.11.0 reads the body as
 * stored and would publish members without them.
 *
 * The schema does not change: the record the runner writes, an expand migration of 1.13.0, is what
 * lets 1.12.0 and later run beside it and stops 1.11.0. Rolling back to 1.12.0 is running 1.12.0.
 * The down, run once no 1.13.0 instance is left (before running 1.11.0), makes every short snapshot
 * whole again, in batches of the journal's rows by id, each its own transaction: writes go on, as
 * they only add rows, and an erasure or the retention sweep that meets a row being rewritten waits
 * for one batch at most.
 */
export class MemberSnapshotsShort1768500000000 implements ReleasedMigration {
  name = 'MemberSnapshotsShort1768500000000';
  readonly release = expandIn('1.13.0');
  transaction = false;

  async up(): Promise<void> {
    // Nothing to change: the record the runner writes is the point (see above).
  }

  async down(q: QueryRunner): Promise<void> {
    await backfillInBatches(q, { batch: MEMBERS_WHOLE_BATCH });
  }
}

/** What a short snapshot leaves out, at the values the readers put back (a frozen copy of MEMBER_DEFAULTS). */
const USUAL = `'{"status": "active", "roles": [], "roleGrants": [], "metadata": {}, "notesPublic": null, "notesPrivate": null, "leftAt": null, "bannedUntil": null, "timedOutUntil": null}'::jsonb`;

/**
 * The rows of `among` (a condition on the journal's columns) whose member snapshot is short made
 * whole, as the readers since release 1.12.0 make it (a frozen copy of memberWholeSql's), and the row
 * its whole names, as svc_journal_names computes them from the stored documents (what the other
 * downs give a row too: a reader of any release may trust them).
 */
const membersWholeSql = (among: string): string => `UPDATE journal j SET body = w.body, names = svc_journal_names(j.actor_user_id, j.target_id, j.payload, w.body)
  FROM (
    SELECT id, jsonb_set(body, '{member}', ${USUAL} || jsonb_build_object('groupId', group_id) || (body->'member')) AS body
    FROM journal
    WHERE ${among} AND body IS NOT NULL AND NOT body ? 'id' AND group_id IS NOT NULL
      AND jsonb_typeof(body->'member') = 'object' AND NOT (body->'member') ? 'groupId'
  ) w
  WHERE j.id = w.id`;

/** Every short snapshot of the journal made whole, in one statement. */
export const MEMBERS_WHOLE = membersWholeSql('true');

/**
 * One batch of the down (backfillInBatches): the journal's next $2 rows by id after $1 made whole;
 * answers the last id it covered, null once there is none left.
 */
export const MEMBERS_WHOLE_BATCH = `WITH keys AS (
    SELECT id FROM journal WHERE $1::uuid IS NULL OR id > $1::uuid ORDER BY id LIMIT $2
  ), whole AS (
    ${membersWholeSql('id IN (SELECT id FROM keys)')}
  )
  SELECT (SELECT id FROM keys ORDER BY id DESC LIMIT 1) AS last`;
