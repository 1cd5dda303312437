#!/usr/bin/env bash
# The journal of docs/design/write-path.md (section 3.1, step 5), measured before it is built: the
# audit entry and the event of one join as the flush writes them today (two rows into audit_entries
# and outbox_events, their keys, indexes and GIN expression indexes) against the same change as one
# journal row (the table migration Journal made, with the readers' indexes the design adds to it
# once it is read, a names array of 5 hashes, no keys), each a
# transaction of its own; then both with the member row of a join or a leave in the transaction (an
# upsert to active, then the update to left: one pgbench script, two requests). By pgbench on a
# scratch database, alternating, each run after a checkpoint. Prints per request: WAL bytes
# (pg_stat_wal) and PostgreSQL CPU (every postgres process on this machine, and what the postmaster
# reaped: run it on a quiet server of its own).
#   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bench/experiments/journal-row.sh [rounds] [seconds] [clients]
# Needs the build (dist/), psql and pgbench; the server must run on this machine.
# On a schema from JournalHistory (1.3.0) on, the old tables' triggers copy what `today` writes into
# the journal as well, so `today` measures more than it did when the design doc's figures were taken.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3} SECONDS_EACH=${2:-15} CLIENTS=${3:-50}
. bench/experiments/lib.sh
scratch_database gh_journal_row_$$ "Journal row"
seed_users_and_groups
psql "$URL" -q -v ON_ERROR_STOP=1 <<SQL
CREATE INDEX IF NOT EXISTS journal_game_audit ON journal (game_id, created_at DESC, id DESC) WHERE action IS NOT NULL;
CREATE INDEX IF NOT EXISTS journal_group_audit ON journal (group_id, created_at DESC, id DESC) WHERE action IS NOT NULL AND group_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS journal_game_feed ON journal (game_id, era, xid, seq) WHERE type IS NOT NULL;
CREATE INDEX IF NOT EXISTS journal_group_feed ON journal (group_id, era, xid, seq) WHERE type IS NOT NULL AND group_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS journal_names ON journal USING gin (names);
SQL
PAYLOAD="jsonb_build_object('memberId', gen_random_uuid(), 'userId', 'player-:n', 'status', 'active', 'via', 'join')"
BODY="jsonb_build_object('id', substr(md5(random()::text), 1, 24), 'type', 'member.joined', 'gameId', '$GAME', 'groupId', $GROUP, 'occurredAt', now(), 'data', jsonb_build_object('memberId', gen_random_uuid(), 'userId', 'player-:n', 'status', 'active', 'roles', '[]'::jsonb, 'joinedAt', now()))"
cat > "$SCRATCH/today.sql" <<SQL
\set g random(1, 1000)
\set n random(1, 100000000)
BEGIN;
INSERT INTO audit_entries (id, game_id, group_id, actor_user_id, action, target_id, payload) VALUES (gen_random_uuid(), '$GAME', $GROUP, NULL, 'member.joined', 'player-:n', $PAYLOAD);
INSERT INTO outbox_events (id, game_id, group_id, type, body) VALUES (substr(md5(random()::text), 1, 24), '$GAME', $GROUP, 'member.joined', $BODY);
COMMIT;
SQL
cat > "$SCRATCH/journal.sql" <<SQL
\set g random(1, 1000)
\set n random(1, 100000000)
\set h1 random(-2147483648, 2147483647)
\set h2 random(-2147483648, 2147483647)
\set h3 random(-2147483648, 2147483647)
BEGIN;
INSERT INTO journal (id, game_id, group_id, actor_user_id, action, target_id, payload, type, body, names) VALUES (gen_random_uuid(), '$GAME', $GROUP, NULL, 'member.joined', 'player-:n', $PAYLOAD, 'member.joined', $BODY, ARRAY[:h1, :h2, :h3, 7, 11]);
COMMIT;
SQL
JOIN="INSERT INTO members AS m (id, group_id, user_id, external_user_id, status) VALUES (gen_random_uuid(), $GROUP, $USER_ID, 'player-:u', 'active')
  ON CONFLICT (group_id, user_id) DO UPDATE SET status = 'active', left_at = NULL WHERE m.status IN ('left', 'kicked', 'invited');"
LEAVE="UPDATE members m SET status = 'left', left_at = now() WHERE m.group_id = $GROUP AND m.user_id = $USER_ID AND m.status = 'active';"
for kind in today journal; do
  change=$(sed -n '/^INSERT/p' "$SCRATCH/$kind.sql")
  { grep '^\\set' "$SCRATCH/$kind.sql"; echo '\set u random(1, 100000)'
    printf 'BEGIN;\n%s\n%s\nCOMMIT;\nBEGIN;\n%s\n%s\nCOMMIT;\n' "$JOIN" "$change" "$LEAVE" "$change"; } > "$SCRATCH/$kind+member.sql"
done
for round in $(seq "$ROUNDS"); do
  for kind in today journal today+member journal+member; do
    per=1; [[ $kind == *+member ]] && per=2 # a join and a leave, each a transaction
    measure "$round" "$kind" "$SCRATCH/$kind.sql" "$per" request
  done
done
