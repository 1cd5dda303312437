import type { QueryRunner } from 'typeorm';
import { expandIn, type ReleasedMigration } from './release';

/**
 * Keys the instances of one database share, made on first use (src/db/replica/consistency-key.ts):
 * the one that seals consistency tokens, so that a token tells a game nothing of the database's
 * other games and still opens on every instance.
 *
 * Expand only: a new table that the previous release neither reads nor writes, so it runs while
 * that release still serves, and that release may run after it (nothing of it changes).
 */
export class ServiceKeys1765900000000 implements ReleasedMigration {
  name = 'ServiceKeys1765900000000';
  readonly release = expandIn('1.0.0');

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS service_keys (
        name        text PRIMARY KEY,
        secret      bytea NOT NULL CHECK (octet_length(secret) = 32),
        created_at  timestamptz(3) NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS service_keys');
  }
}
