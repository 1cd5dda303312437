import type { MigrationInterface, QueryRunner } from 'typeorm';
import { lockedStatement } from './online';

/**
 * What an API key may do and until when (docs/concepts/tenancy.md, Scopes and expiry). Existing
 * keys keep full control and never expire: the default is both scopes, and a null expiry. A
 * constant default and a nullable column rewrite nothing on PostgreSQL 11+.
 *
 * Online (docs/operations.md, Schema changes): a catalog change, made with a short lock_timeout and
 * tried again when a long transaction holds the table (`transaction = false`, lockedStatement).
 * The builds before it never name the columns, and the keys they make get full control without
 * expiry, as before: every release may run after it.
 */
export class ApiKeyScopes1765300000000 implements MigrationInterface {
  name = 'ApiKeyScopes1765300000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedStatement(
      q,
      `ALTER TABLE api_keys
         ADD COLUMN IF NOT EXISTS scopes text[] NOT NULL DEFAULT '{read,write}',
         ADD COLUMN IF NOT EXISTS expires_at timestamptz(3)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await lockedStatement(q, `ALTER TABLE api_keys DROP COLUMN IF EXISTS scopes, DROP COLUMN IF EXISTS expires_at`);
  }
}
