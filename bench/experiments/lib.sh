# What every experiment here shares (sourced, not run): a scratch database migrated by the build,
# with one game, dropped on exit; and `measure`, one pgbench run after a checkpoint with its WAL
# (pg_stat_wal) and the PostgreSQL CPU it took (every postgres process on this machine, and what
# the postmaster reaped: run it on a quiet server of its own).
# The script sourcing it sets ROUNDS, SECONDS_EACH and CLIENTS (and PGBENCH_MODE, pgbench's -M, when its
# statements run prepared), then calls `scratch_database`.

# scratch_database <database name> <game name>: sets URL, GAME and SCRATCH (a temporary directory).
scratch_database() {
  SERVER=${DATABASE_URL:?set DATABASE_URL to a server this user may create databases on}
  DB=$1
  URL="${SERVER%/*}/$DB"
  SCRATCH=$(mktemp -d)
  trap 'rm -rf "$SCRATCH"; psql "$SERVER" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)"' EXIT
  psql "$SERVER" -qc "CREATE DATABASE $DB"
  DATABASE_URL=$URL node dist/src/cli.js migrate up >/dev/null
  DATABASE_URL=$URL node dist/src/cli.js game:create "$2" >/dev/null
  GAME=$(psql "$URL" -Atc "SELECT id FROM games")
  measured_server
}

# measured_server: sets POSTMASTER (the pid of URL's server) and TICK_MS, which `measure` reads.
measured_server() {
  POSTMASTER=$(psql "$URL" -Atc "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'" | xargs ps -o ppid= -p | tr -d ' ')
  TICK_MS=$((1000 / $(getconf CLK_TCK)))
}

# seed_users_and_groups: 100,000 users and 1,000 groups of GAME, which a pgbench script names by :u
# and :g through the SQL expressions USER_ID and GROUP.
seed_users_and_groups() {
  GROUP="('01a22bc3-0000-7000-8000-' || lpad(to_hex(:g), 12, '0'))::uuid"
  USER_ID="('01a22bc3-1111-7000-8000-' || lpad(to_hex(:u), 12, '0'))::uuid"
  psql "$URL" -q -v ON_ERROR_STOP=1 <<SQL
INSERT INTO users (id) SELECT ('01a22bc3-1111-7000-8000-' || lpad(to_hex(u), 12, '0'))::uuid FROM generate_series(1, 100000) u;
INSERT INTO groups (id, game_id, kind, name, visibility, search_name)
SELECT ('01a22bc3-0000-7000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, '$GAME', 'guild', 'g' || g, 'public', 'g' || g FROM generate_series(1, 1000) g;
SQL
}

# tpcb_script: pgbench's tables at scale 10 in URL, and its built-in TPC-B-like transaction as the
# file $SCRATCH/tpcb.sql, so that `measure` runs it like the others.
tpcb_script() {
  pgbench -i -q -s 10 "$URL" >/dev/null 2>&1
  cat > "$SCRATCH/tpcb.sql" <<'SQL'
\set aid random(1, 100000 * 10)
\set bid random(1, 1 * 10)
\set tid random(1, 10 * 10)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
SQL
}

cpu() { # clock ticks of every postgres process, and of those the postmaster reaped
  local t=0 s
  for p in $(pgrep -x postgres); do
    read -r -a s < <(cut -d' ' -f14-17 "/proc/$p/stat" 2>/dev/null) || continue
    t=$((t + s[0] + s[1])); [ "$p" = "$POSTMASTER" ] && t=$((t + s[2] + s[3]))
  done
  echo $t
}

# measure <round> <label> <pgbench script> <units a transaction> <unit>: prints the units a second,
# and WAL bytes and PostgreSQL CPU a unit.
measure() {
  local round=$1 label=$2 script=$3 per=$4 unit=$5 w0 c0 w1 c1 out n tps
  psql "$URL" -qc CHECKPOINT; sleep 1
  w0=$(psql "$URL" -Atc "SELECT wal_bytes FROM pg_stat_wal"); c0=$(cpu)
  out=$(pgbench -n ${PGBENCH_MODE:+-M "$PGBENCH_MODE"} -c "$CLIENTS" -j 2 -T "$SECONDS_EACH" -f "$script" "$URL" 2>&1)
  sleep 1
  w1=$(psql "$URL" -Atc "SELECT wal_bytes FROM pg_stat_wal"); c1=$(cpu)
  n=$(awk -F': ' -v per="$per" '/actually processed/ { split($2, a, "/"); print a[1] * per }' <<<"$out")
  tps=$(grep -o 'tps = [0-9]*' <<<"$out" | head -1 | cut -d' ' -f3); tps=$((tps * per))
  awk -v r="$round" -v k="$label" -v tps="$tps" -v n="$n" -v w=$((w1 - w0)) -v c=$((c1 - c0)) -v ms="$TICK_MS" -v u="$unit" \
    'BEGIN { printf "round %s %-15s %6d %ss/s  %5d WAL bytes a %s  %.3f ms PostgreSQL CPU a %s\n", r, k, tps, u, w / n, u, c * ms / n, u }'
}
