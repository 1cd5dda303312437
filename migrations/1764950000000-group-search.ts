import type { MigrationInterface, QueryRunner } from 'typeorm';
import { backfillInBatches, createIndexConcurrently, lockedStatement, lockedTransaction, relationExists, setNotNull, sqlState, type IndexDefinition } from './online';

/** What the search needs from PostgreSQL's contrib modules; all three are trusted since PostgreSQL 13. */
const EXTENSIONS = ['pg_trgm', 'unaccent', 'btree_gin'] as const;

/** Groups a player may find (EXTENSIONS X5): never soft-deleted, never secret. Every search index is partial on it. */
const FINDABLE = `soft_deleted_at IS NULL AND visibility <> 'secret'`;

/**
 * Finding a group (EXTENSIONS X5, GET /v1/groups/search).
 *
 * Names are matched on `search_name`: the name lowercased and without accents (`KNÍGHTS` ->
 * `knights`), a plain column kept by a trigger on every write of `name`. Not an expression index
 * over an IMMUTABLE wrapper of unaccent(): unaccent() is only STABLE because its result depends
 * on a rules file that can change; a wrapper that claimed otherwise would let the index silently
 * disagree with the queries after such a change, whereas a column says what was computed and is
 * redone by one UPDATE. A column also survives a dump and restore without running any function
 * (an expression index is rebuilt with an empty search_path), and it is the key of the name sort
 * and of its cursor. Its collation is "C": the A-Z order and the prefix match are byte order on
 * the normalized text, the same on every server whatever its locale.
 *
 * Indexes, all partial on findable groups and led by game_id (btree_gin lets a GIN index carry
 * it): trigrams of search_name (q: the words as written, and the words a misspelt one is close
 * to, found in group_search_words), tags (tags=), the folded
 * member counter (sort members, open, membersAtLeast/AtMost), search_name (sort name, a prefix),
 * and id (the relevance sort's order within a rank). The newest sort uses groups_game_order.
 *
 * Online (docs/operations.md, Schema changes): the builds before it keep creating and renaming
 * groups while it runs, without search_name. Outside a transaction (`transaction = false`), in
 * steps that can each run again, each lock waited for a few seconds at most and tried again:
 * 1. search_name added nullable (a catalog change); group_search_words and its index made (new).
 * 2. The trigger groups_search_name, which from then on fills search_name and the words on every
 *    insert and rename, whoever sends it.
 * 3. The groups written before, in batches of primary-key range (each a short transaction): their
 *    search_name, and its words.
 * 4. NOT NULL by a CHECK added NOT VALID and validated, then SET NOT NULL without a scan; the CHECK
 *    is dropped again.
 * 5. The search indexes, built CONCURRENTLY.
 * The schema is the one the first form (all in one transaction, plain builds) left; the trigger is
 * part of it. Every release may run after it: the trigger serves the builds before it too.
 */
