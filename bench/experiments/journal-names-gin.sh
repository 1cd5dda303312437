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
SERVER=${DATABASE_URL:?set DATABASE_URL to a server this user may create databases on}
DB=gh_journal_names_$$
URL="${SERVER%/*}/$DB"
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"; psql "$SERVER" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)"' EXIT
psql "$SERVER" -qc "CREATE DATABASE $DB"
DATABASE_URL=$URL node dist/src/cli.js migrate up >/dev/null
DATABASE_URL=$URL node dist/src/cli.js game:create "Journal names" >/dev/null
GAME=$(psql "$URL" -Atc "SELECT id FROM games")
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
POSTMASTER=$(psql "$URL" -Atc "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'" | xargs ps -o ppid= -p | tr -d ' ')
cpu() { # clock ticks of every postgres process, and of those the postmaster reaped
  local t=0 s
  for p in $(pgrep -x postgres); do
    read -r -a s < <(cut -d' ' -f14-17 "/proc/$p/stat" 2>/dev/null) || continue
    t=$((t + s[0] + s[1])); [ "$p" = "$POSTMASTER" ] && t=$((t + s[2] + s[3]))
  done
  echo $t
}
TICK_MS=$((1000 / $(getconf CLK_TCK)))
for round in $(seq "$ROUNDS"); do
  for t in all own none; do
    psql "$URL" -qc CHECKPOINT; sleep 1
    w0=$(psql "$URL" -Atc "SELECT wal_bytes FROM pg_stat_wal"); c0=$(cpu)
    out=$(pgbench -n -c "$CLIENTS" -j 2 -T "$SECONDS_EACH" -f "$SCRATCH/$t.sql" "$URL" 2>&1)
    sleep 1
    w1=$(psql "$URL" -Atc "SELECT wal_bytes FROM pg_stat_wal"); c1=$(cpu)
    n=$(awk -F': ' '/actually processed/ { split($2, a, "/"); print a[1] }' <<<"$out")
    tps=$(grep -o 'tps = [0-9]*' <<<"$out" | head -1 | cut -d' ' -f3)
    awk -v r="$round" -v k="$t" -v tps="$tps" -v n="$n" -v w=$((w1 - w0)) -v c=$((c1 - c0)) -v ms="$TICK_MS" \
      'BEGIN { printf "round %s %-5s %6d rows/s  %5d WAL bytes a row  %.3f ms PostgreSQL CPU a row\n", r, k, tps, w / n, c * ms / n }'
  done
done
