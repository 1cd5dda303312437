import type { QueryRunner } from 'typeorm';
import { expandIn, type ReleasedMigration } from './release';

/** The member counter's trigger as MemberCountDeltas1764600000000 left it, with `absorbed` before each +1 of an insert. */
const countTrigger = (absorbed: string) => `
  CREATE OR REPLACE FUNCTION members_active_count() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      IF NEW.status = 'active' THEN${absorbed}
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
  END $$`;

const ABSORBED = `
        IF current_setting('svc.counted_creator', true) = NEW.group_id::text THEN
          PERFORM set_config('svc.counted_creator', '', true);
          RETURN NULL;
        END IF;`;

/**
 * A group created with its creator is inserted with its member counter at 1 already
 * (`svc_count_creator`, in the insert's statement), and the creator's membership, inserted in
 * the same statement, writes no delta. Before, that delta was folded into the new group's row a
 * second later: an update of the row that is never HOT (the counter is in the member sort's index),
 * so every index of groups took a second entry for each group created, and the fold was 13-16 %
 * of the bench's group create statement time.
 *
 * `svc_count_creator(g)` returns 1 and notes `g` for the rest of the transaction; the trigger lets
 * the next active member inserted into `g` go uncounted (the creator, counted by that 1) and
 * forgets the note. Only a release that calls it sets the note: the inserts of the release before
 * this one count as they did, so it may run beside this schema. Functions only: no lock on a table.
 */
export class CreatorCounted1768800000000 implements ReleasedMigration {
  name = 'CreatorCounted1768800000000';
  readonly release = expandIn('1.13.0');

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION svc_count_creator(g uuid) RETURNS integer LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM set_config('svc.counted_creator', g::text, true);
        RETURN 1;
      END $$`);
    await q.query(countTrigger(ABSORBED));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(countTrigger(''));
    await q.query(`DROP FUNCTION svc_count_creator(uuid)`);
  }
}
