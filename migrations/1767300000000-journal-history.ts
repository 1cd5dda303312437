import type { QueryRunner } from 'typeorm';
import { backfillInBatches, createIndexConcurrently, dropIndex, lockedStatement, lockedTransaction, type IndexDefinition } from './online';
import { TRIGGER_FUNCTIONS as JOURNAL_TRIGGER_FUNCTIONS } from './1767200000000-journal';
import { expandIn, type ReleasedMigration } from './release';

/**
 * The journal, second release (docs/design/write-path.md, section 4): the history copied, the
 * readers' indexes built, so that this release can read the journal where 1.2.0 read the old tables.
 *
 * Expand. Release 1.2.0 runs beside it: it writes both the old tables and the journal, as this
 * release does, and reads the old tables. Release 1.1.0 may not (this migration lets 1.2.0 and later
 * run); it wrote only the old tables, and its rows are the history copied here.
 *
 * In order, each step able to run again:
 * 1. Triggers after each INSERT statement into audit_entries and outbox_events copy a row that has
 *    no copy once the statement is done. A 1.2.0 or later writer's own copy is already there (its
 *    flush writes it in the same statement), so they copy only what a 1.1.0 instance writes in the
 *    seconds before its schema watch stops it, and what anything else writes to the old tables
 *    directly. Made first: every insert that commits after them has a copy, and every insert that
 *    committed before them (CREATE TRIGGER waits for the writers in progress) is in the table the
 *    copy walks next.
 * 2. The history copied, in batches by key, each batch its own short transaction: rows without a
 *    copy, each audit entry and each event a row of its own (history is not paired; the routes
 *    answer the same), keyed as 1.2.0 keys them, with the old row's time and feed position. A batch
 *    reads its rows FOR SHARE: an erasure, the retention sweep or a purge that reaches one of them
 *    waits for the batch to commit, and then its trigger finds the copy to rewrite or remove.
 * 3. The readers' indexes (design section 3.1), built CONCURRENTLY once the copy is done, which is
 *    cheaper than keeping them up to date through it.
 * Before the copy, an event's expiry is made to take its name off the row too (EXPIRED_EVENT), and
 * the rows 1.2.0 expired lose theirs, in batches by key.
 *
 * The journal's sequence stays as it is: a feed position is ordered by (era, xid, seq), and the rows
 * of one transaction all take their seq from one sequence, so the two never have to be compared.
 */
export class JournalHistory1767300000000 implements ReleasedMigration {
  name = 'JournalHistory1767300000000';
  readonly release = expandIn('1.3.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(COPY_FUNCTIONS);
    await q.query(REWRITE_FUNCTIONS);
    for (const trigger of INSERT_TRIGGERS) await createInsertTrigger(q, trigger);
    await backfillInBatches(q, { batch: EXPIRED_NAMES_BATCH });
    await backfillInBatches(q, { batch: HISTORY_BATCHES.events });
    await backfillInBatches(q, { batch: HISTORY_BATCHES.audit });
    for (const index of READERS_INDEXES) await createIndexConcurrently(q, index);
  }

  /** Rolled back to 1.2.0, which reads the old tables: the copies stay (1.2.0 keeps them up to date), the readers' indexes and the insert triggers go, and the update triggers are 1.2.0's again. */
  async down(q: QueryRunner): Promise<void> {
    for (const index of [...READERS_INDEXES].reverse()) await dropIndex(q, index.name);
    for (const trigger of INSERT_TRIGGERS) await lockedStatement(q, `DROP TRIGGER IF EXISTS ${trigger.name} ON ${trigger.table}`);
    await lockedTransaction(q, async () => {
      for (const trigger of INSERT_TRIGGERS) await q.query(`DROP FUNCTION IF EXISTS ${trigger.name}()`);
      await q.query(JOURNAL_TRIGGER_FUNCTIONS);
    });
  }
}

/** The insert triggers that copy an old row into the journal (OldTablesDropped drops them with their tables, its down makes them again). */
export const INSERT_TRIGGERS = [
  { name: 'svc_journal_audit_inserted', table: 'audit_entries' },
  { name: 'svc_journal_event_inserted', table: 'outbox_events' },
] as const;

/** Creates one of INSERT_TRIGGERS, on its function of the same name. */
export function createInsertTrigger(q: QueryRunner, trigger: (typeof INSERT_TRIGGERS)[number]): Promise<unknown> {
  return lockedStatement(
    q,
    `CREATE OR REPLACE TRIGGER ${trigger.name} AFTER INSERT ON ${trigger.table}
     REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION ${trigger.name}()`,
  );
}

/** The journal row of an audit entry `c` alone, and of an event `c` alone (keyed by its id and four zero bytes). */
const AUDIT_ROW = {
  columns: 'id, game_id, group_id, created_at, action, actor_user_id, actor_pseudonym, target_id, payload, names',
  values: 'c.id, c.game_id, c.group_id, c.created_at, c.action, c.actor_user_id, c.actor_pseudonym, c.target_id, c.payload, svc_journal_names(c.actor_user_id, c.target_id, c.payload, NULL)',
  key: 'c.id',
};
const EVENT_ROW = {
  columns: 'id, game_id, group_id, created_at, type, body, trace_context, era, xid, seq, names',
  values: `(c.id || '00000000')::uuid, c.game_id, c.group_id, c.created_at, c.type, c.body, c.trace_context, c.era, c.xid, c.seq, svc_journal_names(NULL, NULL, NULL, c.body)`,
  key: `(c.id || '00000000')::uuid`,
};

/** Copies the rows of `changed` (aliased `c`) that have no copy; the names are computed only for those. */
const copyMissing = (row: typeof AUDIT_ROW, from: string) => `
  INSERT INTO journal (${row.columns})
  SELECT ${row.values} FROM ${from} c WHERE NOT EXISTS (SELECT 1 FROM journal j WHERE j.id = ${row.key})
  ON CONFLICT (id) DO NOTHING`;

