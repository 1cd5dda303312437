import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What an API key may do and until when (docs/concepts/tenancy.md, Scopes and expiry). Existing
 * keys keep full control and never expire: the default is both scopes, and a null expiry. A
 * constant default and a nullable column rewrite nothing on PostgreSQL 11+.
 */
export class ApiKeyScopes1765300000000 implements MigrationInterface {
  name = 'ApiKeyScopes1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE api_keys
        ADD COLUMN scopes text[] NOT NULL DEFAULT '{read,write}',
        ADD COLUMN expires_at timestamptz(3)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_keys DROP COLUMN scopes, DROP COLUMN expires_at`);
  }
}
