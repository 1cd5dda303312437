import type { QueryRunner } from 'typeorm';
import { lockedStatement } from './online';
import { expandIn, type ReleasedMigration } from './release';

/**
 * The writers of step 5c (docs/design/write-path.md): from release 1.6.0 a change's journal row
 * leaves out of its `names` the service's own words (the field names of its documents, its event
 * types and actions, its statuses and other fixed values, listed below), which nearly every row
 * holds and no search needs, and which cost most of the index of names. Timestamps stay.
 *
 * This migration lists the words in journal_unindexed_names (UnindexedNames1767600000000, empty
 * until now) before any writer leaves them out: a writer reads the list when it starts and leaves
 * out exactly what it lists, and an erasure or an export of release 1.5.0 and later asks the list
 * whether a player's id is one of them before trusting the index (src/users/unindexed-names.ts).
 * Release 1.4.0's erasure and export trust the index for every id, so this expand migration of
 * 1.6.0 lets 1.5.0 and later run beside it and stops 1.4.0.
 *
 * `from_seq` is the journal's position when the words were listed: only rows after it may lack
 * them. The down gives those rows their whole names again (as svc_journal_names computes them from
 * the stored documents) before it removes the words, so that no reader of any release trusts the
 * index for a row that lacks a word it no longer lists. Run it once no 1.6.0 instance writes.
 *
 * The list is this migration's, not the build's: a later release that leaves out more words lists
 * them in a migration of its own.
 */
export class ServiceWordsUnindexed1767700000000 implements ReleasedMigration {
  name = 'ServiceWordsUnindexed1767700000000';
  readonly release = expandIn('1.6.0');
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    // A table of a few hundred rows that only erasures and exports read: its lock is short.
    await lockedStatement(q, 'ALTER TABLE journal_unindexed_names ADD COLUMN IF NOT EXISTS from_seq bigint');
    // The sequence's value now: every row a writer of this release inserts takes a later one, as
    // such a writer reads the list only once this has committed.
    await q.query(
      `INSERT INTO journal_unindexed_names (name, hash, from_seq)
       SELECT w, svc_name_hash(w), (SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM journal_seq) FROM unnest($1::text[]) AS w
       ON CONFLICT (name) DO NOTHING`,
      [SERVICE_WORDS],
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const [{ since }] = (await q.query('SELECT min(from_seq) AS since FROM journal_unindexed_names')) as { since: string | null }[];
    if (since !== null) {
      // One statement over the journal: the rows it rewrites stay locked until it ends, and only
      // an erasure ever writes such a row. The words are unlisted below only once it has committed.
      await q.query(
        `UPDATE journal SET names = svc_journal_names(actor_user_id, target_id, payload, body)
         WHERE seq > $1 AND names IS DISTINCT FROM svc_journal_names(actor_user_id, target_id, payload, body)`,
        [since],
      );
    }
    // The column stays: 1.5.0 reads only name and hash, and UnindexedNames' down drops the table.
    await q.query('DELETE FROM journal_unindexed_names WHERE from_seq IS NOT NULL');
  }
}

/**
 * The service's own words, as its documents hold them: every field name and every fixed value
 * (event types, actions, statuses, visibilities, roles, reasons, formats) of its API's documents,
 * and those of audit payloads the API does not describe (`via`, `before`, `after`, `changes`, ...).
 */
