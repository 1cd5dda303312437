// Writes the pgbench scripts of join-reads.sh into the folder named: the join's and the leave's
// statements as the service sends them (join.sql and leave.sql beside this file, captured from a
// server's statement log), and the same with one kind of read taken out at a time. Each script is
// a join then a leave of one (group, player) pair of xp_pairs, each a transaction of its own.
//   as-sent     the statements as captured;
//   no-checks   without the owner's member count, the ban checks and the admission;
//   no-identity the player's internal id given, as if the server held it, instead of read;
//   no-document the answer's member without its role grants and pending join request;
//   bare        only the member row's upsert and update (no read, a plain answer).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [out, pairs] = [process.argv[2], Number(process.argv[3])];
const here = import.meta.dirname;
const read = (name) => readFileSync(join(here, name), 'utf8').trim();

/** $n placeholders to pgbench variables (one digit: the captured statements have six). */
const bind = (sql, values) => sql.replace(/\$(\d)/g, (_, n) => values[n]);
const joinSql = bind(read('join.sql'), { 1: ':g', 2: ':gm', 3: ':ext', 4: 'NULL::text', 5: 'gen_random_uuid()', 6: ':ext' });
const leaveSql = bind(read('leave.sql'), { 1: ':g', 2: ':gm', 3: ':ext', 4: "'left'" });

/** Takes `pattern` out of the pair of statements; a capture that no longer matches fails loudly. */
function cut(sql, pattern, replacement, what) {
  const next = sql.replace(pattern, replacement);
  if (next === sql) throw new Error(`join-reads: ${what} not found in the captured statements`);
  return next;
}
const cuts = {
  'no-checks': (s) => {
    const t = cut(s, /CASE WHEN g\.owner_user_id = u\.user_id THEN \(.*?\), 0\)\) END AS "memberCount"/gs, 'NULL::int AS "memberCount"', 'the member count');
    const u = cut(t, /CASE WHEN EXISTS \(SELECT 1 FROM game_bans.*?END AS "banScope"/gs, 'NULL::text AS "banScope"', 'the ban checks');
    return cut(u, /\(SELECT CASE WHEN x\.exclusive.*?AS exclusive\) x\) AS refusal/gs, 'NULL::text AS refusal', 'the admission');
  },
  'no-identity': (s) =>
    cut(
      s,
      /LEFT JOIN user_identities u ON u\.game_id = g\.game_id AND svc_external_key\(u\.external_id\) = svc_external_key\(:ext\) AND u\.external_id = :ext/g,
      'LEFT JOIN (SELECT :uid::uuid AS user_id) u ON true',
      'the identity join',
    ),
  'no-document': (s) => {
    const t = cut(s, /coalesce\(\(SELECT jsonb_agg\(.*?'\[\]'\) AS "roleGrants"/gs, `'[]'::jsonb AS "roleGrants"`, 'the role grants');
    return cut(t, /EXISTS \(SELECT 1 FROM join_requests r WHERE .*?\)\s*AS "joinRequestPending"/gs, 'false AS "joinRequestPending"', 'the pending join request');
  },
};
const head = `\\set i random(1, ${pairs})
SELECT group_id AS g, game_id AS gm, user_id AS uid, external_id AS ext FROM xp_pairs WHERE i = :i \\gset
`;
const pair = (j, l) => `${head}BEGIN;\n${j};\nCOMMIT;\nBEGIN;\n${l};\nCOMMIT;\n`;
const SPLIT = '\n-- leave --\n';
writeFileSync(join(out, 'as-sent.sql'), pair(joinSql, leaveSql));
for (const [name, apply] of Object.entries(cuts)) {
  const [j, l] = apply(joinSql + SPLIT + leaveSql).split(SPLIT);
  writeFileSync(join(out, `${name}.sql`), pair(j, l));
}
writeFileSync(
  join(out, 'bare.sql'),
  pair(
    `INSERT INTO members AS m (id, group_id, user_id, external_user_id, status) VALUES (gen_random_uuid(), :g, :uid, :ext, 'active')
  ON CONFLICT (group_id, user_id) DO UPDATE SET status = 'active', left_at = NULL, banned_until = NULL WHERE m.status IN ('left', 'kicked', 'invited')
  RETURNING m.id, m.status, m.joined_at`,
    `UPDATE members m SET status = 'left', left_at = now() WHERE m.group_id = :g AND m.user_id = :uid AND m.status = 'active' RETURNING m.id, m.status, m.left_at`,
  ),
);
