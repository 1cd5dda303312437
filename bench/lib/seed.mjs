// The large dataset, seeded straight through SQL: set-based INSERT ... SELECT over generate_series,
// no per-row round trips. One game:
//   - USERS users, each with an identity `p<n>` in the game;
//   - GROUPS groups (group 0 is the big one; 1 in 10 secret, 1 in 10 invite-only, the rest public),
//     named, tagged and 1 in 4 capped as players would (bench/lib/search.mjs);
//   - MEMBERS members: all USERS users in group 0 (BIG_GROUP of them), the rest spread evenly over
//     the other groups; 1 in 20 has left;
//   - USERS x FRIENDS friend rows: user i is friends with i +/- s (mod USERS) for FRIENDS / 2
//     offsets s (half small, so neighbourhoods overlap and suggestions have many mutual friends);
//   - AUDIT audit entries: LONG_HISTORY of them in group 0 (the deep audit page), the rest spread
//     over the other groups, 1 in 100 game-wide.
// And a second game of SEARCH_GROUPS groups (1,000,000 at scale 1) for the search rows, with member
// counters but no member rows (bench/lib/search.mjs), seeded only when a search row is measured.
// Ids are time-ordered uuids (version 7 layout) made from the row number, like the service's own.
// The bulk load runs with session_replication_role = replica: no foreign-key checks, no per-row
// triggers (the member counter and the deferred half-friendship check, which would cost 18 min on
// 10 M friend rows: the graph is symmetric by construction, and both rows of every friendship are
// written by the same statement). The member counters are then set from one aggregate. For the
// friend rows the secondary indexes are dropped and recreated from their own definitions
// (pg_get_indexdef), which builds them twice as fast as inserting into them and leaves the same schema.
import { log } from './processes.mjs';
import { searchColumns, seedSearchGame } from './search.mjs';

export const GAME_ID = '01900000-0000-7000-8000-000000000001';

/** Sizes of the issue at BENCH_SCALE=1; a smaller scale is for trying the suite out quickly. */
export function seedSizes(scale = 1) {
  const users = Math.round(100_000 * scale);
  const s = {
    groups: Math.round(10_000 * scale),
    members: Math.round(1_000_000 * scale),
    bigGroup: users,
    users,
    friendsPerUser: 100,
    audit: Math.round(1_000_000 * scale),
    longHistory: Math.round(200_000 * scale),
    /** The search game's groups (bench/lib/search.mjs); left out (0) when no search row is measured. */
    searchGroups: Math.round(1_000_000 * scale),
  };
  if (s.users < 1000 || s.groups < 100) throw new Error('BENCH_SCALE is too small');
  return s;
}

/** uuid text of row `n` under a 4-hex-digit prefix, as an SQL expression. */
const uid = (prefix, expr) => `('${prefix}0000-0000-7000-8000-' || lpad(to_hex(${expr}), 12, '0'))::uuid`;
export const USER_PREFIX = '0191';
export const GROUP_PREFIX = '0192';
export const userUuid = (n) => `${USER_PREFIX}0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
export const groupUuid = (n) => `${GROUP_PREFIX}0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
export const visibilityOf = (g) => (g === 0 ? 'public' : g % 10 === 8 ? 'secret' : g % 10 === 9 ? 'invite-only' : 'public');

/**
 * Members of group g >= 1 are the users (k * stride + g) mod USERS, k = 0, 1, ...; so a user u is
 * NOT a member of group g when (u - g) mod USERS is not a multiple of the stride.
 */
export function memberStride(s) {
  const perGroup = Math.ceil((s.members - s.bigGroup) / (s.groups - 1));
  return Math.floor(s.users / (perGroup + 1));
}

/** An active member of small group g (g >= 1): the member rows n = k * (GROUPS - 1) + g - 1 are g's, and 1 in 20 has left. */
export function activeMember(s, g) {
  for (let k = 0; ; k++) {
    const n = k * (s.groups - 1) + g - 1;
    if (n % 20 !== 0) return (k * memberStride(s) + g) % s.users;
  }
}

