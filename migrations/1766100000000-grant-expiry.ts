import type { QueryRunner } from 'typeorm';
import { createIndexConcurrently, dropIndex, lockedStatement, type IndexDefinition } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * Grants that expire (docs/concepts/permissions.md, Grants that expire): a role assignment and a
 * member override may carry `expires_at`; null, what every existing row gets, is permanent.
 *
 * Expand: two nullable columns without a default (a catalog change, taken with a short
 * lock_timeout and retried, see migrations/online.ts) and two partial indexes, built
 * concurrently, through which the expiry sweeper finds what is due. The previous release never
 * names the columns: beside it, a grant it writes is permanent, and a grant with an expiry counts
 * for it as permanent until the sweeper of this release removes it (within a minute of its expiry).
 */
export class GrantExpiry1766100000000 implements ReleasedMigration {
  name = 'GrantExpiry1766100000000';
  readonly release = expandIn('1.1.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedStatement(q, 'ALTER TABLE member_roles ADD COLUMN IF NOT EXISTS expires_at timestamptz(3)');
    await lockedStatement(q, 'ALTER TABLE member_permission_overrides ADD COLUMN IF NOT EXISTS expires_at timestamptz(3)');
    for (const index of EXPIRY_INDEXES) await createIndexConcurrently(q, index);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { name } of EXPIRY_INDEXES) await dropIndex(q, name);
    await lockedStatement(q, 'ALTER TABLE member_permission_overrides DROP COLUMN IF EXISTS expires_at');
    await lockedStatement(q, 'ALTER TABLE member_roles DROP COLUMN IF EXISTS expires_at');
  }
}

/** Only the grants that expire are indexed: the sweeper's `expires_at <= now()` reads no permanent one. */
const EXPIRY_INDEXES: IndexDefinition[] = [
  { name: 'member_roles_expiry', table: 'member_roles', definition: '(expires_at) WHERE expires_at IS NOT NULL' },
  { name: 'member_permission_overrides_expiry', table: 'member_permission_overrides', definition: '(expires_at) WHERE expires_at IS NOT NULL' },
];
