import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The friend writes' advisory locks as a procedure: a CALL with its keys written in takes no
 * parameters, so it rides in the batch of the statement after it (src/db/sql.ts,
 * beforeNextStatement) instead of costing a round trip of its own. Keys are taken in the order
 * given, which the caller sorts, so two writers never wait on each other crosswise.
 */
export class LockKeysProcedure1765700000000 implements MigrationInterface {
  name = 'LockKeysProcedure1765700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE PROCEDURE svc_lock_keys(keys bigint[]) LANGUAGE plpgsql AS $$
      DECLARE k bigint;
      BEGIN FOREACH k IN ARRAY keys LOOP PERFORM pg_advisory_xact_lock(k); END LOOP; END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP PROCEDURE svc_lock_keys(bigint[])`);
  }
}
