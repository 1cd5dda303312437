#!/usr/bin/env bash
# The reference high-availability deployment on one machine (docs/high-availability.md): one etcd,
# three PostgreSQL 15 nodes under Patroni (synchronous_mode), HAProxy with a primary and a replica
# port, and two Guildhall instances writing through the primary port. Renders deploy/ha/templates
# into a base folder for a port range, then starts or stops every process as the current user
# (PostgreSQL refuses root: as root, Patroni and PostgreSQL run as the `postgres` account).
#
#   deploy/ha/ha.sh start   --base DIR [--port FIRST] [--guildhall-env FILE]
#   deploy/ha/ha.sh stop    --base DIR      every process, the data kept
#   deploy/ha/ha.sh destroy --base DIR      stop, then remove DIR
#   deploy/ha/ha.sh info    --base DIR      addresses, ports and pids as KEY=VALUE lines
#   deploy/ha/ha.sh patronictl --base DIR -- ARGS...   patronictl on this cluster
#
# Ports, from FIRST (default 25400): etcd +0 (peer +1); PostgreSQL +11..+13; Patroni REST +21..+23;
# HAProxy primary +30, replicas +31, stats +32; Guildhall +41, +42.
# Needs Debian's patroni, python3-etcd, etcd-server, haproxy and postgresql-15: scripts/ha-tools.sh,
# and the built service (npm run build) for the Guildhall instances.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TEMPLATES="$HERE/templates"
PG_BIN=/usr/lib/postgresql/15/bin
SCOPE=guildhall-ha
NODES=(node1 node2 node3)
WAIT_S=${HA_WAIT_S:-120}

die() { echo "ha.sh: $*" >&2; exit 1; }

cmd=${1:-}; shift || true
BASE=""; FIRST=25400; EXTRA_ENV=""; PASSTHROUGH=()
while [ $# -gt 0 ]; do
  case "$1" in
    --base) BASE=$2; shift 2 ;;
    --port) FIRST=$2; shift 2 ;;
    --guildhall-env) EXTRA_ENV=$2; shift 2 ;;
    --) shift; PASSTHROUGH=("$@"); break ;;
    *) die "unknown argument $1 (see the header of $0)" ;;
  esac
done
[ -n "$cmd" ] || die "usage: $0 start|stop|destroy|info|patronictl --base DIR [--port FIRST]"
[ -n "$BASE" ] || die "--base DIR is required"
mkdir -p "$BASE"
BASE="$(cd "$BASE" && pwd)"
RUN="$BASE/run"; LOG="$BASE/log"; CONF="$BASE/conf"
# The port range is fixed at the first start: later commands read it back.
[ -f "$RUN/ports" ] && FIRST=$(cat "$RUN/ports")

ETCD_PORT=$FIRST; ETCD_PEER_PORT=$((FIRST + 1))
pg_port() { echo $((FIRST + 10 + $1)); }
rest_port() { echo $((FIRST + 20 + $1)); }
HAPROXY_PRIMARY_PORT=$((FIRST + 30)); HAPROXY_REPLICA_PORT=$((FIRST + 31)); HAPROXY_STATS_PORT=$((FIRST + 32))
gh_port() { echo $((FIRST + 40 + $1)); }

# PostgreSQL and Patroni: the current user, or `postgres` when that is root.
SERVER_USER=""
if [ "$(id -u)" -eq 0 ]; then
  id -u postgres >/dev/null 2>&1 || { groupadd -f -r postgres && useradd -r -g postgres -M -s /usr/sbin/nologin postgres; }
  SERVER_USER=postgres
fi
AS_SERVER=()
[ -n "$SERVER_USER" ] && AS_SERVER=(setpriv --reuid="$SERVER_USER" --regid="$SERVER_USER" --init-groups --)
as_server() { "${AS_SERVER[@]}" "$@"; }
own() { if [ -n "$SERVER_USER" ]; then chown -R "$SERVER_USER:$SERVER_USER" "$@"; fi; }

secrets() {
  if [ ! -f "$RUN/secrets.env" ]; then
    umask 077
    {
      echo "PG_SUPERUSER_PASSWORD=$(openssl rand -hex 16)"
      echo "PG_REPLICATION_PASSWORD=$(openssl rand -hex 16)"
      echo "GUILDHALL_DB_PASSWORD=$(openssl rand -hex 16)"
      echo "SVC_ADMIN_TOKEN=${SVC_ADMIN_TOKEN:-jadm_$(openssl rand -hex 20)}"
    } >"$RUN/secrets.env"
    umask 022
  fi
  # shellcheck disable=SC1091
  . "$RUN/secrets.env"
}

