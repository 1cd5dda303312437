import type { QueryRunner } from 'typeorm';
import { dropIndex, restoreIndex, type IndexDefinition } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * Drops two of the notification indexes Notifications1766400000000 built, which every notification
 * written paid an entry for while few reads need them (docs/design/write-path.md):
 * - notifications_unread (the list's unread part): an unread page and the counts walk the
 *   player's range of notifications_list instead, at most the kept 1,000 rows, and the counts are
 *   cached per player; a mark read no longer touches an index (read_at is in none), so it is HOT.
 * - notifications_replay (one player's notifications in feed order): a stream's start and its
 *   resume read the player's range of notifications_list and order it, once per stream opened.
 *
 * Marked expand, though it removes: both came with release 1.1.0 and no release before it names
 * them, so 1.0.0 may still run after it. The indexes go concurrently, outside a transaction:
 * writes go on meanwhile. The down builds them again.
 */
export class NotificationIndexesDropped1766900000000 implements ReleasedMigration {
  name = 'NotificationIndexesDropped1766900000000';
  readonly release = expandIn('1.1.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    for (const { name } of DROPPED) await dropIndex(q, name);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const index of DROPPED) await restoreIndex(q, index);
  }
}

const DROPPED: readonly IndexDefinition[] = [
  {
    name: 'notifications_unread',
    table: 'notifications',
    definition: '(game_id, user_id, created_at DESC, id DESC) INCLUDE (kind) WHERE read_at IS NULL',
  },
  { name: 'notifications_replay', table: 'notifications', definition: '(game_id, user_id, era, xid, seq)' },
];
