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
. bench/experiments/lib.sh
scratch_database gh_delivery_key_$$ "Delivery key"
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
for round in $(seq "$ROUNDS"); do
  for t in keyed unkeyed; do
    measure "$round" "$t" "$SCRATCH/$t.sql" 1 transaction
  done
done
