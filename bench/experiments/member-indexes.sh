#!/usr/bin/env bash
# The member row's indexes (docs/design/write-path.md, step 5b): a join and a leave of the member
# row alone, against the table with the indexes of 1.4.0 (members_group_order and
# members_group_spans) and with those of MemberSpansInOrder1767500000000 (members_group_joined in
# their place). Two copies of `members` on a scratch database, each with 200,000 memberships over
# 1,000 groups and the member counter's trigger; by pgbench, alternating, each run after a
# checkpoint. Prints per request (a join or a leave, each a transaction): WAL bytes (pg_stat_wal)
# and PostgreSQL CPU (every postgres process on this machine, and what the postmaster reaped: run
# it on a quiet server of its own).
#   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bench/experiments/member-indexes.sh [rounds] [seconds] [clients]
# The statements are the service's (ACTIVATE_CONFLICT and the leave's update, src/members).
# Needs the build (dist/), psql and pgbench; the server must run on this machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3} SECONDS_EACH=${2:-15} CLIENTS=${3:-50}
. bench/experiments/lib.sh
scratch_database gh_member_indexes_$$ "Member indexes"
seed_users_and_groups
psql "$URL" -q -v ON_ERROR_STOP=1 <<SQL
-- Both copies alike but for the indexes in question: no keys (a join or a leave writes none that
-- are checked once the row exists), the counter's trigger.
CREATE TABLE members_now (LIKE members INCLUDING ALL);
CREATE TABLE members_before (LIKE members INCLUDING ALL);
DROP INDEX members_before_group_id_joined_at_id_status_left_at_idx;
CREATE INDEX ON members_before (group_id, joined_at DESC, id DESC);
CREATE INDEX ON members_before (group_id) INCLUDE (status, joined_at, left_at);
CREATE TRIGGER counted AFTER INSERT OR DELETE OR UPDATE OF status ON members_now FOR EACH ROW EXECUTE FUNCTION members_active_count();
CREATE TRIGGER counted AFTER INSERT OR DELETE OR UPDATE OF status ON members_before FOR EACH ROW EXECUTE FUNCTION members_active_count();
INSERT INTO members_now (id, group_id, user_id, external_user_id, status, joined_at, left_at)
SELECT gen_random_uuid(), ('01a22bc3-0000-7000-8000-' || lpad(to_hex(1 + i % 1000), 12, '0'))::uuid,
       ('01a22bc3-1111-7000-8000-' || lpad(to_hex(1 + i / 2), 12, '0'))::uuid, 'player-' || (1 + i / 2), 'left',
       now() - i * interval '1 second', now() - i * interval '1 second' + interval '1 hour'
FROM generate_series(0, 199999) i;
INSERT INTO members_before SELECT * FROM members_now;
DELETE FROM group_member_count_deltas;
VACUUM ANALYZE members_now;
VACUUM ANALYZE members_before;
SQL
for t in now before; do
  cat > "$SCRATCH/$t.sql" <<SQL
\set g random(1, 1000)
\set u random(1, 100000)
BEGIN;
INSERT INTO members_$t AS m (id, group_id, user_id, external_user_id, status) VALUES (gen_random_uuid(), $GROUP, $USER_ID, 'player-:u', 'active')
  ON CONFLICT (group_id, user_id) DO UPDATE SET status = 'active', left_at = NULL, banned_until = NULL WHERE m.status IN ('left', 'kicked', 'invited');
COMMIT;
BEGIN;
UPDATE members_$t m SET status = 'left', left_at = now() WHERE m.group_id = $GROUP AND m.user_id = $USER_ID AND m.status = 'active';
COMMIT;
SQL
done
for round in $(seq "$ROUNDS"); do
  for t in before now; do
    measure "$round" "$t" "$SCRATCH/$t.sql" 2 request # a join and a leave, each a transaction
  done
done
