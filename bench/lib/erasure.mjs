// A player's erasure at the size (EXTENSIONS X7): a user with 5,000 friends, 200
// memberships and 100,000 audit entries (and events naming them) is erased through the API while
// other players join and leave those same groups; the erasure's time, and how long any of those
// writes waited, are what the row reports.
import { randomUUID } from 'node:crypto';
import { sleep } from './processes.mjs';
import { groupUuid, userUuid, visibilityOf } from './seed.mjs';

export const ERASURE_SIZE = { friends: 5_000, memberships: 200, audit: 100_000, events: 20_000 };

/** The first `n` public groups after group 0 (the big one): the subject's, and the writers'. */
function publicGroups(n) {
  const out = [];
  for (let g = 1; out.length < n; g++) if (visibilityOf(g) === 'public') out.push(g);
  return out;
}

/** The first `n` public groups after group 0: the memberships of a seeded subject. */
export const subjectGroups = (n = ERASURE_SIZE.memberships) => publicGroups(n);

/**
 * A player with a long history, written directly (as the bench's seed is): `size.friends` friends
 * spread over the seeded users, a membership of each of `groups`, `size.audit` audit entries and
 * `size.events` events naming them. Returns its external id.
 */
export async function seedSubject(q, gameId, users, groups, size = ERASURE_SIZE) {
  const friends = Math.min(size.friends, users);
  const svcUserId = randomUUID();
  const externalId = `erased-${svcUserId.slice(0, 8)}`;
  const uid = (expr) => `('${userUuid(0).slice(0, 24)}' || lpad(to_hex(${expr}), 12, '0'))::uuid`;
  await q.query('BEGIN');
  await q.query('INSERT INTO users (id) VALUES ($1)', [svcUserId]);
  await q.query('INSERT INTO user_identities (game_id, external_id, user_id) VALUES ($1, $2, $3)', [gameId, externalId, svcUserId]);
  // Friends: users spread over the seeded ones, both rows of each friendship in one statement.
  await q.query(
    `INSERT INTO user_relationships (id, game_id, user_id, other_id, user_external_id, other_external_id, type, created_at, responded_at)
     SELECT gen_random_uuid(), $1, CASE d WHEN 0 THEN $2::uuid ELSE ${uid('k')} END, CASE d WHEN 0 THEN ${uid('k')} ELSE $2::uuid END,
            CASE d WHEN 0 THEN $3 ELSE 'p' || k END, CASE d WHEN 0 THEN 'p' || k ELSE $3 END, 'friend', now(), now()
     FROM (SELECT (i * ($5::int / $4::int)) AS k FROM generate_series(0, $4::int - 1) i) f CROSS JOIN generate_series(0, 1) d`,
    [gameId, svcUserId, externalId, friends, users],
  );
  await q.query(
    `INSERT INTO members (id, group_id, user_id, external_user_id, status)
     SELECT gen_random_uuid(), g, $1, $2, 'active' FROM unnest($3::uuid[]) g`,
    [svcUserId, externalId, groups.map(groupUuid)],
  );
  await q.query(
    `INSERT INTO journal (id, game_id, group_id, actor_user_id, action, target_id, payload, created_at, names)
     SELECT a.*, svc_journal_names(a.actor_user_id, a.target_id, a.payload, NULL) FROM (
       SELECT svc_uuidv7() AS id, $1::uuid AS game_id, ($4::uuid[])[1 + n % cardinality($4::uuid[])] AS group_id, $2::uuid AS actor_user_id,
              'member.updated' AS action, $3::text AS target_id,
              jsonb_build_object('memberId', gen_random_uuid(), 'fields', jsonb_build_array('metadata')) AS payload, now() - n * interval '1 second' AS created_at
       FROM generate_series(0, $5::int - 1) n
     ) a`,
    [gameId, svcUserId, externalId, groups.map(groupUuid), size.audit],
  );
  await q.query(
    `INSERT INTO journal (id, game_id, group_id, type, body, names)
     SELECT (e.id || '00000000')::uuid, $1::uuid, e.g, 'member.updated', b.body, svc_journal_names(NULL, NULL, NULL, b.body)
     FROM generate_series(0, $5::int - 1) n
     CROSS JOIN LATERAL (SELECT 'ea' || substr(replace($2::uuid::text, '-', ''), 1, 8) || lpad(to_hex(n), 14, '0') AS id, ($4::uuid[])[1 + n % cardinality($4::uuid[])] AS g) e
     CROSS JOIN LATERAL (
       SELECT jsonb_build_object('id', e.id, 'type', 'member.updated', 'gameId', $1::text, 'groupId', e.g::text,
                'member', jsonb_build_object('userId', $3::text, 'svcUserId', $2::uuid::text, 'groupId', e.g::text, 'status', 'active')) AS body
     ) b`,
    [gameId, svcUserId, externalId, groups.map(groupUuid), size.events],
  );
  await q.query('COMMIT');
  await q.query('ANALYZE user_relationships, members, journal');
  return externalId;
}

