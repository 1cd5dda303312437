WITH lookup AS (SELECT g.id, g.game_id AS "gameId", g.kind, g.name, g.visibility, g.metadata,
  g.default_role_id AS "defaultRoleId", g.passcode_hash AS "passcodeHash", g.parent_group_id AS "parentGroupId",
  g.tags, g.max_members AS "maxMembers", g.owner_external_id AS "ownerUserId", g.owner_user_id AS "ownerSvcUserId",
  CASE WHEN g.owner_user_id = u.user_id THEN (g.active_member_count + coalesce((SELECT sum(d.delta)::int FROM group_member_count_deltas d WHERE d.group_id = g.id), 0)) END AS "memberCount", g.created_at AS "createdAt", g.updated_at AS "updatedAt",
  g.soft_deleted_at AS "softDeletedAt", u.user_id AS "svcUserId", NULL AS "banScope",
         NULL AS refusal
       FROM groups g
       LEFT JOIN user_identities u ON u.game_id = g.game_id AND svc_external_key(u.external_id) = svc_external_key($3) AND u.external_id = $3
       WHERE g.id = $1 AND g.game_id = $2), alongside AS (
       UPDATE members m SET status = $4, left_at = now()
       FROM lookup l WHERE m.group_id = l.id AND m.user_id = l."svcUserId" AND m.status = 'active'
       RETURNING m.id, m.group_id AS "groupId", m.user_id AS "svcUserId", m.external_user_id AS "userId",
  m.status, m.metadata, m.notes_public AS "notesPublic", m.notes_private AS "notesPrivate",
  m.joined_at AS "joinedAt", m.left_at AS "leftAt", m.banned_until AS "bannedUntil",
  m.timed_out_until AS "timedOutUntil",
  coalesce((SELECT jsonb_agg(jsonb_build_object('roleId', a.role_id, 'expiresAt', (date_part('epoch', a.expires_at) * 1000)::int8) ORDER BY a.created_at, a.role_id)
            FROM (SELECT mr.role_id, mr.created_at, mr.expires_at FROM member_roles mr WHERE mr.member_id = m.id OFFSET 0) a WHERE true AND (a.expires_at IS NULL OR a.expires_at > now())), '[]') AS "roleGrants")
           SELECT l.*, to_jsonb(w) AS alongside FROM lookup l LEFT JOIN alongside w ON true