import type { MigrationInterface, QueryRunner } from 'typeorm';

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
 */
export class GroupSearch1764950000000 implements MigrationInterface {
  name = 'GroupSearch1764950000000';

  async up(q: QueryRunner): Promise<void> {
    const present = new Set(
      ((await q.query(`SELECT extname FROM pg_extension WHERE extname = ANY($1)`, [EXTENSIONS])) as { extname: string }[]).map((r) => r.extname),
    );
    const missing = EXTENSIONS.filter((e) => !present.has(e));
    if (missing.length) {
      // A failed CREATE aborts the migration's transaction: savepoints keep the first refusal readable.
      for (const ext of missing) {
        await q.query('SAVEPOINT svc_extension');
        try {
          await q.query(`CREATE EXTENSION IF NOT EXISTS ${ext}`);
        } catch (err) {
          await q.query('ROLLBACK TO SAVEPOINT svc_extension');
          const e = err as { message?: string; code?: string; driverError?: { code?: string } };
          const code = e.code ?? e.driverError?.code;
          const [{ db, role }] = (await q.query('SELECT current_database() AS db, current_user AS role')) as { db: string; role: string }[];
          const why =
            code === '42501'
              ? `the role "${role}" may not create it (trusted extensions need the CREATE privilege on the database, which its owner has)`
              : code === '58P01' || code === '0A000'
                ? 'the PostgreSQL server lacks its files (on Debian and Ubuntu they come with the postgresql-<version> package; some images strip the contrib modules)'
                : String(e.message ?? err);
          throw new Error(
            `group search needs the PostgreSQL extension ${ext}, and creating it failed: ${why}. ` +
              `Have a superuser run, in database "${db}": ${missing.map((m) => `CREATE EXTENSION IF NOT EXISTS ${m};`).join(' ')} then start the service again.`,
          );
        }
        await q.query('RELEASE SAVEPOINT svc_extension');
      }
    }
    // Qualified by the extension's own schema, so the function works whatever the caller's search_path.
    const [{ schema }] = (await q.query(
      `SELECT quote_ident(n.nspname) AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent'`,
    )) as { schema: string }[];
    // STABLE, as unaccent() is: see above.
    await q.query(`
      CREATE FUNCTION svc_search_text(t text) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE
      AS $$ SELECT lower(${schema}.unaccent('${schema}.unaccent'::regdictionary, t)) $$`);
    await q.query(`ALTER TABLE groups ADD COLUMN search_name text COLLATE "C"`);
    await q.query(`UPDATE groups SET search_name = svc_search_text(name)`);
    await q.query(`ALTER TABLE groups ALTER COLUMN search_name SET NOT NULL`);
    // The words of a game's names (3 characters or more, normalized), where a misspelt word of a
    // search finds the words it is close to (pg_trgm word similarity) before the names holding
    // them are looked for: a dictionary of tens of thousands of words instead of the names
    // themselves, whose every trigram-close candidate would have to be read and compared. Words
    // are never removed: one left by a renamed group only adds a candidate that finds no name.
    await q.query(`
      CREATE TABLE group_search_words (
        game_id uuid NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        word    text COLLATE "C" NOT NULL,
        PRIMARY KEY (game_id, word)
      )`);
    await q.query(`CREATE INDEX group_search_words_trgm ON group_search_words USING gin (game_id, word gin_trgm_ops)`);
    await q.query(`
      CREATE FUNCTION svc_search_words(t text) RETURNS SETOF text LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT DISTINCT w FROM regexp_split_to_table(t, '[[:space:][:punct:]]+') w WHERE length(w) >= 3 $$`);
    await q.query(`INSERT INTO group_search_words (game_id, word) SELECT DISTINCT g.game_id, w FROM groups g, svc_search_words(g.search_name) w`);
    // Kept in the statement that writes the name. (A bulk load with session_replication_role =
    // replica skips triggers: it must write search_name and the words itself, as bench/lib/seed.mjs does.)
    await q.query(`
      CREATE FUNCTION groups_search_name() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.search_name := svc_search_text(NEW.name);
        INSERT INTO group_search_words (game_id, word) SELECT NEW.game_id, w FROM svc_search_words(NEW.search_name) w ON CONFLICT DO NOTHING;
        RETURN NEW;
      END $$`);
    await q.query(`CREATE TRIGGER groups_search_name BEFORE INSERT OR UPDATE OF name ON groups FOR EACH ROW EXECUTE FUNCTION groups_search_name()`);

    await q.query(`CREATE INDEX groups_search_trgm ON groups USING gin (game_id, search_name gin_trgm_ops) WHERE ${FINDABLE}`);
    await q.query(`CREATE INDEX groups_search_tags ON groups USING gin (game_id, tags) WHERE ${FINDABLE}`);
    await q.query(`CREATE INDEX groups_search_members ON groups (game_id, active_member_count DESC, id DESC) WHERE ${FINDABLE}`);
    await q.query(`CREATE INDEX groups_search_name ON groups (game_id, search_name, id) WHERE ${FINDABLE}`);
    await q.query(`CREATE INDEX groups_search_id ON groups (game_id, id) WHERE ${FINDABLE}`);
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