export class GroupSearch1764950000000 implements MigrationInterface {
  name = 'GroupSearch1764950000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    const present = new Set(
      ((await q.query(`SELECT extname FROM pg_extension WHERE extname = ANY($1)`, [EXTENSIONS])) as { extname: string }[]).map((r) => r.extname),
    );
    const missing = EXTENSIONS.filter((e) => !present.has(e));
    for (const ext of missing) {
      try {
        await q.query(`CREATE EXTENSION IF NOT EXISTS ${ext}`);
      } catch (err) {
        const code = sqlState(err);
        const [{ db, role }] = (await q.query('SELECT current_database() AS db, current_user AS role')) as { db: string; role: string }[];
        const why =
          code === '42501'
            ? `the role "${role}" may not create it (trusted extensions need the CREATE privilege on the database, which its owner has)`
            : code === '58P01' || code === '0A000'
              ? 'the PostgreSQL server lacks its files (on Debian and Ubuntu they come with the postgresql-<version> package; some images strip the contrib modules)'
              : String((err as Error).message ?? err);
        throw new Error(
          `group search needs the PostgreSQL extension ${ext}, and creating it failed: ${why}. ` +
            `Have a superuser run, in database "${db}": ${missing.map((m) => `CREATE EXTENSION IF NOT EXISTS ${m};`).join(' ')} then start the service again.`,
        );
      }
    }
    // Qualified by the extension's own schema, so the function works whatever the caller's search_path.
    const [{ schema }] = (await q.query(
      `SELECT quote_ident(n.nspname) AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent'`,
    )) as { schema: string }[];
    // STABLE, as unaccent() is: see above.
    await q.query(`
      CREATE OR REPLACE FUNCTION svc_search_text(t text) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE
      AS $$ SELECT lower(${schema}.unaccent('${schema}.unaccent'::regdictionary, t)) $$`);
    await lockedStatement(q, `ALTER TABLE groups ADD COLUMN IF NOT EXISTS search_name text COLLATE "C"`);
    // The words of a game's names (3 characters or more, normalized), where a misspelt word of a
    // search finds the words it is close to (pg_trgm word similarity) before the names holding
    // them are looked for: a dictionary of tens of thousands of words instead of the names
    // themselves, whose every trigram-close candidate would have to be read and compared. Words
    // are never removed: one left by a renamed group only adds a candidate that finds no name.
    await lockedTransaction(q, async () => {
      if (await relationExists(q, 'group_search_words')) return;
      await q.query(`
        CREATE TABLE group_search_words (
          game_id uuid NOT NULL REFERENCES games(id) ON DELETE CASCADE,
          word    text COLLATE "C" NOT NULL,
          PRIMARY KEY (game_id, word)
        )`);
      await q.query(`CREATE INDEX group_search_words_trgm ON group_search_words USING gin (game_id, word gin_trgm_ops)`);
    });
    await q.query(`
      CREATE OR REPLACE FUNCTION svc_search_words(t text) RETURNS SETOF text LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT DISTINCT w FROM regexp_split_to_table(t, '[[:space:][:punct:]]+') w WHERE length(w) >= 3 $$`);
    // Kept in the statement that writes the name. (A bulk load with session_replication_role =
    // replica skips triggers: it must write search_name and the words itself, as bench/lib/seed.mjs does.)
    await q.query(`
      CREATE OR REPLACE FUNCTION groups_search_name() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.search_name := svc_search_text(NEW.name);
        INSERT INTO group_search_words (game_id, word) SELECT NEW.game_id, w FROM svc_search_words(NEW.search_name) w ON CONFLICT DO NOTHING;
        RETURN NEW;
      END $$`);
    // Its lock waits for the group writes in flight: every group the backfill starts after exists
    // by then, and every later insert or rename goes through the trigger.
    await lockedStatement(q, `CREATE OR REPLACE TRIGGER groups_search_name BEFORE INSERT OR UPDATE OF name ON groups FOR EACH ROW EXECUTE FUNCTION groups_search_name()`);
    // Not an UPDATE OF name: the trigger stays out of it. Words in a fixed order, so that a batch
    // and a trigger adding the same words wait on each other in one order rather than deadlock.
    await backfillInBatches(q, {
      batch: `
        WITH batch AS (SELECT id FROM groups WHERE $1::uuid IS NULL OR id > $1::uuid ORDER BY id LIMIT $2),
             named AS (UPDATE groups g SET search_name = svc_search_text(g.name) FROM batch b
                       WHERE g.id = b.id AND g.search_name IS DISTINCT FROM svc_search_text(g.name)
                       RETURNING g.game_id, g.search_name),
             words AS (INSERT INTO group_search_words (game_id, word)
                       SELECT DISTINCT n.game_id, w FROM named n, svc_search_words(n.search_name) w ORDER BY 1, 2
                       ON CONFLICT DO NOTHING RETURNING 1)
        SELECT (SELECT id FROM batch ORDER BY id DESC LIMIT 1) AS last, (SELECT count(*) FROM words) AS words`,
    });
    await setNotNull(q, 'groups', 'search_name');
    for (const index of SEARCH_INDEXES) await createIndexConcurrently(q, index);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const ix of ['groups_search_trgm', 'groups_search_tags', 'groups_search_members', 'groups_search_name', 'groups_search_id']) {
      await q.query(`DROP INDEX ${ix}`);
    }
    await q.query(`DROP TRIGGER groups_search_name ON groups`);
    await q.query(`DROP FUNCTION groups_search_name()`);
    await q.query(`DROP TABLE group_search_words`);
    await q.query(`DROP FUNCTION svc_search_words(text)`);
    await q.query(`ALTER TABLE groups DROP COLUMN search_name`);
    await q.query(`DROP FUNCTION svc_search_text(text)`);
    // The extensions stay: other objects of the database may use them.
  }
}

const SEARCH_INDEXES: readonly IndexDefinition[] = [
  { name: 'groups_search_trgm', table: 'groups', definition: `USING gin (game_id, search_name gin_trgm_ops) WHERE ${FINDABLE}` },
  { name: 'groups_search_tags', table: 'groups', definition: `USING gin (game_id, tags) WHERE ${FINDABLE}` },
  { name: 'groups_search_members', table: 'groups', definition: `(game_id, active_member_count DESC, id DESC) WHERE ${FINDABLE}` },
  { name: 'groups_search_name', table: 'groups', definition: `(game_id, search_name, id) WHERE ${FINDABLE}` },
  { name: 'groups_search_id', table: 'groups', definition: `(game_id, id) WHERE ${FINDABLE}` },
];
