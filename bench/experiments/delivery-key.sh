#!/usr/bin/env bash
# The delivery row's key to its endpoint (docs/design/write-path.md, open question 4): a change as
# the flush writes it for a game with one subscribed endpoint (a journal row and a delivery row, a
# transaction) into a copy of webhook_deliveries with the key to webhook_endpoints and into one
# without. Every concurrent writer of the game takes a key-share lock on the same endpoint row (a
# multixact while others hold it); this says what that costs. By pgbench on a scratch database,
# alternating, each run after a checkpoint; prints per transaction: WAL bytes (pg_stat_wal) and
# PostgreSQL CPU (every postgres process on this machine, and what the postmaster reaped: run it on
# a quiet server of its own).
#   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bench/experiments/delivery-key.sh [rounds] [seconds] [clients]
# Needs the build (dist/), psql and pgbench; the server must run on this machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3} SECONDS_EACH=${2:-15} CLIENTS=${3:-50}
SERVER=${DATABASE_URL:?set DATABASE_URL to a server this user may create databases on}
DB=gh_delivery_key_$$
URL="${SERVER%/*}/$DB"
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"; psql "$SERVER" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)"' EXIT
psql "$SERVER" -qc "CREATE DATABASE $DB"
DATABASE_URL=$URL node dist/src/cli.js migrate up >/dev/null
DATABASE_URL=$URL node dist/src/cli.js game:create "Delivery key" >/dev/null
GAME=$(psql "$URL" -Atc "SELECT id FROM games")
ENDPOINT=$(psql "$URL" -qAtc "INSERT INTO webhook_endpoints (id, game_id, url, secret) VALUES (gen_random_uuid(), '$GAME', 'https://example.com/hook', 'secret') RETURNING id")
psql "$URL" -q -v ON_ERROR_STOP=1 <<SQL
CREATE TABLE deliveries_keyed (LIKE webhook_deliveries INCLUDING ALL);
ALTER TABLE deliveries_keyed ADD FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints (id) ON DELETE CASCADE;
CREATE TABLE deliveries_unkeyed (LIKE webhook_deliveries INCLUDING ALL);
SQL
for t in keyed unkeyed; do
  cat > "$SCRATCH/$t.sql" <<SQL
\set n random(1, 100000000)
BEGIN;
INSERT INTO journal (id, game_id, group_id, action, target_id, payload, type, body, names)
VALUES (gen_random_uuid(), '$GAME', gen_random_uuid(), 'member.joined', 'player-:n', jsonb_build_object('userId', 'player-:n', 'status', 'active'),
        'member.joined', jsonb_build_object('id', substr(md5(random()::text), 1, 24), 'type', 'member.joined', 'data', jsonb_build_object('userId', 'player-:n')), ARRAY[1, 5, :n]);
INSERT INTO deliveries_$t (id, endpoint_id, event_id) VALUES (gen_random_uuid(), '$ENDPOINT', substr(md5(random()::text), 1, 24));
COMMIT;
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
  for t in keyed unkeyed; do
    psql "$URL" -qc CHECKPOINT; sleep 1
    w0=$(psql "$URL" -Atc "SELECT wal_bytes FROM pg_stat_wal"); c0=$(cpu)
    out=$(pgbench -n -c "$CLIENTS" -j 2 -T "$SECONDS_EACH" -f "$SCRATCH/$t.sql" "$URL" 2>&1)
    sleep 1
    w1=$(psql "$URL" -Atc "SELECT wal_bytes FROM pg_stat_wal"); c1=$(cpu)
    n=$(awk -F': ' '/actually processed/ { split($2, a, "/"); print a[1] }' <<<"$out")
    tps=$(grep -o 'tps = [0-9]*' <<<"$out" | head -1 | cut -d' ' -f3)
    awk -v r="$round" -v k="$t" -v tps="$tps" -v n="$n" -v w=$((w1 - w0)) -v c=$((c1 - c0)) -v ms="$TICK_MS" \
      'BEGIN { printf "round %s %-8s %6d transactions/s  %5d WAL bytes a transaction  %.3f ms PostgreSQL CPU a transaction\n", r, k, tps, w / n, c * ms / n }'
  done
done
