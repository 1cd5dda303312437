#!/usr/bin/env bash
# What the journal's index of names costs a change (docs/design/write-path.md, step 5c): inserts of
# a member.joined journal row, a transaction each, into copies of `journal` that differ only there:
#   all    the GIN index over `names`, 22 names a row (16 the same in every row, as a join's field
#          names, types and statuses are, and 6 of its own), as the writer sends them today;
#   own    the same index, the row's 6 names and the game's id only (what the names would be
#          without the service's own words and times);
#   none   no index of names.
# By pgbench on a scratch database, alternating, each run after a checkpoint. Prints per row: WAL
# bytes (pg_stat_wal) and PostgreSQL CPU (every postgres process on this machine, and what the
# postmaster reaped: run it on a quiet server of its own).
#   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bench/experiments/journal-names-gin.sh [rounds] [seconds] [clients]
# Needs the build (dist/), psql and pgbench; the server must run on this machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3} SECONDS_EACH=${2:-15} CLIENTS=${3:-50}
. bench/experiments/lib.sh
scratch_database gh_journal_names_$$ "Journal names"
psql "$URL" -q -v ON_ERROR_STOP=1 <<SQL
CREATE TABLE journal_all (LIKE journal INCLUDING ALL);
CREATE TABLE journal_own (LIKE journal INCLUDING ALL);
CREATE TABLE journal_none (LIKE journal INCLUDING ALL);
DROP INDEX journal_none_names_idx;
SQL
SAME="11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26"
for t in all own none; do
  case $t in all) names="ARRAY[$SAME, :h1, :h2, :h3, :h4, :h5, :h6]" ;; *) names="ARRAY[11, :h1, :h2, :h3, :h4, :h5, :h6]" ;; esac
  cat > "$SCRATCH/$t.sql" <<SQL
\set n random(1, 100000000)
\set h1 random(-2147483648, 2147483647)
\set h2 random(-2147483648, 2147483647)
\set h3 random(-2147483648, 2147483647)
\set h4 random(1, 10000)
\set h5 random(1, 100000)
\set h6 random(-2147483648, 2147483647)
INSERT INTO journal_$t (id, game_id, group_id, action, target_id, payload, type, body, names)
VALUES (gen_random_uuid(), '$GAME', gen_random_uuid(), 'member.joined', 'player-:n', jsonb_build_object('userId', 'player-:n', 'status', 'active', 'via', 'join'),
        'member.joined', jsonb_build_object('id', substr(md5(random()::text), 1, 24), 'type', 'member.joined', 'gameId', '$GAME', 'occurredAt', now(),
        'data', jsonb_build_object('memberId', gen_random_uuid(), 'userId', 'player-:n', 'status', 'active', 'roles', '[]'::jsonb, 'joinedAt', now())), $names);
SQL
done
for round in $(seq "$ROUNDS"); do
  for t in all own none; do
    measure "$round" "$t" "$SCRATCH/$t.sql" 1 row
  done
done
