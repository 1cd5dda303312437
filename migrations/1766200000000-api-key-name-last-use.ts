import type { QueryRunner } from 'typeorm';
import { hasConstraint, lockedStatement } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * An API key's name, an operator's label for it (1-64 characters, or null), and when it was last
 * used (docs/concepts/admin.md, API key names and last use).
 *
 * Expand: two nullable columns without a default, a catalog change taken with a short lock_timeout
 * and tried again (migrations/online.ts). The length CHECK is added NOT VALID, then validated
 * apart: written with the column it would read every key under the lock that blocks their writes.
 * It is kept in the database as well as in the mint's validation so that no writer, whatever its
 * release, can store a name the key views and `key:list` would not show as one. The previous release
 * never names the columns: its keys have no name, and its instances record no use, so beside it a
 * key it serves looks less recently used than it is. Outside a transaction, each step can run again.
 */
export class ApiKeyNameLastUse1766200000000 implements ReleasedMigration {
  name = 'ApiKeyNameLastUse1766200000000';
  readonly release = expandIn('1.1.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedStatement(q, 'ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS name text, ADD COLUMN IF NOT EXISTS last_used_at timestamptz(3)');
    if (!(await hasConstraint(q, 'api_keys', NAME_CHECK))) {
      await lockedStatement(q, `ALTER TABLE api_keys ADD CONSTRAINT ${NAME_CHECK} CHECK (char_length(name) BETWEEN 1 AND 64) NOT VALID`);
    }
    await q.query(`ALTER TABLE api_keys VALIDATE CONSTRAINT ${NAME_CHECK}`);
  }

  /** The CHECK goes with its column. */
  async down(q: QueryRunner): Promise<void> {
    await lockedStatement(q, 'ALTER TABLE api_keys DROP COLUMN IF EXISTS last_used_at, DROP COLUMN IF EXISTS name');
  }
}

const NAME_CHECK = 'api_keys_name_length';