/** Join then leave, over and over, by writers of their own on the subject's groups: every answer's time. */
function startWriters({ base, headers, groups, writers }) {
  const samples = [];
  let running = true;
  const call = async (path, body) => {
    const t0 = performance.now();
    const r = await fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await r.arrayBuffer();
    const t1 = performance.now();
    samples.push({ start: t0, end: t1, ms: t1 - t0, ok: r.status < 300 });
  };
  const loops = Array.from({ length: writers }, async (_, w) => {
    for (let i = 0; running; i++) {
      const group = groupUuid(groups[(w * 37 + i) % groups.length]);
      const userId = `erasure-writer-${w}-${i}`;
      await call(`/v1/groups/${group}/join`, { userId });
      await call(`/v1/groups/${group}/leave`, { userId });
    }
  });
  return {
    samples,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

const quantile = (values, q) => {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

/** One erasure through the API: its time and answer. */
async function eraseOnce(base, headers, externalId) {
  const start = performance.now();
  const r = await fetch(`${base}/v1/users/${encodeURIComponent(externalId)}`, { method: 'DELETE', headers });
  const body = await r.json();
  const end = performance.now();
  if (r.status !== 200) throw new Error(`erasure: ${r.status} ${JSON.stringify(body)}`);
  return { start, end, body };
}

/**
 * Two subjects of the same size: the first erased alone (the erasure's own time), the second while
 * `writers` connections join and leave its groups (how long those writes wait, and the erasure's
 * time under that load). Before each erasure a checkpoint, so both pay the full-page writes a
 * checkpoint makes every first change of a page pay.
 */
export async function measureErasure({ q, base, headers, gameId, users, writers = 10, log }) {
  const groups = publicGroups(ERASURE_SIZE.memberships);
  let t0 = performance.now();
  const alone = await seedSubject(q, gameId, users, groups);
  log(`  first subject seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await q.query('CHECKPOINT');
  const first = await eraseOnce(base, headers, alone);
  log(`  erased alone in ${(first.end - first.start).toFixed(0)} ms`);

  t0 = performance.now();
  const loaded = await seedSubject(q, gameId, users, groups);
  log(`  second subject seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await q.query('CHECKPOINT');
  const load = startWriters({ base, headers, groups, writers });
  await sleep(3000);
  const second = await eraseOnce(base, headers, loaded);
  await sleep(1000);
  await load.stop();
  const during = load.samples.filter((s) => s.end > second.start && s.start < second.end);
  const before = load.samples.filter((s) => s.end <= second.start);
  return {
    ms: first.end - first.start,
    loadedMs: second.end - second.start,
    removed: first.body.removed,
    writes: during.length,
    failed: load.samples.filter((s) => !s.ok).length,
    duringP50: quantile(during.map((s) => s.ms), 0.5),
    duringP99: quantile(during.map((s) => s.ms), 0.99),
    duringMax: Math.max(...during.map((s) => s.ms)),
    beforeP99: quantile(before.map((s) => s.ms), 0.99),
    beforeMax: Math.max(...before.map((s) => s.ms)),
    writers,
  };
}
