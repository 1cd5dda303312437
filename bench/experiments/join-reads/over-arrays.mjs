// The join's and the leave's statements as captured (join.sql and leave.sql beside this file),
// rewritten over arrays of (group, player) pairs: shared by join-reads' batch-of-k scripts and
// write-batch-tx.mjs (docs/design/write-path.md, step 13).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A captured statement, with its $n placeholders. */
export const captured = (name) => readFileSync(join(import.meta.dirname, name), 'utf8').trim();

/** Takes `pattern` out of a captured statement; a capture that no longer matches fails loudly. */
export function cut(sql, pattern, replacement, what) {
  const next = sql.replace(pattern, replacement);
  if (next === sql) throw new Error(`${what} not found in the captured statements`);
  return next;
}

/**
 * The captured statement over arrays: $1 groups, $2 the game, $3 players, $4 the join's passcode or
 * the leave's status, $5 the new members' ids. The lookup reads the groups and identities of an
 * unnest of the pairs, each write correlates with its own pair's row of it, and the answer joins
 * each pair's row to its member. The per-pair reads stay: a batch shares only what a statement and
 * a transaction cost, whatever rows they touch.
 */
export function overArrays(sql, isJoin) {
  let s = cut(
    sql,
    /FROM groups g\s+LEFT JOIN user_identities u ON (.*?)svc_external_key\(\$3\) AND u\.external_id = \$3\s+WHERE g\.id = \$1 AND/s,
    (_, on) => `FROM unnest($1::uuid[], $3::text[], $5::uuid[]) AS xp(g, ext, mid)
       JOIN groups g ON g.id = xp.g
       LEFT JOIN user_identities u ON ${on}svc_external_key(xp.ext) AND u.external_id = xp.ext
       WHERE`,
    'the lookup of one pair',
  );
  s = cut(s, /^WITH lookup AS \(SELECT /, 'WITH lookup AS (SELECT xp.ext AS "xExt", xp.mid AS "xMid", ', 'the lookup');
  s = cut(s, /LEFT JOIN alongside w ON true/, 'LEFT JOIN alongside w ON w."groupId" = l.id AND w."svcUserId" = l."svcUserId"', 'the answer');
  if (!isJoin) return s;
  s = cut(
    s,
    /SELECT \$5, l\.id, l\."svcUserId", \$6, 'active' FROM lookup l/,
    `SELECT l."xMid", l.id, l."svcUserId", l."xExt", 'active' FROM lookup l`,
    'the new member',
  );
  return cut(
    s,
    /NOT EXISTS \(SELECT 1 FROM members m JOIN lookup l ON m\.group_id = l\.id AND m\.user_id = l\."svcUserId"\)/,
    'NOT EXISTS (SELECT 1 FROM members m2 WHERE m2.group_id = l.id AND m2.user_id = l."svcUserId")',
    'the fresh member test',
  );
}
