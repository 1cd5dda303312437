#!/usr/bin/env bash
# What batching would buy under issue 48's CPU target (docs/design/write-path.md, step 13): the bare
# writes of write-floor.sh (a join upserts the member row and inserts its journal row; a leave
# updates the row and inserts its journal row; no read, lock or check), k changes of k players in
# one statement and one transaction, for k = 1 and each of BATCHES. The same SQL text at every k,
# so the difference is what a statement and a transaction cost whatever rows they write, shared by
# k. Beside pgbench's TPC-B-like transaction, alternating, prepared, each run after a checkpoint;
# prints per request (one join or one leave) WAL bytes and PostgreSQL CPU. Run it on a quiet
# server of its own on this machine.
#   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bench/experiments/write-batch.sh [rounds] [seconds] [clients] [batches]
# Needs the build (dist/), psql and pgbench.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-2} SECONDS_EACH=${2:-12} CLIENTS=${3:-10} BATCHES=${4:-"4 16"}
PGBENCH_MODE=prepared
. bench/experiments/lib.sh
scratch_database gh_write_batch_$$ "Write batch"
seed_users_and_groups
tpcb_script
GROUP_X=${GROUP//(:g)/(x.g)}
USER_X=${USER_ID//(:u)/(x.u)}
NAME="(random() * 4294967295 - 2147483648)::int"
# One journal row a change of x, as the flush writes it (7 names, the change's own).
journal() {
  echo "INSERT INTO journal (id, game_id, group_id, actor_user_id, action, target_id, payload, type, body, names)
  SELECT gen_random_uuid(), '$GAME', $GROUP_X, $USER_X, '$1', 'player-' || x.u, jsonb_build_object('memberId', gen_random_uuid(), 'userId', 'player-' || x.u, 'via', 'join'),
         '$1', jsonb_build_object('id', substr(md5(random()::text), 1, 24), 'type', '$1', 'gameId', '$GAME', 'groupId', $GROUP_X, 'occurredAt', now(),
         'data', jsonb_build_object('memberId', gen_random_uuid(), 'userId', 'player-' || x.u, 'status', 'active', 'roles', '[]'::jsonb, 'joinedAt', now())),
         ARRAY[$NAME, $NAME, $NAME, $NAME, $NAME, $NAME, $NAME] FROM x"
}
# batch <k>: a pgbench script that joins k players to k groups in one transaction, then has them
# leave in a second. Each client takes its own slice of the users, so no two batches meet on a row.
batch() {
  local k=$1 i gs="" us=""
  for i in $(seq "$k"); do
    echo "\\set g$i random(1, 1000)"
    echo "\\set u$i (:client_id * $k + $i - 1) * 100000 / ($CLIENTS * $k) + random(1, 100000 / ($CLIENTS * $k))"
    gs+="${gs:+, }:g$i::int"; us+="${us:+, }:u$i::int"
  done
  local x="x AS (SELECT * FROM unnest(ARRAY[$gs], ARRAY[$us]) AS x(g, u))"
  cat <<SQL
BEGIN;
WITH $x, m AS (INSERT INTO members AS m (id, group_id, user_id, external_user_id, status)
  SELECT gen_random_uuid(), $GROUP_X, $USER_X, 'player-' || x.u, 'active' FROM x
  ON CONFLICT (group_id, user_id) DO UPDATE SET status = 'active', left_at = NULL WHERE m.status IN ('left', 'kicked', 'invited') RETURNING 1)
$(journal member.joined);
COMMIT;
BEGIN;
WITH $x, m AS (UPDATE members m SET status = 'left', left_at = now() FROM x
  WHERE m.group_id = $GROUP_X AND m.user_id = $USER_X AND m.status = 'active' RETURNING 1)
$(journal member.left);
COMMIT;
SQL
}
for k in 1 $BATCHES; do batch "$k" > "$SCRATCH/batch$k.sql"; done
for round in $(seq "$ROUNDS"); do
  measure "$round" tpcb "$SCRATCH/tpcb.sql" 1 request
  for k in 1 $BATCHES; do measure "$round" "batch of $k" "$SCRATCH/batch$k.sql" $((2 * k)) request; done
done
