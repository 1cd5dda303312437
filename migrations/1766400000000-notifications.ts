import type { QueryRunner } from 'typeorm';
import { lockedTransaction } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * A player's notifications (EXTENSIONS X9): one row per notification, written in the transaction of
 * the change that causes it, read newest first per player, marked read or dismissed (deleted) by
 * the player, and streamed in feed order. `user_id` and `actor_user_id` are internal ids (the views
 * name the external ones); an erasure moves an actor's pseudonym into `actor_pseudonym`, as the
 * audit log does. No foreign key on either: the sweeper and the erasure remove a player's rows.
 *
 * `era`, `xid` and `seq` order the stream as the feed is ordered (migration FeedEras): the era's
 * default is the feed's current one, which a restore's switch rewrites on both tables
 * (src/db/feed-era.ts). It is read under a share lock, so a switch running meanwhile either commits
 * first (its era is read here) or waits for this table to exist (and rewrites its default too).
 *
 * Indexes: the list (newest first), its unread part (which also serves the counts: `kind` rides
 * in it), the stream's tail and its replay for one player, and the actor (an erasure finds the rows
 * naming them by it).
 *
 * Expand: a new table that only this release reads and writes; the previous release runs beside
 * it and writes no notifications. The foreign key to games takes a lock that waits only for
 * writes to games (rare): under a short lock_timeout, tried again (lockedTransaction).
 */
export class Notifications1766400000000 implements ReleasedMigration {
  name = 'Notifications1766400000000';
  readonly release = expandIn('1.1.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await lockedTransaction(q, async () => {
      const [{ era }] = (await q.query('SELECT era FROM feed_state FOR SHARE')) as { era: number }[];
      await q.query(`
        CREATE TABLE IF NOT EXISTS notifications (
          id              uuid PRIMARY KEY,
          game_id         uuid NOT NULL REFERENCES games (id) ON DELETE CASCADE,
          user_id         uuid NOT NULL,
          kind            text NOT NULL CHECK (kind IN (${KINDS.map((k) => `'${k}'`).join(', ')})),
          group_id        uuid,
          actor_user_id   uuid,
          actor_pseudonym text,
          data            jsonb NOT NULL,
          created_at      timestamptz(3) NOT NULL DEFAULT now(),
          read_at         timestamptz(3),
          era             integer NOT NULL DEFAULT ${Number(era)},
          xid             xid8 NOT NULL DEFAULT pg_current_xact_id(),
          seq             bigint GENERATED ALWAYS AS IDENTITY,
          CONSTRAINT notifications_one_actor CHECK (actor_user_id IS NULL OR actor_pseudonym IS NULL)
        )`);
      await q.query(`CREATE INDEX IF NOT EXISTS notifications_list ON notifications (game_id, user_id, created_at DESC, id DESC)`);
      await q.query(
        `CREATE INDEX IF NOT EXISTS notifications_unread ON notifications (game_id, user_id, created_at DESC, id DESC) INCLUDE (kind) WHERE read_at IS NULL`,
      );
      await q.query(`CREATE INDEX IF NOT EXISTS notifications_tail ON notifications (era, xid, seq)`);
      await q.query(`CREATE INDEX IF NOT EXISTS notifications_replay ON notifications (game_id, user_id, era, xid, seq)`);
      await q.query(`CREATE INDEX IF NOT EXISTS notifications_actor ON notifications (actor_user_id) WHERE actor_user_id IS NOT NULL`);
    });
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS notifications');
  }
}

/**
 * The kinds as this migration knows them (src/notifications/notification-kinds.ts is the source's
 * list): a migration never imports the source, whose list may grow in later releases.
 */
const KINDS = [
  'invitation.received',
  'join_request.approved',
  'join_request.declined',
  'member.kicked',
  'member.banned',
  'member.roles_changed',
  'group.ownership_received',
  'friend.request.received',
  'friend.request.accepted',
] as const;
