import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Keep the admission locks' keys apart from the groups' own (MemberCountDeltas) and each other. */
const CAP_LOCK_SEED = 7_310_422_201;
const KIND_LOCK_SEED = 7_310_422_202;

/**
 * Admissions that respect a group's member cap and a game's exclusive kinds (EXTENSIONS X5), settled
 * in the database. svc_admission answers why a user may not become an active member of a group (a
 * refusal code, or null), serialising what its answer depends on: the admissions of one user into
 * groups of one exclusive kind, and the admissions into one capped group. It takes those locks, then
 * reads; being VOLATILE, each of its reads takes a snapshot of its own, after the lock is held, so it
 * sees every admission that committed before it got the lock, and those after wait for its commit.
 * Plain groups never call it (see admissionSql): their joins stay side by side.
 */
export class Admissions1765000000000 implements MigrationInterface {
  name = 'Admissions1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION svc_admission(g uuid, game uuid, u uuid, cap integer, k text, exclusive boolean)
      RETURNS text LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        active integer;
      BEGIN
        -- Active already: not an admission (the activation answers already_member).
        IF u IS NOT NULL AND EXISTS (SELECT 1 FROM members WHERE group_id = g AND user_id = u AND status = 'active') THEN
          RETURN NULL;
        END IF;
        IF exclusive AND u IS NOT NULL THEN
          PERFORM pg_advisory_xact_lock(hashtextextended(game::text || '/' || u::text || '/' || k, ${KIND_LOCK_SEED}));
          IF EXISTS (
            SELECT 1 FROM members m JOIN groups o ON o.id = m.group_id
            WHERE m.user_id = u AND m.status = 'active' AND o.game_id = game AND o.kind = k AND o.id <> g AND o.soft_deleted_at IS NULL
          ) THEN
            RETURN 'already_in_group_of_kind';
          END IF;
        END IF;
        IF cap IS NOT NULL THEN
          PERFORM pg_advisory_xact_lock(hashtextextended(g::text, ${CAP_LOCK_SEED}));
          SELECT o.active_member_count + coalesce((SELECT sum(d.delta)::int FROM group_member_count_deltas d WHERE d.group_id = g), 0)
            INTO active FROM groups o WHERE o.id = g;
          IF active >= cap THEN
            RETURN 'group_full';
          END IF;
        END IF;
        RETURN NULL;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION svc_admission(uuid, uuid, uuid, integer, text, boolean)');
  }
}
