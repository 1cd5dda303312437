import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Keeps the groups' lock keys apart from the service's other advisory locks (constants). */
const GROUP_LOCK_SEED = 7_310_422_101;

/**
 * Writes to the members of one group side by side. memberCount without a write on the group's
 * row: the trigger on members appends +1 / -1 to group_member_count_deltas instead of updating
 * groups.active_member_count, so joins and leaves of one group no longer queue on that row (a
 * hot group's writers ran one at a time). A group's count is its folded counter plus its
 * unfolded deltas, read in the same snapshot: exact at every moment. The folder
 * (src/groups/member-count-folder.ts) moves deltas into the counter, each batch in one
 * statement, so the sum stays short.
 */
export class MemberCountDeltas1764600000000 implements MigrationInterface {
  name = 'MemberCountDeltas1764600000000';

  async up(q: QueryRunner): Promise<void> {
    // The lock of a group's writes, outside its row: a member write (join, leave, ban, role, ...)
    // holds it shared, a write to the group itself (settings, deletion, roles) exclusive. Shared
    // holders do not queue behind one another, and take no row lock: the row stays free for the
    // folder. An exclusive request waits for the shared ones in flight and holds new ones back.
    await q.query(`
      CREATE PROCEDURE svc_lock_group_members(g uuid) LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock_shared(hashtextextended(g::text, ${GROUP_LOCK_SEED})); END $$`);
    await q.query(`
      CREATE PROCEDURE svc_lock_group(g uuid) LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock(hashtextextended(g::text, ${GROUP_LOCK_SEED})); END $$`);
    // No foreign key: a delta is written while its group may be going (a purge's cascade); such
    // deltas are never written (see the trigger) or folded away with their group.
    await q.query(`CREATE TABLE group_member_count_deltas (group_id uuid NOT NULL, delta integer NOT NULL)`);
    await q.query(`CREATE INDEX group_member_count_deltas_group ON group_member_count_deltas (group_id)`);
    await q.query(`
      CREATE OR REPLACE FUNCTION members_active_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          IF NEW.status = 'active' THEN
            INSERT INTO group_member_count_deltas (group_id, delta) VALUES (NEW.group_id, 1);
          END IF;
        ELSIF TG_OP = 'DELETE' THEN
          -- A purged group's members go by its cascade, after the group: nothing is left to count.
          IF OLD.status = 'active' AND EXISTS (SELECT 1 FROM groups WHERE id = OLD.group_id) THEN
            INSERT INTO group_member_count_deltas (group_id, delta) VALUES (OLD.group_id, -1);
          END IF;
        ELSIF OLD.status IS DISTINCT FROM NEW.status THEN
          IF OLD.status = 'active' THEN
            INSERT INTO group_member_count_deltas (group_id, delta) VALUES (OLD.group_id, -1);
          ELSIF NEW.status = 'active' THEN
            INSERT INTO group_member_count_deltas (group_id, delta) VALUES (NEW.group_id, 1);
          END IF;
        END IF;
        RETURN NULL;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP PROCEDURE svc_lock_group_members(uuid)`);
    await q.query(`DROP PROCEDURE svc_lock_group(uuid)`);
    await q.query(`
      UPDATE groups g SET active_member_count = g.active_member_count + s.n
      FROM (SELECT group_id, sum(delta)::int AS n FROM group_member_count_deltas GROUP BY group_id) s
      WHERE g.id = s.group_id`);
    await q.query(`DROP TABLE group_member_count_deltas`);
    await q.query(`
      CREATE OR REPLACE FUNCTION members_active_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          IF NEW.status = 'active' THEN
            UPDATE groups SET active_member_count = active_member_count + 1 WHERE id = NEW.group_id;
          END IF;
        ELSIF TG_OP = 'DELETE' THEN
          IF OLD.status = 'active' THEN
            UPDATE groups SET active_member_count = active_member_count - 1 WHERE id = OLD.group_id;
          END IF;
        ELSIF OLD.status IS DISTINCT FROM NEW.status THEN
          IF OLD.status = 'active' THEN
            UPDATE groups SET active_member_count = active_member_count - 1 WHERE id = OLD.group_id;
          ELSIF NEW.status = 'active' THEN
            UPDATE groups SET active_member_count = active_member_count + 1 WHERE id = NEW.group_id;
          END IF;
        END IF;
        RETURN NULL;
      END $$`);
  }
}
