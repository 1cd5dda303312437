#!/usr/bin/env bash
# What the reads in a join's and a leave's statements cost PostgreSQL (docs/design/write-path.md,
# step 12): the statements as the service sends them (join-reads/join.sql and leave.sql, captured
# from a server's statement log) against the same with one kind of read taken out, and against the
# member row's bare upsert and update (join-reads/scripts.mjs says what each variant leaves out).
# A join then a leave of one of 10 non-members of 608 or so public, uncapped groups, each a
# transaction, prepared, by pgbench; variants alternate, each run after a checkpoint. Prints per
# request (a join or a leave): WAL bytes (pg_stat_wal) and PostgreSQL CPU (every postgres process on
# this machine, and what the postmaster reaped: run it on a quiet server of its own).
# Runs on a seeded bench database, which it changes (the pairs' members end `left`):
#   BENCH_KEEP_DB=1 BENCH_SCALE=0.1 BENCH_ONLY='^(pgbench)$' DATABASE_URL=<server>/postgres npm run bench
#   DATABASE_URL=<server>/<the kept database> bench/experiments/join-reads.sh [rounds] [seconds] [clients] [batches]
# VARIANTS names the variants to run (default: all but the batches); each k of batches adds the
# statements as sent rewritten to join and then leave k pairs at once (step 13).
# The captured statements are those of the build that wrote them (7becc78); a cut that no longer
# matches them fails, and a newer build's statements can be captured the same way.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-2} SECONDS_EACH=${2:-12} CLIENTS=${3:-10} BATCHES=${4:-}
VARIANTS=${VARIANTS:-as-sent no-checks no-identity no-document bare}
PGBENCH_MODE=prepared
. bench/experiments/lib.sh
URL=${DATABASE_URL:?set DATABASE_URL to a seeded bench database}
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"; psql "$URL" -qc "DROP TABLE IF EXISTS xp_pairs"' EXIT
measured_server
psql "$URL" -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE TABLE xp_pairs AS
SELECT row_number() OVER () AS i, g.id AS group_id, g.game_id, ui.user_id, ui.external_id
FROM (SELECT id, game_id FROM groups
      WHERE visibility = 'public' AND max_members IS NULL AND soft_deleted_at IS NULL
        AND id <> '01920000-0000-7000-8000-000000000000' -- the big group: the hot rows' own
      ORDER BY random() LIMIT 2000) g
CROSS JOIN LATERAL (SELECT user_id, external_id FROM user_identities u
                    WHERE u.game_id = g.game_id
                      AND NOT EXISTS (SELECT 1 FROM members m WHERE m.group_id = g.id AND m.user_id = u.user_id)
                    ORDER BY random() LIMIT 10) ui;
ALTER TABLE xp_pairs ADD PRIMARY KEY (i);
ANALYZE xp_pairs;
SQL
node bench/experiments/join-reads/scripts.mjs "$SCRATCH" "$(psql "$URL" -Atc 'SELECT count(*) FROM xp_pairs')" "$CLIENTS" "$BATCHES"
# A warm-up first: most pairs' member rows exist from then on, so most measured joins bring back a
# member who left, as most of the bench's joins do.
for v in as-sent bare; do pgbench -n -M prepared -c "$CLIENTS" -T 3 -f "$SCRATCH/$v.sql" "$URL" >/dev/null 2>&1; done
for round in $(seq "$ROUNDS"); do
  for v in $VARIANTS; do measure "$round" "$v" "$SCRATCH/$v.sql" 2 request; done
  for k in $BATCHES; do measure "$round" "batch of $k" "$SCRATCH/batch-of-$k.sql" $((2 * k)) request; done
done
