import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * External user ids have no length cap (SPEC §8), but a b-tree entry must fit in a third of a
 * page: the per-game uniqueness of external ids moves to an index on their SHA-256.
 */
export class LongExternalIds1763950000000 implements MigrationInterface {
  name = 'LongExternalIds1763950000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE user_identities DROP CONSTRAINT user_identities_pkey');
    await q.query('ALTER TABLE user_identities DROP CONSTRAINT user_identities_user_id_game_id_key');
    await q.query('ALTER TABLE user_identities ADD PRIMARY KEY (user_id, game_id)');
    // convert_to is only STABLE in general; with a database encoding fixed at creation it cannot
    // change under an index, so the wrapper may be declared IMMUTABLE.
    await q.query(`
      CREATE FUNCTION svc_external_key(text) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      AS $$ SELECT sha256(convert_to($1, 'UTF8')) $$`);
    await q.query(`CREATE UNIQUE INDEX user_identities_external ON user_identities (game_id, svc_external_key(external_id))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX user_identities_external');
    await q.query('DROP FUNCTION svc_external_key');
    await q.query('ALTER TABLE user_identities DROP CONSTRAINT user_identities_pkey');
    await q.query('ALTER TABLE user_identities ADD CONSTRAINT user_identities_user_id_game_id_key UNIQUE (user_id, game_id)');
    await q.query('ALTER TABLE user_identities ADD PRIMARY KEY (game_id, external_id)');
  }
}
