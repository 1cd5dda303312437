import type { QueryRunner } from 'typeorm';
import { TRIGGER_FUNCTIONS, TRIGGERS } from './1767200000000-journal';
import { COPY_FUNCTIONS, createInsertTrigger, INSERT_TRIGGERS, REWRITE_FUNCTIONS } from './1767300000000-journal-history';
import { lockedStatement, lockedTransaction } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * The old tables dropped (docs/design/write-path.md section 4, N+4): audit_entries and
 * outbox_events, emptied by 1.6.0's OldTablesEmptied, and every function of their triggers. No
 * release from 1.6.0 on names them, so 1.6.0 runs beside this and after it; 1.5.0, whose erasure,
 * group purge and sweep still write them (finding them empty), may not (expandIn('1.7.0') makes
 * 1.6.0 the oldest release that may run).
 *
 * Their foreign keys go first, each alone: dropping one locks the table it refers to (games,
 * groups) against writes, briefly, under a short lock_timeout and tried again (lockedStatement);
 * then each table. Empty since 1.6.0, their heaps are nothing, and their indexes (hundreds of MB on a
 * database that had history before 1.4.0) are freed with them.
 *
 * The down makes both tables again, empty, as 1.6.0 left them: columns, keys, the four indexes of
 * each, the foreign keys of audit_entries, the insert triggers and every trigger function (the
 * update and delete triggers themselves are OldTablesEmptied's down's to make). Their rows do not
 * come back: the journal holds them.
 */
export class OldTablesDropped1767900000000 implements ReleasedMigration {
  name = 'OldTablesDropped1767900000000';
  readonly release = expandIn('1.7.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    for (const fk of ['audit_entries_game_id_fkey', 'audit_entries_group_fk']) {
      await lockedStatement(q, `ALTER TABLE IF EXISTS audit_entries DROP CONSTRAINT IF EXISTS ${fk}`);
    }
    for (const table of ['audit_entries', 'outbox_events']) await lockedStatement(q, `DROP TABLE IF EXISTS ${table}`);
    await q.query(`DROP FUNCTION IF EXISTS ${[...INSERT_TRIGGERS, ...TRIGGERS].map((t) => `${t.name}()`).join(', ')}`);
  }

  async down(q: QueryRunner): Promise<void> {
    await lockedTransaction(q, async () => {
      const [{ era }] = (await q.query('SELECT era FROM feed_state')) as { era: number }[];
      await q.query(OLD_TABLES(Number(era)));
      // The update and delete functions as JournalHistory left them (it replaced three of Journal's four).
      await q.query(TRIGGER_FUNCTIONS);
      await q.query(REWRITE_FUNCTIONS);
      await q.query(COPY_FUNCTIONS);
      for (const trigger of INSERT_TRIGGERS) await createInsertTrigger(q, trigger);
    });
  }
}

/** Both tables as 1.6.0 has them, empty; events take the feed's current era, as they did when written. */
const OLD_TABLES = (era: number) => `
  CREATE TABLE IF NOT EXISTS audit_entries (
    id              uuid PRIMARY KEY,
    game_id         uuid NOT NULL CONSTRAINT audit_entries_game_id_fkey REFERENCES games (id) ON DELETE CASCADE,
    group_id        uuid CONSTRAINT audit_entries_group_fk REFERENCES groups (id) ON DELETE CASCADE,
    actor_user_id   uuid,
    action          text NOT NULL,
    target_id       text,
    payload         jsonb NOT NULL DEFAULT '{}',
    created_at      timestamptz(3) NOT NULL DEFAULT now(),
    actor_pseudonym text
  );
  CREATE INDEX IF NOT EXISTS audit_entries_game_order ON audit_entries (game_id, created_at DESC, id DESC);
  CREATE INDEX IF NOT EXISTS audit_entries_group_order ON audit_entries (group_id, created_at DESC, id DESC) WHERE group_id IS NOT NULL;
  CREATE INDEX IF NOT EXISTS audit_entries_names ON audit_entries USING gin (svc_audit_names(actor_user_id, target_id, payload) jsonb_path_ops);
  CREATE TABLE IF NOT EXISTS outbox_events (
    id            char(24) PRIMARY KEY,
    game_id       uuid NOT NULL,
    group_id      uuid,
    type          text NOT NULL,
    body          jsonb NOT NULL,
    created_at    timestamptz(3) NOT NULL DEFAULT now(),
    xid           xid8 NOT NULL DEFAULT pg_current_xact_id(),
    seq           bigint GENERATED ALWAYS AS IDENTITY,
    era           integer NOT NULL DEFAULT ${era},
    trace_context jsonb
  );
  CREATE INDEX IF NOT EXISTS outbox_events_created ON outbox_events (created_at);
  CREATE INDEX IF NOT EXISTS outbox_events_game_feed ON outbox_events (game_id, era, xid, seq);
  CREATE INDEX IF NOT EXISTS outbox_events_group_feed ON outbox_events (group_id, era, xid, seq) WHERE group_id IS NOT NULL;
  CREATE INDEX IF NOT EXISTS outbox_events_names ON outbox_events USING gin (svc_names(body) jsonb_path_ops);`;
