#!/usr/bin/env bash
# The floor under issue 48's CPU target (docs/design/write-path.md, step 12): what PostgreSQL spends
# on a join or a leave that writes only what the schema must hold for it (the member row under its
# indexes and counter trigger, and one journal row under its indexes), with no read, no lock and no
# check, beside pgbench's TPC-B-like transaction on the same server, in the same rounds. Both run
# prepared (-M prepared), as the service's statements do. By pgbench on a scratch database,
# alternating, each run after a checkpoint. Prints per request (a join or a leave, each a
# transaction; a TPC-B transaction): WAL bytes (pg_stat_wal) and PostgreSQL CPU (every postgres
# process on this machine, and what the postmaster reaped: run it on a quiet server of its own).
#   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bench/experiments/write-floor.sh [rounds] [seconds] [clients]
# Needs the build (dist/), psql and pgbench; the server must run on this machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3} SECONDS_EACH=${2:-15} CLIENTS=${3:-50}
PGBENCH_MODE=prepared
. bench/experiments/lib.sh
scratch_database gh_write_floor_$$ "Write floor"
seed_users_and_groups
# The same ids, their variables typed: a prepared statement's parameters have no type to guess from.
GROUP=${GROUP//(:g)/(:g::int)}
USER_ID=${USER_ID//(:u)/(:u::int)}
tpcb_script
# A member.joined / member.left journal row as the flush writes it (7 names: the change's own).
ROW="INSERT INTO journal (id, game_id, group_id, actor_user_id, action, target_id, payload, type, body, names)
  VALUES (gen_random_uuid(), '$GAME', $GROUP, $USER_ID, 'KIND', 'player-' || :u::text, jsonb_build_object('memberId', gen_random_uuid(), 'userId', 'player-' || :u::text, 'via', 'join'),
          'KIND', jsonb_build_object('id', substr(md5(random()::text), 1, 24), 'type', 'KIND', 'gameId', '$GAME', 'groupId', $GROUP, 'occurredAt', now(),
          'data', jsonb_build_object('memberId', gen_random_uuid(), 'userId', 'player-' || :u::text, 'status', 'active', 'roles', '[]'::jsonb, 'joinedAt', now())),
          ARRAY[:h1::int, :h2::int, :h3::int, :h4::int, :h5::int, :h6::int, :h7::int]);"
cat > "$SCRATCH/floor.sql" <<SQL
\set g random(1, 1000)
\set u random(1, 100000)
$(for i in 1 2 3 4 5 6 7; do echo "\\set h$i random(-2147483648, 2147483647)"; done)
BEGIN;
INSERT INTO members AS m (id, group_id, user_id, external_user_id, status) VALUES (gen_random_uuid(), $GROUP, $USER_ID, 'player-' || :u::text, 'active')
  ON CONFLICT (group_id, user_id) DO UPDATE SET status = 'active', left_at = NULL WHERE m.status IN ('left', 'kicked', 'invited');
${ROW//KIND/member.joined}
COMMIT;
BEGIN;
UPDATE members m SET status = 'left', left_at = now() WHERE m.group_id = $GROUP AND m.user_id = $USER_ID AND m.status = 'active';
${ROW//KIND/member.left}
COMMIT;
SQL
for round in $(seq "$ROUNDS"); do
  measure "$round" tpcb "$SCRATCH/tpcb.sql" 1 request
  measure "$round" floor "$SCRATCH/floor.sql" 2 request
done
