import type { QueryRunner } from 'typeorm';
import { backfillInBatches } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * From release 1.11.0 a write stores each event's body without the fields its journal row's columns
 * hold (its id, type, game, group and instant: src/db/event-envelope.ts), which every reader of
 * release 1.10.0 and later adds back. Release 1.9.0 reads the body as stored and would publish
 * events without them.
 *
 * The schema does not change: the record the runner writes, an expand migration of 1.11.0, is what
 * lets 1.10.0 and later run beside it and stops 1.9.0. Rolling back to 1.10.0 is running 1.10.0.
 * The down, run once no 1.11.0 instance is left (before running 1.9.0), stores every such body whole
 * again, in batches of the journal's rows by id, each its own transaction (the down runs outside
 * one, as the up does): writes go on, as they only add rows, and an erasure or the retention sweep
 * that meets a row being rewritten waits for one batch at most.
 */
export class EventEnvelopeFromColumns1768400000000 implements ReleasedMigration {
  name = 'EventEnvelopeFromColumns1768400000000';
  readonly release = expandIn('1.11.0');
  transaction = false;

  async up(): Promise<void> {
    // Nothing to change: the record the runner writes is the point (see above).
  }

  async down(q: QueryRunner): Promise<void> {
    await backfillInBatches(q, { batch: WHOLE_AGAIN_BATCH });
  }
}

/**
 * The rows of `among` (a condition on the journal's columns) whose body is stored without its id
 * made whole: the fields back as the readers since release 1.10.0 rebuild them (a frozen copy of
 * eventBodySql's), and the row its whole names, as svc_journal_names computes them from the stored
 * documents (what ServiceWordsUnindexed's down gives a row too: a reader of any release may trust them).
 */
const wholeAgainSql = (among: string): string => `UPDATE journal j SET body = w.body, names = svc_journal_names(j.actor_user_id, j.target_id, j.payload, w.body)
  FROM (
    SELECT id, jsonb_build_object(
        'id', left(replace(id::text, '-', ''), 24), 'type', type, 'gameId', game_id,
        'occurredAt', to_char((timestamptz 'epoch' + ('x' || left(replace(id::text, '-', ''), 12))::bit(48)::bigint * interval '1 millisecond')
          AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
      ) || CASE WHEN group_id IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('groupId', group_id) END || body AS body
    FROM journal WHERE ${among} AND body IS NOT NULL AND NOT body ? 'id'
  ) w
  WHERE j.id = w.id`;

/** Every row of the journal made whole, in one statement. */
export const WHOLE_AGAIN = wholeAgainSql('true');

/**
 * One batch of the down (backfillInBatches): the journal's next $2 rows by id after $1 made whole;
 * answers the last id it covered, null once there is none left.
 */
export const WHOLE_AGAIN_BATCH = `WITH keys AS (
    SELECT id FROM journal WHERE $1::uuid IS NULL OR id > $1::uuid ORDER BY id LIMIT $2
  ), whole AS (
    ${wholeAgainSql('id IN (SELECT id FROM keys)')}
  )
  SELECT (SELECT id FROM keys ORDER BY id DESC LIMIT 1) AS last`;
