// Writes the pgbench scripts of join-reads.sh into the folder named: the join's and the leave's
// statements as the service sends them (join.sql and leave.sql beside this file, captured from a
// server's statement log), and the same with one kind of read taken out at a time. Each script is
// a join then a leave of one (group, player) pair of xp_pairs, each a transaction of its own.
//   as-sent     the statements as captured;
//   no-checks   without the owner's member count, the ban checks and the admission;
//   no-identity the player's internal id given, as if the server held it, instead of read;
//   no-document the answer's member without its role grants and pending join request;
//   bare        only the member row's upsert and update (no read, a plain answer);
//   batch-of-k  the statements as captured, rewritten to join k pairs in one statement and
//               transaction and then have them leave in a second (for each k of the fourth
//               argument, with the clients' count as the third: each client's pairs its own).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { captured, cut, overArrays } from './over-arrays.mjs';

const [out, pairs, clients] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4] ?? 1)];
const batches = (process.argv[5] ?? '').split(/\s+/).filter(Boolean).map(Number);

/** $n placeholders to pgbench variables or expressions (one digit: the captured statements have six). */
const bind = (sql, values) => sql.replace(/\$(\d)/g, (_, n) => values[n]);
const joinSql = bind(captured('join.sql'), { 1: ':g', 2: ':gm', 3: ':ext', 4: 'NULL::text', 5: 'gen_random_uuid()', 6: ':ext' });
const leaveSql = bind(captured('leave.sql'), { 1: ':g', 2: ':gm', 3: ':ext', 4: "'left'" });

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
/**
 * Picks k pairs at random for a transaction (their variables numbered from 1 when asked), each
 * from a slice of xp_pairs of its own: no two clients, and no two places of a batch, ever take the
 * same pair (two joins of one new pair at once would both insert it, and one would fail).
 */
function head(k, numbered = k > 1) {
  const slice = Math.floor(pairs / (clients * k));
  if (slice < 1) throw new Error(`join-reads: ${pairs} pairs are too few for ${clients} clients' batches of ${k}`);
  return range(k, (i) => {
    const n = numbered ? i : '';
    return `\\set i${n} (:client_id * ${k} + ${i - 1}) * ${slice} + random(1, ${slice})
SELECT group_id AS g${n}, game_id AS gm, user_id AS uid${n}, external_id AS ext${n} FROM xp_pairs WHERE i = :i${n} \\gset
`;
  }).join('');
}
const pair = (j, l) => `${head(1)}BEGIN;\n${j};\nCOMMIT;\nBEGIN;\n${l};\nCOMMIT;\n`;
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

/** The pair of statements over k pairs at once (overArrays), the pairs' pgbench variables bound. */
function batched(k) {
  const values = (fourth) => ({
    1: `ARRAY[${range(k, (i) => `:g${i}::uuid`)}]`,
    2: ':gm',
    3: `ARRAY[${range(k, (i) => `:ext${i}::text`)}]`,
    4: fourth,
    5: `ARRAY[${range(k, () => 'gen_random_uuid()')}]`,
  });
  const j = bind(overArrays(captured('join.sql'), true), values('NULL::text'));
  const l = bind(overArrays(captured('leave.sql'), false), values("'left'"));
  return `${head(k, true)}BEGIN;\n${j};\nCOMMIT;\nBEGIN;\n${l};\nCOMMIT;\n`;
}
function range(k, f) {
  return Array.from({ length: k }, (_, i) => f(i + 1));
}
for (const k of batches) writeFileSync(join(out, `batch-of-${k}.sql`), batched(k));