render() { # template, destination, then KEY=VALUE pairs
  local src=$1 dst=$2; shift 2
  local text; text=$(cat "$TEMPLATES/$src")
  local pair
  for pair in "$@" BASE="$BASE" SCOPE="$SCOPE" ETCD_PORT="$ETCD_PORT" ETCD_PEER_PORT="$ETCD_PEER_PORT" \
    HAPROXY_PRIMARY_PORT="$HAPROXY_PRIMARY_PORT" HAPROXY_REPLICA_PORT="$HAPROXY_REPLICA_PORT" HAPROXY_STATS_PORT="$HAPROXY_STATS_PORT" \
    PG_SUPERUSER_PASSWORD="$PG_SUPERUSER_PASSWORD" PG_REPLICATION_PASSWORD="$PG_REPLICATION_PASSWORD" \
    GUILDHALL_DB_PASSWORD="$GUILDHALL_DB_PASSWORD" SVC_ADMIN_TOKEN="$SVC_ADMIN_TOKEN"; do
    text=${text//@${pair%%=*}@/${pair#*=}}
  done
  if grep -q '@[A-Z_0-9]*@' <<<"$text"; then die "$src: unrendered placeholder $(grep -o '@[A-Z_0-9]*@' <<<"$text" | head -1)"; fi
  printf '%s\n' "$text" >"$dst"
}

render_all() {
  render etcd.yml "$CONF/etcd.yml"
  local i
  for i in 1 2 3; do
    render patroni.yml "$CONF/node$i.yml" NODE="node$i" PG_PORT="$(pg_port "$i")" REST_PORT="$(rest_port "$i")"
  done
  render haproxy.cfg "$CONF/haproxy.cfg" PG_PORT_1="$(pg_port 1)" PG_PORT_2="$(pg_port 2)" PG_PORT_3="$(pg_port 3)" \
    REST_PORT_1="$(rest_port 1)" REST_PORT_2="$(rest_port 2)" REST_PORT_3="$(rest_port 3)"
  for i in 1 2; do
    render guildhall.env "$CONF/guildhall$i.env" GUILDHALL_PORT="$(gh_port "$i")"
    if [ -n "$EXTRA_ENV" ]; then cat "$EXTRA_ENV" >>"$CONF/guildhall$i.env"; fi
  done
  chmod 600 "$CONF"/*
  own "$CONF"/node*.yml
}

# Starts a program in a session of its own (stop signals its whole process group), output to LOG/NAME.log.
launch() { # name, then the command
  local name=$1; shift
  if alive "$name"; then return 0; fi
  setsid "$@" >>"$LOG/$name.log" 2>&1 </dev/null &
  echo $! >"$RUN/$name.pid"
}
pid_of() { cat "$RUN/$1.pid" 2>/dev/null || true; }
alive() { local p; p=$(pid_of "$1"); [ -n "$p" ] && kill -0 "$p" 2>/dev/null; }

wait_for() { # description, then a command that succeeds when ready
  local what=$1; shift
  local deadline=$((SECONDS + WAIT_S))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || { tail_logs; die "$what: not ready within ${WAIT_S} s"; }
    sleep 0.5
  done
}
tail_logs() { local f; for f in "$LOG"/*.log; do echo "== $f" >&2; tail -n 30 "$f" >&2 || true; done; }

http_ok() { [ "$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$1")" = 200 ]; }
one_primary() { local i; for i in 1 2 3; do http_ok "http://127.0.0.1:$(rest_port "$i")/primary" && return 0; done; return 1; }
one_sync() { local i; for i in 1 2 3; do http_ok "http://127.0.0.1:$(rest_port "$i")/sync" && return 0; done; return 1; }
all_running() { local i; for i in 1 2 3; do http_ok "http://127.0.0.1:$(rest_port "$i")/health" || return 1; done; }
superuser_url() { echo "postgres://postgres:$PG_SUPERUSER_PASSWORD@127.0.0.1:$HAPROXY_PRIMARY_PORT/${1:-postgres}"; }
psql_primary() { psql "$(superuser_url "${2:-postgres}")" -v ON_ERROR_STOP=1 -qtAc "$1"; }

start() {
  for p in patroni patronictl etcd haproxy; do command -v "$p" >/dev/null || die "$p is missing: run scripts/ha-tools.sh"; done
  [ -x "$PG_BIN/postgres" ] || die "$PG_BIN is missing: run scripts/ha-tools.sh"
  [ -f "$ROOT/dist/src/main.js" ] || die "$ROOT/dist/src/main.js is missing: run npm run build"
  mkdir -p "$RUN" "$LOG" "$CONF" "$BASE/data" "$BASE/etcd"
  echo "$FIRST" >"$RUN/ports"
  # The server account walks into BASE (even when it sits in a private temporary folder's child).
  chmod 755 "$BASE"
  secrets
  render_all
  own "$RUN" "$LOG" "$BASE/data"
  chmod 700 "$BASE/data" "$BASE/etcd"

  launch etcd etcd --config-file "$CONF/etcd.yml"
  wait_for "etcd" http_ok "http://127.0.0.1:$ETCD_PORT/health"

  local i
  for i in 1 2 3; do
    mkdir -p "$LOG/node$i-pg"; own "$LOG/node$i-pg"
    launch "node$i" "${AS_SERVER[@]}" patroni "$CONF/node$i.yml"
    # The first node bootstraps the cluster; the others copy it (pg_basebackup) once it is up.
    [ "$i" = 1 ] && wait_for "the first Patroni node's primary" one_primary
  done
  wait_for "three running nodes" all_running
  wait_for "a synchronous standby" one_sync

  launch haproxy haproxy -W -db -f "$CONF/haproxy.cfg"
  wait_for "HAProxy's primary port" psql_primary 'SELECT 1'

  if [ "$(psql_primary "SELECT count(*) FROM pg_roles WHERE rolname = 'guildhall'")" = 0 ]; then
    psql_primary "CREATE ROLE guildhall LOGIN PASSWORD '$GUILDHALL_DB_PASSWORD'"
    psql_primary "CREATE DATABASE guildhall OWNER guildhall"
    # The search extensions need a superuser once; the service's migrations then find them.
    psql_primary "CREATE EXTENSION IF NOT EXISTS pg_trgm; CREATE EXTENSION IF NOT EXISTS unaccent; CREATE EXTENSION IF NOT EXISTS btree_gin" guildhall
  fi

  for i in 1 2; do
    # Only what the env file says: nothing of this shell's environment leaks into the service.
    launch "guildhall$i" env -i PATH="$PATH" HOME="${HOME:-/}" bash -c \
      "set -a; . '$CONF/guildhall$i.env'; set +a; cd '$ROOT'; exec node dist/src/main.js"
    # The first one applies the migrations; the second starts once they are in.
    wait_for "Guildhall instance $i" http_ok "http://127.0.0.1:$(gh_port "$i")/healthz"
  done
  info
}

stop_one() { # name, seconds to wait after SIGTERM before SIGKILL
  local name=$1 grace=$2 p
  p=$(pid_of "$name")
  [ -n "$p" ] || return 0
  kill -TERM "$p" 2>/dev/null || true
  local deadline=$((SECONDS + grace))
  while kill -0 "$p" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  kill -KILL -- "-$p" 2>/dev/null || true
  kill -KILL "$p" 2>/dev/null || true
  rm -f "$RUN/$name.pid"
}

stop() {
  [ -d "$RUN" ] || return 0
  stop_one guildhall1 35 & stop_one guildhall2 35 & wait
  stop_one haproxy 5
  local i
  for i in 1 2 3; do stop_one "node$i" 30 & done
  wait
  # A PostgreSQL that outlived its Patroni (started in a session of its own) is stopped by its data folder.
  for i in 1 2 3; do
    local data="$BASE/data/node$i"
    if [ -f "$data/postmaster.pid" ]; then
      as_server "$PG_BIN/pg_ctl" -D "$data" -m immediate -w -t 20 stop >/dev/null 2>&1 || {
        local pm; pm=$(head -1 "$data/postmaster.pid" 2>/dev/null || true)
        [ -n "$pm" ] && kill -KILL "$pm" 2>/dev/null || true
      }
    fi
  done
  stop_one etcd 10
}

info() {
  secrets
  local i
  echo "BASE=$BASE"
  echo "ETCD_URL=http://127.0.0.1:$ETCD_PORT"
  echo "PRIMARY_URL=$(superuser_url)"
  echo "REPLICA_URL=postgres://postgres:$PG_SUPERUSER_PASSWORD@127.0.0.1:$HAPROXY_REPLICA_PORT/postgres"
  echo "GUILDHALL_DATABASE_URL=$(superuser_url guildhall)"
  echo "HAPROXY_STATS_URL=http://127.0.0.1:$HAPROXY_STATS_PORT/"
  echo "SVC_ADMIN_TOKEN=$SVC_ADMIN_TOKEN"
  for i in 1 2 3; do
    echo "NODE${i}_PG_PORT=$(pg_port "$i")"
    echo "NODE${i}_REST_URL=http://127.0.0.1:$(rest_port "$i")"
    echo "NODE${i}_DATA=$BASE/data/node$i"
  done
  for i in 1 2; do echo "GUILDHALL${i}_URL=http://127.0.0.1:$(gh_port "$i")"; done
  echo "PATRONI_CONFIG=$CONF/node1.yml"
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  destroy) stop; rm -rf "$BASE" ;;
  info) info ;;
  patronictl) patronictl -c "$CONF/node1.yml" "${PASSTHROUGH[@]}" ;;
  *) die "unknown command $cmd: start, stop, destroy, info or patronictl" ;;
esac