export const SERVICE_WORDS: readonly string[] = [
  'about', 'accepted', 'action', 'actioned', 'active', 'activeMemberCount', 'actorSvcUserId', 'actorUserId',
  'admin', 'after', 'ageMs', 'all', 'allowed', 'already_in_group_of_kind', 'already_linked',
  'already_member', 'apiKeyCount', 'api_key.minted', 'api_key.revoked', 'applied', 'approved', 'assigned',
  'at', 'attemptLog', 'attempts', 'audit', 'auto-accepted', 'bad_request', 'banId', 'banned', 'bannedAt',
  'bannedBy', 'bannedUntil', 'bans', 'before', 'bins', 'blocked', 'blockedBy', 'blockedSvcUserId',
  'blocked_by_me', 'blocked_by_them', 'blocks', 'bucketSizeMs', 'buckets', 'byKind', 'bySvcUserId',
  'cancelled', 'categories', 'category', 'cells', 'change', 'changes', 'cheating', 'checks', 'code', 'color',
  'config', 'count', 'created', 'createdAt', 'createdBy', 'creator', 'creatorUserId', 'data', 'db',
  'dbConnectionsInUse', 'dbConnectionsMax', 'decidedAt', 'decidedByUserId', 'declined', 'default',
  'defaultRoleId', 'degraded', 'deleted', 'delivered', 'deliveredAt', 'details', 'disabled', 'disabledAt',
  'discord', 'discovery', 'dismissed', 'duration', 'durationMs', 'enabled', 'end', 'erased', 'erasedAt',
  'erasures.applied', 'error', 'eventAt', 'eventId', 'eventType', 'events', 'events_expired',
  'exclusiveKinds', 'expensiveReadsWaiting', 'expiresAt', 'expiresIn', 'exportedAt', 'externalUserId',
  'failed', 'filed', 'firstAt', 'firstSeenAt', 'flagged', 'format', 'friend.blocked', 'friend.removed',
  'friend.request.accepted', 'friend.request.cancelled', 'friend.request.declined',
  'friend.request.received', 'friend.request.sent', 'friend.unblocked', 'friendRequests', 'friendSvcUserId',
  'friendSvcUserIds', 'friends', 'friends-only', 'friendsCount', 'friendsListVisibility', 'friendship',
  'friendships', 'from', 'game', 'game.ban_added', 'game.ban_removed', 'game.config.updated',
  'game.config_updated', 'game.created', 'game.user.banned', 'game.user.linked', 'game.user.unbanned',
  'gameBan', 'gameId', 'gameName', 'games', 'graceSeconds', 'group', 'group.ban_added', 'group.ban_removed',
  'group.created', 'group.deleted', 'group.owner_changed', 'group.ownership_received',
  'group.parent.changed', 'group.restored', 'group.updated', 'groupBans', 'groupCount', 'groupId',
  'groupKind', 'groupName', 'groupSoftDeleted', 'group_full', 'groups', 'harassment', 'hard', 'hasMore',
  'hasPasscode', 'hideGroupAtReporters', 'history', 'id', 'identity.linked', 'ids', 'inbound', 'index',
  'internal', 'invalid_admin_token', 'invalid_api_key', 'invitation', 'invitation.created',
  'invitation.received', 'invitation.revoked', 'invitationId', 'invitation_expired', 'invitation_used',
  'invitations', 'invite-only', 'invited', 'invitedByUserId', 'isDefault', 'items', 'join-request',
  'joinRequest', 'joinRequestId', 'joinRequests', 'join_request.approved', 'join_request.cancelled',
  'join_request.created', 'join_request.declined', 'join_request_closed', 'join_request_pending', 'joinedAt',
  'joinedGroupCount', 'key', 'keyId', 'keyPrefix', 'kicked', 'kind', 'label', 'lastAt', 'lastAttemptAt',
  'lastError', 'lastStatusCode', 'lastUsedAt', 'ledger.applied', 'left', 'leftAt', 'lifted', 'list', 'load',
  'marked', 'matches', 'maxFriends', 'maxMembers', 'maxMs', 'maxPendingRequests', 'maxPerUser', 'maxUses',
  'member', 'member.banned', 'member.invited', 'member.joined', 'member.kicked', 'member.left',
  'member.role.assigned', 'member.role.removed', 'member.role_assigned', 'member.roles_changed',
  'member.timed_out', 'member.timeout_lifted', 'member.unbanned', 'member.updated', 'memberCount',
  'memberId', 'memberOverrides', 'memberships', 'message', 'metadata', 'method_not_allowed', 'minMs',
  'minMutuals', 'moderation', 'moderator', 'mutualCount', 'name', 'name_not_allowed', 'names',
  'names.scanned', 'network', 'networkId', 'nextAfter', 'nextAttemptAt', 'nextCursor', 'none',
  'not_a_member', 'not_found', 'note', 'notesPrivate', 'notesPublic', 'notifications', 'number',
  'occurredAt', 'offensive_name', 'ok', 'open', 'openReports', 'operator.created', 'operator.deleted',
  'operator.role_changed', 'operatorId', 'operatorName', 'other', 'otherCount', 'otherSvcUserId', 'outbound',
  'override', 'owner', 'ownerUserId', 'owner_must_transfer', 'parentGroupId', 'parent_cycle', 'passcode',
  'passcode_invalid', 'passcode_required', 'payload', 'payload_too_large', 'pending', 'per-game',
  'permission', 'permission.granted', 'permission.override.cleared', 'permission.override.set',
  'permission.revoked', 'permissionOverrides', 'permission_denied', 'permissions', 'prefix',
  'previousSecretExpiresAt', 'previousSoftDeletedAt', 'priority', 'private', 'pseudonym', 'public',
  'public-join', 'rate_limit_exceeded', 'rate_limited', 'read', 'readAt', 'reason', 'release', 'removed',
  'removedBySvcUserId', 'report.created', 'report.resolved', 'report_closed', 'reporterUserId', 'reporters',
  'reports', 'request', 'requestId', 'request_incoming', 'request_outgoing', 'requestsReceived',
  'requestsRequired', 'requestsSent', 'reserved', 'resolution', 'resolutionNote', 'resolved', 'resolvedAt',
  'respondedAt', 'restore_window_expired', 'results', 'retentionDays', 'revokedAt', 'role', 'role.changed',
  'role.created', 'role.deleted', 'role.updated', 'roleGrants', 'roleId', 'role_group_mismatch',
  'role_has_members', 'role_name_taken', 'roles', 'rows', 'sampleMutualSvcUserIds', 'saturated', 'scanned',
  'schema', 'scope', 'scopes', 'secret', 'senderSvcUserId', 'series', 'service_unavailable', 'set', 'since',
  'slack', 'soft', 'softDeletedAt', 'source', 'spam', 'standard', 'standardSecret', 'start', 'state',
  'status', 'statusCode', 'subject', 'subjectHash', 'svc', 'svcUserId', 'tagIds', 'tags', 'targetId',
  'targetSvcUserId', 'targetUserId', 'text', 'timedOutUntil', 'timeout', 'timeoutDeniedPermissions',
  'timestamp', 'to', 'token', 'topRoles', 'total', 'totalActiveMembers', 'totalAssignments',
  'totalAuditEntriesLast24h', 'totalCount', 'totalDeparturesInWindow', 'totalEvents', 'totalGames',
  'totalGroups', 'totalGroupsInWindow', 'type', 'uniqueKeys', 'uniqueRoleNames', 'unread',
  'unsupported_media_type', 'updated', 'updatedAt', 'url', 'usedAt', 'usedBy', 'user', 'user.erased',
  'user.exported', 'userId', 'uses', 'version', 'via', 'viaRoleId', 'viewer', 'visibility',
  'waitingForConnection', 'webhook.created', 'webhook.deleted', 'webhook.secret_rotated', 'webhook.updated',
  'webhookWorker', 'word', 'write',
];
