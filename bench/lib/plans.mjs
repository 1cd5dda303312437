// The main statement of each read scenario, as the built repository writes it (captured, not
// copied), and its EXPLAIN (ANALYZE, BUFFERS) on the seeded data.
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** Calls a built repository method with a manager that records the SQL instead of running it. */
async function capture(call) {
  const seen = [];
  const manager = { query: async (sql, params) => (seen.push({ sql, params }), []) };
  const pool = { query: async ({ text, values }) => (seen.push({ sql: text, params: values }), { rows: [{}] }) };
  const ds = { manager, driver: { master: pool } };
  try {
    await call(manager, ds);
  } catch {
    // the fake answer does not satisfy the method's post-processing: the SQL is captured already
  }
  if (!seen.length) throw new Error('no statement captured');
  return seen[seen.length - 1];
}

/** The external id the seed gives the user of a seeded uuid: `p<n>` for row n (seed.mjs userUuid). */
const externalId = (uuid) => `p${parseInt(uuid.slice(-12), 16)}`;

/** A `(repository, manager, ds) => call` per read scenario key; params from `p`. */
export function mainStatement(root, key, p) {
  const require = createRequire(join(root, 'package.json'));
  const d = (path) => require(join(root, 'dist/src', path));
  const limit = 50;
  switch (key) {
    case 'permMiss': {
      const { PermissionsRepository } = d('permissions/permissions.repository.js');
      return capture((_m, ds) => new PermissionsRepository().profiles(ds, p.gameId, [{ groupId: p.groupId, userId: p.userId }]));
    }
    case 'groupsFirst':
    case 'groupsDeep': {
      const { GroupsRepository } = d('groups/groups.repository.js');
      return capture((m) => new GroupsRepository().list(m, { gameId: p.gameId, after: p.after, limit }));
    }
    case 'membersFirst':
    case 'membersDeep': {
      const { MembersRepository } = d('members/members.repository.js');
      return capture((_m, ds) =>
        new MembersRepository().pageOfLiveGroup(ds, p.gameId, p.groupId, { after: p.after && { joinedAt: p.after.at, id: p.after.id }, limit }),
      );
    }
    case 'friendsList': {
      const { FriendReadsRepository } = d('friends/friend-reads.repository.js');
      return capture((_m, ds) =>
        new FriendReadsRepository().listPage(ds, {
          callingGameId: p.gameId,
          readGameIds: [p.gameId],
          ownerExternalId: externalId(p.userUuid),
          withTags: true,
          limit,
        }),
      );
    }
    case 'suggestions': {
      const { SuggestionsRepository } = d('friends/suggestions.repository.js');
      return capture((_m, ds) =>
        new SuggestionsRepository().kept(ds, {
          callingGameId: p.gameId,
          readGameIds: [p.gameId],
          userExternalId: externalId(p.userUuid),
          minMutuals: 2,
          limit: 20,
        }),
      );
    }
    case 'suggestionsCold': {
      const { SuggestionsRepository } = d('friends/suggestions.repository.js');
      return capture((_m, ds) =>
        new SuggestionsRepository().compute(ds, { callingGameId: p.gameId, readGameIds: [p.gameId], userId: p.userUuid, minMutuals: 2, limit: 20 }),
      );
    }
    case 'relationship': {
      const { FriendReadsRepository } = d('friends/friend-reads.repository.js');
      return capture((_m, ds) =>
        new FriendReadsRepository().relationshipFacts(ds, {
          callingGameId: p.gameId,
          readGameIds: [p.gameId],
          viewerExternalId: externalId(p.userUuid),
          otherExternalId: externalId(p.otherUuid),
        }),
      );
    }
    case 'auditFirst':
    case 'auditDeep': {
      const { AuditRepository } = d('audit/audit.repository.js');
      return capture((_m, ds) => new AuditRepository().groupPage(ds, { gameId: p.gameId, groupId: p.groupId, start: p.start, limit }));
    }
    case 'notificationCounts': {
      const { NotificationsRepository } = d('notifications/notifications.repository.js');
      return capture((m) => new NotificationsRepository().unreadByKind(m, p.gameId, p.userId));
    }
    case 'notificationsFirst': {
      const { NotificationsRepository } = d('notifications/notifications.repository.js');
      return capture((_m, ds) => new NotificationsRepository().page(ds, p.gameId, p.userId, { unread: false, limit }));
    }
    default:
      return Promise.reject(new Error(`no main statement for ${key}`));
  }
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of a captured statement: the plan lines and the execution time, of
 * the third run (the first ones warm the session's catalog caches, as the server's pooled
 * connections are warm).
 */
export async function explain(db, { sql, params }) {
  let rows;
  for (let i = 0; i < 3; i++) ({ rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params));
  const lines = rows.map((r) => r['QUERY PLAN']);
  const exec = lines.map((l) => /Execution Time: ([\d.]+) ms/.exec(l)).find(Boolean);
  const plan = lines.map((l) => /Planning Time: ([\d.]+) ms/.exec(l)).find(Boolean);
  return { lines, executionMs: exec ? Number(exec[1]) : NaN, planningMs: plan ? Number(plan[1]) : NaN };
}
