WITH lookup AS (SELECT g.id, g.game_id AS "gameId", g.kind, g.name, g.visibility, g.metadata,
  g.default_role_id AS "defaultRoleId", g.passcode_hash AS "passcodeHash", g.parent_group_id AS "parentGroupId",
  g.tags, g.max_members AS "maxMembers", g.owner_external_id AS "ownerUserId", g.owner_user_id AS "ownerSvcUserId",
  CASE WHEN g.owner_user_id = u.user_id THEN (g.active_member_count + coalesce((SELECT sum(d.delta)::int FROM group_member_count_deltas d WHERE d.group_id = g.id), 0)) END AS "memberCount", g.created_at AS "createdAt", g.updated_at AS "updatedAt",
  g.soft_deleted_at AS "softDeletedAt", u.user_id AS "svcUserId", CASE WHEN EXISTS (SELECT 1 FROM game_bans b WHERE b.game_id = g.game_id AND b.user_id = u.user_id
                       AND (b.expires_at IS NULL OR b.expires_at > now())) THEN 'game'
        WHEN EXISTS (SELECT 1 FROM members mb WHERE mb.group_id = g.id AND mb.user_id = u.user_id AND mb.status = 'banned'
                       AND (mb.banned_until IS NULL OR mb.banned_until > now())) THEN 'group'
   END AS "banScope",
         (SELECT CASE WHEN x.exclusive OR g.max_members IS NOT NULL
                 THEN svc_admission(g.id, g.game_id, u.user_id, g.max_members, g.kind, x.exclusive) END
           FROM (SELECT coalesce((SELECT gm.config #> '{groups,exclusiveKinds}' ? g.kind FROM games gm WHERE gm.id = g.game_id), false)
                        AS exclusive) x) AS refusal
       FROM groups g
       LEFT JOIN user_identities u ON u.game_id = g.game_id AND svc_external_key(u.external_id) = svc_external_key($3) AND u.external_id = $3
       WHERE g.id = $1 AND g.game_id = $2), fresh AS (
       INSERT INTO members AS m (id, group_id, user_id, external_user_id, status)
       SELECT $5, l.id, l."svcUserId", $6, 'active' FROM lookup l
       WHERE l."svcUserId" IS NOT NULL AND l."softDeletedAt" IS NULL AND l."banScope" IS NULL AND l.refusal IS NULL AND l.visibility = 'public' AND (l."passcodeHash" IS NULL OR l."passcodeHash" = $4) AND NOT EXISTS (SELECT 1 FROM members m JOIN lookup l ON m.group_id = l.id AND m.user_id = l."svcUserId")
       RETURNING m.id, m.group_id AS "groupId", m.user_id AS "svcUserId", m.external_user_id AS "userId",
  m.status, m.metadata, m.notes_public AS "notesPublic", m.notes_private AS "notesPrivate",
  m.joined_at AS "joinedAt", m.left_at AS "leftAt", m.banned_until AS "bannedUntil",
  m.timed_out_until AS "timedOutUntil", '[]'::jsonb AS "roleGrants", EXISTS (SELECT 1 FROM join_requests r WHERE r.group_id = m.group_id AND r.user_id = m.user_id AND r.status = 'pending')
           AS "joinRequestPending"),
     reused AS (
       UPDATE members AS m SET status = 'active', left_at = NULL, banned_until = NULL
       FROM lookup l WHERE m.group_id = l.id AND m.user_id = l."svcUserId" AND l."svcUserId" IS NOT NULL AND l."softDeletedAt" IS NULL AND l."banScope" IS NULL AND l.refusal IS NULL AND l.visibility = 'public' AND (l."passcodeHash" IS NULL OR l."passcodeHash" = $4) AND (m.status IN ('left', 'kicked', 'invited') OR (m.status = 'banned' AND m.banned_until IS NOT NULL AND m.banned_until <= now()))
       RETURNING m.id, m.group_id AS "groupId", m.user_id AS "svcUserId", m.external_user_id AS "userId",
  m.status, m.metadata, m.notes_public AS "notesPublic", m.notes_private AS "notesPrivate",
  m.joined_at AS "joinedAt", m.left_at AS "leftAt", m.banned_until AS "bannedUntil",
  m.timed_out_until AS "timedOutUntil",
  coalesce((SELECT jsonb_agg(jsonb_build_object('roleId', a.role_id, 'expiresAt', (date_part('epoch', a.expires_at) * 1000)::int8) ORDER BY a.created_at, a.role_id)
            FROM (SELECT mr.role_id, mr.created_at, mr.expires_at FROM member_roles mr WHERE mr.member_id = m.id OFFSET 0) a WHERE true AND (a.expires_at IS NULL OR a.expires_at > now())), '[]') AS "roleGrants", EXISTS (SELECT 1 FROM join_requests r WHERE r.group_id = m.group_id AND r.user_id = m.user_id AND r.status = 'pending')
           AS "joinRequestPending"),
     alongside AS (SELECT * FROM fresh UNION ALL SELECT * FROM reused)
           SELECT l.*, to_jsonb(w) AS alongside FROM lookup l LEFT JOIN alongside w ON true