import type { QueryRunner } from 'typeorm';
import { MENTION_FUNCTIONS, MENTION_INDEXES } from './1765100000000-erasure';
import { dropIndex, restoreIndex } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * Drops the first mention indexes (audit_entries_mentions, outbox_events_mentions) and their
 * functions, which MentionNames1765800000000 replaced: since release 1.0.0 no query names them, yet
 * every audit entry and event still paid for their entries, a walk of its whole document and the
 * GIN entries' WAL (docs/design/write-path.md).
 *
 * Marked expand, though it removes: what it removes is named only by release 0.0.0, which may not
 * run beside 1.1.0 anyway (expandIn('1.1.0') lets 1.0.0 run after it, and 1.0.0 never names them).
 * So rolling back to 1.0.0 needs nothing restored. The indexes go concurrently, outside a
 * transaction: writes go on meanwhile. The down builds them again (concurrently outside a
 * transaction), for a return to a database that release 0.0.0 could run on.
 */
export class OldMentionsDropped1766700000000 implements ReleasedMigration {
  name = 'OldMentionsDropped1766700000000';
  readonly release = expandIn('1.1.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    for (const { name } of MENTION_INDEXES) await dropIndex(q, name);
    await q.query('DROP FUNCTION IF EXISTS svc_audit_mentions(uuid, text, jsonb), svc_mentions(jsonb)');
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of MENTION_FUNCTIONS) await q.query(sql);
    for (const index of MENTION_INDEXES) await restoreIndex(q, index);
  }
}