export const COPY_FUNCTIONS = `
  CREATE OR REPLACE FUNCTION svc_journal_audit_inserted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    ${copyMissing(AUDIT_ROW, 'changed')};
    RETURN NULL;
  END $$;
  CREATE OR REPLACE FUNCTION svc_journal_event_inserted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    ${copyMissing(EVENT_ROW, 'changed')};
    RETURN NULL;
  END $$;`;

/**
 * What an event's expiry leaves of a row that keeps its audit part: no event at all, its name
 * included. The row then leaves the feed indexes, whose predicate is the name: one that kept it
 * (1.2.0 did) stays in them for as long as the audit entry is kept, and every read of a game's feed
 * from its start walks past each such row (the page at the start, the tail of a new stream, the
 * restore check, the sweep's own walk), more of them every day. This update changes an indexed
 * column and so is not HOT; it is the sweep's, off every request's path.
 */
export const EXPIRED_EVENT = 'type = NULL, body = NULL, trace_context = NULL';

/**
 * One batch of the walk by key that takes the name off the rows whose event 1.2.0 expired ($1 the
 * last key walked, $2 the batch size). Run before the readers' indexes exist, so they never hold such a row.
 */
export const EXPIRED_NAMES_BATCH = `
  WITH c AS MATERIALIZED (
    SELECT id FROM journal WHERE $1::uuid IS NULL OR id > $1::uuid ORDER BY id LIMIT $2
  ), cleared AS (
    UPDATE journal j SET type = NULL FROM c WHERE j.id = c.id AND j.type IS NOT NULL AND j.body IS NULL
  )
  SELECT (SELECT id FROM c ORDER BY id DESC LIMIT 1) AS last`;

/**
 * The trigger functions of Journal1767200000000 this release changes. The event's delete trigger
 * expires a copy as EXPIRED_EVENT says. The update triggers are made to leave a copy alone when it already holds what
 * the statement wrote: this release's erasure rewrites the journal itself, in the same statement as
 * the old tables, and rewriting each row again (its names walked again, a new version) made an
 * erasure of 120,000 rows take 12.7 s instead of 8.0 s. A copy that differs (a 1.2.0 erasure) is
 * rewritten as before.
 */
export const REWRITE_FUNCTIONS = `
  CREATE OR REPLACE FUNCTION svc_journal_audit_updated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    UPDATE journal j SET action = c.action, actor_user_id = c.actor_user_id, actor_pseudonym = c.actor_pseudonym,
      target_id = c.target_id, payload = c.payload, names = svc_journal_names(c.actor_user_id, c.target_id, c.payload, j.body)
    FROM changed c WHERE j.id = c.id
      AND (j.action, j.actor_user_id, j.actor_pseudonym, j.target_id, j.payload)
          IS DISTINCT FROM (c.action, c.actor_user_id, c.actor_pseudonym, c.target_id, c.payload);
    RETURN NULL;
  END $$;
  CREATE OR REPLACE FUNCTION svc_journal_event_updated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    UPDATE journal j SET body = c.body, names = svc_journal_names(j.actor_user_id, j.target_id, j.payload, c.body)
    FROM changed c WHERE j.id = (c.id || '00000000')::uuid AND j.body IS NOT NULL AND j.body IS DISTINCT FROM c.body;
    RETURN NULL;
  END $$;
  CREATE OR REPLACE FUNCTION svc_journal_event_deleted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    DELETE FROM journal j USING changed c WHERE j.id = (c.id || '00000000')::uuid AND j.action IS NULL;
    UPDATE journal j SET ${EXPIRED_EVENT} FROM changed c WHERE j.id = (c.id || '00000000')::uuid AND j.type IS NOT NULL;
    RETURN NULL;
  END $$;`;

/**
 * One batch of the copy ($1 the last key copied, $2 the batch size): the next rows by key, read
 * FOR SHARE, those without a copy copied; answers the batch's last key (PostgreSQL 15 has no
 * max(uuid): the last by order), null when none are left.
 */
const copyBatch = (table: string, row: typeof AUDIT_ROW, keyType: string) => `
  WITH c AS MATERIALIZED (
    SELECT * FROM ${table} WHERE $1::${keyType} IS NULL OR id > $1::${keyType} ORDER BY id LIMIT $2 FOR SHARE
  ), copied AS (${copyMissing(row, 'c')})
  SELECT (SELECT id FROM c ORDER BY id DESC LIMIT 1) AS last`;

/** The copy's batches, events first, then audit entries. */
export const HISTORY_BATCHES = {
  events: copyBatch('outbox_events', EVENT_ROW, 'bpchar'),
  audit: copyBatch('audit_entries', AUDIT_ROW, 'uuid'),
};

/** What the readers walk (design section 3.1): the audit routes newest first, the feed and streams in feed order, the erasure and export by name. */
export const READERS_INDEXES: IndexDefinition[] = [
  { name: 'journal_game_audit', table: 'journal', definition: '(game_id, created_at DESC, id DESC) WHERE action IS NOT NULL' },
  { name: 'journal_group_audit', table: 'journal', definition: '(group_id, created_at DESC, id DESC) WHERE action IS NOT NULL AND group_id IS NOT NULL' },
  { name: 'journal_game_feed', table: 'journal', definition: '(game_id, era, xid, seq) WHERE type IS NOT NULL' },
  { name: 'journal_group_feed', table: 'journal', definition: '(group_id, era, xid, seq) WHERE type IS NOT NULL AND group_id IS NOT NULL' },
  { name: 'journal_names', table: 'journal', definition: 'USING gin (names)' },
];