/** A user who is not a member of small group g (g >= 1). */
export const outsider = (s, g) => (g + Math.floor(memberStride(s) / 2)) % s.users;

/** FRIENDS / 2 distinct offsets in [1, USERS / 2): half small (overlapping neighbourhoods), half large. */
export function friendOffsets(s) {
  let a = 20260101;
  const rnd = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const half = s.friendsPerUser / 2;
  const chosen = new Set();
  while (chosen.size < Math.ceil(half / 2)) chosen.add(1 + Math.floor(rnd() * Math.min(500, s.users / 2 - 1)));
  while (chosen.size < half) chosen.add(1 + Math.floor(rnd() * (s.users / 2 - 1)));
  return [...chosen];
}

/** Runs `fn` over `items` on the given clients, one item per client at a time. */
async function onClients(clients, items, fn) {
  let next = 0;
  await Promise.all(
    clients.map(async (c) => {
      while (next < items.length) await fn(c, items[next++]);
    }),
  );
}

/**
 * Seeds the game; `clients` are two or more connected pg clients to the scratch database.
 * Returns `{ steps: [{ name, ms }], totalMs, bulkMode }`.
 */
export async function seed(clients, s) {
  const [c] = clients;
  const steps = [];
  const t0 = performance.now();
  const step = async (name, fn) => {
    const t = performance.now();
    await fn();
    const ms = performance.now() - t;
    steps.push({ name, ms });
    log(`  seed: ${name} in ${(ms / 1000).toFixed(1)} s`);
  };

  // Bulk mode: replica (no FK checks, no triggers) needs a superuser; otherwise the user triggers
  // are disabled on the two tables instead and the foreign keys are checked.
  let bulkMode = 'session_replication_role = replica';
  try {
    for (const client of clients) await client.query('SET session_replication_role = replica');
  } catch {
    bulkMode = 'user triggers disabled (not a superuser: foreign keys checked)';
    await c.query('ALTER TABLE members DISABLE TRIGGER USER');
    await c.query('ALTER TABLE user_relationships DISABLE TRIGGER USER');
  }

  const { rows: [{ base }] } = await c.query(`SELECT date_trunc('second', now()) AS base`);
  const params = { base };

  await step(`game, ${s.users.toLocaleString('en-US')} users and identities`, async () => {
    await c.query(`INSERT INTO games (id, name) VALUES ($1, 'bench')`, [GAME_ID]);
    await c.query(`INSERT INTO users (id, created_at) SELECT ${uid(USER_PREFIX, 'n')}, $2 FROM generate_series(0, $1::int - 1) n`, [
      s.users,
      params.base,
    ]);
    await c.query(
      `INSERT INTO user_identities (game_id, external_id, user_id, created_at)
       SELECT $2, 'p' || n, ${uid(USER_PREFIX, 'n')}, $3 FROM generate_series(0, $1::int - 1) n`,
      [s.users, GAME_ID, params.base],
    );
  });

  // Names, tags and caps to search (bench/lib/search.mjs); search_name and the words of the names
  // (group_search_words) written here, as the trigger that keeps them is off in replica mode.
  const col = searchColumns('g', 120);
  await step(`${s.groups.toLocaleString('en-US')} groups`, () =>
    c.query(
      `INSERT INTO groups (id, game_id, kind, name, search_name, visibility, metadata, tags, max_members, created_at, updated_at)
       SELECT ${uid(GROUP_PREFIX, 'g')}, $2, 'guild', n.name, svc_search_text(n.name),
              CASE WHEN g = 0 THEN 'public' WHEN g % 10 = 8 THEN 'secret' WHEN g % 10 = 9 THEN 'invite-only' ELSE 'public' END,
              jsonb_build_object('region', (ARRAY['eu', 'na', 'apac'])[1 + g % 3]), ${col.tags}, CASE WHEN g > 0 THEN ${col.maxMembers} END,
              $3::timestamptz - ($1::int - g) * interval '1 minute', $3::timestamptz - ($1::int - g) * interval '1 minute'
       FROM generate_series(0, $1::int - 1) g
       CROSS JOIN LATERAL (SELECT CASE WHEN g = 0 THEN 'The big guild' ELSE ${col.name} END AS name) n`,
      [s.groups, GAME_ID, params.base],
    ),
  );
  await c.query(
    `INSERT INTO group_search_words (game_id, word) SELECT DISTINCT $1::uuid, w FROM groups g, svc_search_words(g.search_name) w WHERE g.game_id = $1 ON CONFLICT DO NOTHING`,
    [GAME_ID],
  );
  if (s.searchGroups) {
    await step(`${s.searchGroups.toLocaleString('en-US')} groups of a second game, for the search rows (indexes rebuilt after)`, () =>
      seedSearchGame(clients, s.searchGroups, params.base),
    );
  }

  const stride = memberStride(s);
  await step(`${s.members.toLocaleString('en-US')} members (${s.bigGroup.toLocaleString('en-US')} in one group), member counters`, async () => {
    // The big group: every user, one joining every 10 s.
    await c.query(
      `INSERT INTO members (id, group_id, user_id, external_user_id, status, joined_at, left_at)
       SELECT ${uid('0193', 'n')}, ${uid(GROUP_PREFIX, '0')}, ${uid(USER_PREFIX, 'n')}, 'p' || n,
              CASE WHEN n % 20 = 0 THEN 'left' ELSE 'active' END,
              $2::timestamptz - ($1::int - n) * interval '10 seconds',
              CASE WHEN n % 20 = 0 THEN $2::timestamptz - ($1::int - n) * interval '5 seconds' END
       FROM generate_series(0, $1::int - 1) n`,
      [s.bigGroup, params.base],
    );
    // The others, spread evenly over groups 1 .. GROUPS-1.
    await c.query(
      `INSERT INTO members (id, group_id, user_id, external_user_id, status, joined_at, left_at)
       SELECT ${uid('0193', '$1::int + n')}, ${uid(GROUP_PREFIX, 'g')}, ${uid(USER_PREFIX, 'u')}, 'p' || u,
              CASE WHEN n % 20 = 0 THEN 'left' ELSE 'active' END, j,
              CASE WHEN n % 20 = 0 THEN j + interval '1 hour' END
       FROM generate_series(0, $2::int - $1::int - 1) n
       CROSS JOIN LATERAL (SELECT 1 + n % ($3::int - 1) AS g, n / ($3::int - 1) AS k) a
       CROSS JOIN LATERAL (SELECT (k * $4::int + g) % $5::int AS u,
                                  $6::timestamptz - interval '1 hour' - ((n::bigint * 7919) % 7776000) * interval '1 second' AS j) b`,
      [s.bigGroup, s.members, s.groups, stride, s.users, params.base],
    );
    await c.query(
      `UPDATE groups g SET active_member_count = x.n
       FROM (SELECT group_id, count(*)::int AS n FROM members WHERE status = 'active' GROUP BY group_id) x
       WHERE x.group_id = g.id`,
    );
  });

  // The history as the journal holds it: each entry a row of its own, with its names.
  await step(`${s.audit.toLocaleString('en-US')} audit entries (${s.longHistory.toLocaleString('en-US')} in one group)`, async () => {
    const actions = ['member.joined', 'member.left', 'member.updated', 'member.role.assigned', 'role.updated', 'permission.granted', 'member.kicked', 'group.updated'];
    const insert = (select) =>
      `INSERT INTO journal (id, game_id, group_id, actor_user_id, action, target_id, payload, created_at, names)
       SELECT a.*, svc_journal_names(a.actor_user_id, a.target_id, a.payload, NULL) FROM (${select}) a`;
    await c.query(
      insert(`SELECT ${uid('0194', 'n')} AS id, $2::uuid AS game_id, ${uid(GROUP_PREFIX, '0')} AS group_id,
              CASE WHEN n % 3 = 0 THEN NULL ELSE ${uid(USER_PREFIX, 'n % $4::int')} END AS actor_user_id,
              ($5::text[])[1 + n % 8] AS action, 'p' || (n * 31) % $4::int AS target_id, jsonb_build_object('n', n) AS payload,
              $3::timestamptz - ($1::int - n) * interval '2 seconds' AS created_at
       FROM generate_series(0, $1::int - 1) n`),
      [s.longHistory, GAME_ID, params.base, s.users, actions],
    );
    await c.query(
      insert(`SELECT ${uid('0194', '$1::int + n')} AS id, $3::uuid AS game_id,
              CASE WHEN n % 100 = 0 THEN NULL ELSE ${uid(GROUP_PREFIX, '1 + n % ($5::int - 1)')} END AS group_id,
              CASE WHEN n % 3 = 0 THEN NULL ELSE ${uid(USER_PREFIX, 'n % $6::int')} END AS actor_user_id,
              ($7::text[])[1 + n % 8] AS action, 'p' || (n * 31) % $6::int AS target_id, jsonb_build_object('n', n) AS payload,
              $4::timestamptz - ((n::bigint * 7919) % 7776000) * interval '1 second' AS created_at
       FROM generate_series(0, $2::int - $1::int - 1) n`),
      [s.longHistory, s.audit, GAME_ID, params.base, s.groups, s.users, actions],
    );
  });

  const offsets = friendOffsets(s);
  const friendRows = s.users * offsets.length * 2;
  let indexes = [];
  await step('drop the secondary indexes of user_relationships', async () => {
    indexes = (
      await c.query(
        `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
         FROM pg_index i
         WHERE i.indrelid = 'user_relationships'::regclass
           AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
         ORDER BY 1`,
      )
    ).rows;
    for (const ix of indexes) await c.query(`DROP INDEX ${ix.name}`);
  });
  await step(`${friendRows.toLocaleString('en-US')} friend rows (${s.users.toLocaleString('en-US')} users x ${offsets.length * 2} friends)`, async () => {
    const chunk = 5000;
    const ranges = [];
    for (let lo = 0; lo < s.users; lo += chunk) ranges.push([lo, Math.min(s.users, lo + chunk)]);
    // Both rows of a friendship {i, i + s} come from one row of the generator, so from one statement.
    await onClients(clients, ranges, (client, [lo, hi]) =>
      client.query(
        `INSERT INTO user_relationships
           (id, game_id, user_id, other_id, user_external_id, other_external_id, type, created_at, responded_at)
         SELECT ${uid('0195', '(i::bigint * $6::int + o.k - 1) * 2 + d')}, $3,
                ${uid(USER_PREFIX, 'CASE d WHEN 0 THEN i ELSE j END')}, ${uid(USER_PREFIX, 'CASE d WHEN 0 THEN j ELSE i END')},
                'p' || CASE d WHEN 0 THEN i ELSE j END, 'p' || CASE d WHEN 0 THEN j ELSE i END, 'friend', ts, ts
         FROM generate_series($1::int, $2::int - 1) i
         CROSS JOIN LATERAL unnest($5::int[]) WITH ORDINALITY AS o(s, k)
         CROSS JOIN LATERAL (SELECT (i + o.s) % $4::int AS j) jj
         CROSS JOIN LATERAL (SELECT $7::timestamptz - ((least(i, j)::bigint * 7919 + greatest(i, j)) % 31536000) * interval '1 second' AS ts) tt
         CROSS JOIN generate_series(0, 1) d`,
        [lo, hi, GAME_ID, s.users, offsets, offsets.length, params.base],
      ),
    );
  });
  await step(`recreate the ${indexes.length} secondary indexes of user_relationships`, () =>
    onClients(clients, indexes, (client, ix) => client.query(ix.def)),
  );

  if (bulkMode.startsWith('session')) {
    for (const client of clients) await client.query('SET session_replication_role = origin');
  } else {
    await c.query('ALTER TABLE members ENABLE TRIGGER USER');
    await c.query('ALTER TABLE user_relationships ENABLE TRIGGER USER');
  }
  await step('VACUUM ANALYZE', () => c.query('VACUUM ANALYZE'));
  const [{ size }] = (await c.query('SELECT pg_size_pretty(pg_database_size(current_database())) AS size')).rows;
  return { steps, totalMs: performance.now() - t0, bulkMode, offsets, friendRows, size };
}
