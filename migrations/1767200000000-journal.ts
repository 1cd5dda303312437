import type { QueryRunner } from 'typeorm';
import { lockedStatement, lockedTransaction } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * The journal, first release (docs/design/write-path.md, section 3.1 and step 5): one row per
 * change that is at once its audit entry and its event, and the names the change holds as hashes
 * (`names`, for one GIN index) instead of expression indexes over whole documents.
 *
 * Expand. This release writes both: audit_entries and outbox_events exactly as before, which it
 * still reads, and a copy of the same change in the journal, which nothing reads yet. A change's
 * audit entry and event share one row and one key: the event id's 12 bytes followed by four zero
 * bytes, which is also the audit entry's id (src/db/journal-pairing.ts). An event without an audit
 * entry has the same key; an audit entry without an event keeps its own id.
 *
 * The previous release writes only the old tables, and runs beside this one: the release after this
 * copies what has no journal row yet, in batches, before anything reads the journal. What the
 * previous release (and this one) does to the old tables after the insert reaches the copies
 * through the triggers below, so no copy keeps a player's id after an erasure, a purged group's
 * history, or an event past its retention:
 * - an update of an audit entry (an erasure's rewrite) rewrites the row's audit part and names;
 * - an update of an event (an erasure's rewrite) rewrites the row's body and names;
 * - a deleted event (retention) empties the row's event body, or deletes a row with no audit part;
 * - a deleted audit entry (a purged group, through its key) empties the row's audit part, or deletes
 *   a row whose event is gone.
 * The row keeps its names when a part goes: they only make it a candidate for the erasure's and the
 * export's exact test, and an update of no indexed column stays on its page (fillfactor 90).
 *
 * Only the primary key is built now, which the triggers find a copy by: nothing reads the journal in
 * this release, and each index would only add to what every write costs meanwhile. The release that
 * reads it builds the readers' indexes (concurrently) once it has copied the older history, which
 * is also cheaper than keeping them up to date through the copy.
 *
 * The table is new and empty: created in one short transaction. A trigger takes a
 * lock that blocks writes to its table while it is created: under a short lock_timeout, tried
 * again (lockedStatement). No foreign keys: each would lock the shared `games` row on every insert
 * (the design's open question 4).
 */
export class Journal1767200000000 implements ReleasedMigration {
  name = 'Journal1767200000000';
  readonly release = expandIn('1.2.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    // 32 bits of the hash PostgreSQL's hash partitioning routes text by, which it keeps the same
    // across versions (a hash-partitioned table's rows stay where they are through pg_upgrade). Built
    // in, and inlined where it is called: the names of a change of 23 strings took 17 µs with it and
    // 71 µs with a SHA-256 written in SQL. A collision only makes a candidate that the exact test drops.
    await q.query(`
      CREATE OR REPLACE FUNCTION svc_name_hash(s text) RETURNS integer LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      AS $$ SELECT (hashtextextended(s, 0) >> 32)::integer $$`);
    // The strings svc_audit_names and svc_names return, hashed: what the erasure and the export
    // look for in an audit entry and in an event, as one set. PL/pgSQL, which keeps its plan for the
    // session: a SQL function whose body is a query is planned again at every call, which cost the
    // flush with the journal a third of its transactions a second (pgbench, against the same flush
    // with the names left out).
    await q.query(`
      CREATE OR REPLACE FUNCTION svc_journal_names(actor uuid, target text, payload jsonb, body jsonb) RETURNS integer[]
      LANGUAGE plpgsql STABLE PARALLEL SAFE
      AS $$ BEGIN
        RETURN (
          SELECT coalesce(array_agg(DISTINCT svc_name_hash(n)), '{}')
          FROM jsonb_array_elements_text(
            CASE WHEN payload IS NULL THEN '[]'::jsonb ELSE svc_audit_names(actor, target, payload) END
            || coalesce(svc_names(body), '[]'::jsonb)) AS n
          WHERE n IS NOT NULL);
      END $$`);
    await lockedTransaction(q, async () => {
      const [{ era }] = (await q.query('SELECT era FROM feed_state FOR SHARE')) as { era: number }[];
      await q.query('CREATE SEQUENCE IF NOT EXISTS journal_seq');
      await q.query(`
        CREATE TABLE IF NOT EXISTS journal (
          id               uuid PRIMARY KEY,
          game_id          uuid NOT NULL,
          group_id         uuid,
          created_at       timestamptz(3) NOT NULL DEFAULT now(),
          action           text,
          actor_user_id    uuid,
          actor_pseudonym  text,
          target_id        text,
          payload          jsonb,
          type             text,
          body             jsonb,
          trace_context    jsonb,
          era              integer NOT NULL DEFAULT ${Number(era)},
          xid              xid8 NOT NULL DEFAULT pg_current_xact_id(),
          seq              bigint NOT NULL DEFAULT nextval('journal_seq'),
          names            integer[] NOT NULL,
          CONSTRAINT journal_has_a_part CHECK (action IS NOT NULL OR type IS NOT NULL)
        ) WITH (fillfactor = 90)`);
      await q.query('ALTER SEQUENCE journal_seq OWNED BY journal.seq');
    });
    await q.query(TRIGGER_FUNCTIONS);
    for (const trigger of TRIGGERS) await createTrigger(q, trigger);
  }

  /** Rolled back to 1.1.0, nothing that runs reads or writes the journal: it goes, with what it copied. */
  async down(q: QueryRunner): Promise<void> {
    for (const trigger of [...TRIGGERS].reverse()) await lockedStatement(q, `DROP TRIGGER IF EXISTS ${trigger.name} ON ${trigger.table}`);
    await lockedTransaction(q, async () => {
      for (const trigger of TRIGGERS) await q.query(`DROP FUNCTION IF EXISTS ${trigger.name}()`);
      await q.query('DROP TABLE IF EXISTS journal');
      await q.query('DROP FUNCTION IF EXISTS svc_journal_names(uuid, text, jsonb, jsonb)');
      await q.query('DROP FUNCTION IF EXISTS svc_name_hash(text)');
    });
  }
}

/** The triggers that carry a rewrite or a removal of an old row into the journal (OldTablesEmptied drops them, its down makes them again). */
export const TRIGGERS = [
  { name: 'svc_journal_audit_updated', table: 'audit_entries', event: 'UPDATE' },
  { name: 'svc_journal_audit_deleted', table: 'audit_entries', event: 'DELETE' },
  { name: 'svc_journal_event_updated', table: 'outbox_events', event: 'UPDATE' },
  { name: 'svc_journal_event_deleted', table: 'outbox_events', event: 'DELETE' },
] as const;

/** Creates one of TRIGGERS, on its function of the same name. */
export function createTrigger(q: QueryRunner, trigger: (typeof TRIGGERS)[number]): Promise<unknown> {
  return lockedStatement(
    q,
    `CREATE OR REPLACE TRIGGER ${trigger.name} AFTER ${trigger.event} ON ${trigger.table}
     REFERENCING ${trigger.event === 'UPDATE' ? 'NEW' : 'OLD'} TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION ${trigger.name}()`,
  );
}

/** An event's row in the journal: its id's 12 bytes, then four zero bytes. */
const EVENT_KEY = `(c.id || '00000000')::uuid`;

/** The trigger functions as this release makes them (JournalHistory replaces the two update ones, and its down puts these back). */
export const TRIGGER_FUNCTIONS = `
  CREATE OR REPLACE FUNCTION svc_journal_audit_updated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    UPDATE journal j SET action = c.action, actor_user_id = c.actor_user_id, actor_pseudonym = c.actor_pseudonym,
      target_id = c.target_id, payload = c.payload, names = svc_journal_names(c.actor_user_id, c.target_id, c.payload, j.body)
    FROM changed c WHERE j.id = c.id;
    RETURN NULL;
  END $$;
  CREATE OR REPLACE FUNCTION svc_journal_audit_deleted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    DELETE FROM journal j USING changed c WHERE j.id = c.id AND j.body IS NULL;
    UPDATE journal j SET action = NULL, actor_user_id = NULL, actor_pseudonym = NULL, target_id = NULL, payload = NULL
    FROM changed c WHERE j.id = c.id;
    RETURN NULL;
  END $$;
  CREATE OR REPLACE FUNCTION svc_journal_event_updated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    UPDATE journal j SET body = c.body, names = svc_journal_names(j.actor_user_id, j.target_id, j.payload, c.body)
    FROM changed c WHERE j.id = ${EVENT_KEY} AND j.body IS NOT NULL;
    RETURN NULL;
  END $$;
  CREATE OR REPLACE FUNCTION svc_journal_event_deleted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    DELETE FROM journal j USING changed c WHERE j.id = ${EVENT_KEY} AND j.action IS NULL;
    UPDATE journal j SET body = NULL, trace_context = NULL FROM changed c WHERE j.id = ${EVENT_KEY} AND j.body IS NOT NULL;
    RETURN NULL;
  END $$;`;
