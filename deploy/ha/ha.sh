#!/usr/bin/env bash
# The reference high-availability deployment across hosts (docs/high-availability.md): three etcd
# members, three PostgreSQL 15 nodes under Patroni (synchronous_mode, WAL archived), HAProxy with a
# primary and a replica port, and two Guildhall instances writing through the primary port. Each
# role has its own address, from a cluster file (cluster.example.env shows every variable).
#
#   deploy/ha/ha.sh render --cluster FILE --out DIR [--guildhall-env FILE]
#       renders every role's configuration into DIR/ROLE/ (and patronictl's and Prometheus's into
#       DIR/) and generates the secrets once into DIR/secrets.env; every file that holds a secret is
#       mode 0600. Copy DIR/cluster.env and DIR/ROLE/ to the host that runs ROLE; DIR as a whole
#       stays on the admin host.
#   deploy/ha/ha.sh run ROLE --dir DIR
#       runs ROLE (etcd1..3, node1..3, haproxy, guildhall1..2) in the foreground, as a systemd unit
#       would: the program replaces this script, so its pid is the one the caller started.
#   deploy/ha/ha.sh bootstrap --dir DIR     once, on the admin host: the guildhall role and database
#   deploy/ha/ha.sh check --dir DIR         every role answering as it should; non-zero otherwise
#   deploy/ha/ha.sh info --dir DIR          addresses, and where the secrets are (never the secrets)
#   deploy/ha/ha.sh patronictl --dir DIR -- ARGS...   patronictl on this cluster, from the admin host
#
# Needs Debian's patroni, python3-etcd, etcd-server, haproxy and postgresql-15 (scripts/ha-tools.sh)
# and, for the Guildhall roles, the built service (npm run build). As root, PostgreSQL and Patroni
# run as the `postgres` account (PostgreSQL refuses root).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TEMPLATES="$HERE/templates"
PG_BIN=/usr/lib/postgresql/15/bin
ROLES=(etcd1 etcd2 etcd3 node1 node2 node3 haproxy guildhall1 guildhall2)
HOST_VARS=(ETCD1_HOST ETCD2_HOST ETCD3_HOST NODE1_HOST NODE2_HOST NODE3_HOST HAPROXY_HOST GUILDHALL1_HOST GUILDHALL2_HOST)
SECRET_NAMES=(PG_SUPERUSER_PASSWORD PG_REPLICATION_PASSWORD GUILDHALL_DB_PASSWORD PATRONI_REST_PASSWORD SVC_ADMIN_TOKEN)

die() { echo "ha.sh: $*" >&2; exit 1; }

cmd=${1:-}; shift || true
ROLE=""
if [ "$cmd" = run ]; then ROLE=${1:-}; shift || true; fi
CLUSTER=""; DIR=""; EXTRA_ENV=""; PASSTHROUGH=()
while [ $# -gt 0 ]; do
  case "$1" in
    --cluster) CLUSTER=$2; shift 2 ;;
    --out | --dir) DIR=$2; shift 2 ;;
    --guildhall-env) EXTRA_ENV=$2; shift 2 ;;
    --) shift; PASSTHROUGH=("$@"); break ;;
    *) die "unknown argument $1 (see the header of $0)" ;;
  esac
done
[ -n "$cmd" ] || die "usage: $0 render|run|bootstrap|check|info|patronictl (see the header of $0)"
[ -n "$DIR" ] || die "--dir DIR (or --out DIR) is required"

load_cluster() { # the cluster file, with the defaults of what it leaves out
  [ -f "$1" ] || die "$1: no such cluster file"
  # shellcheck disable=SC1090
  . "$1"
  local v
  for v in "${HOST_VARS[@]}" DATA_DIR WAL_ARCHIVE; do [ -n "${!v:-}" ] || die "$1 does not set $v"; done
  SCOPE=${SCOPE:-guildhall-ha}
  ETCD_CLIENT_PORT=${ETCD_CLIENT_PORT:-2379}; ETCD_PEER_PORT=${ETCD_PEER_PORT:-2380}
  PG_PORT=${PG_PORT:-5432}; PATRONI_PORT=${PATRONI_PORT:-8008}
  HAPROXY_PRIMARY_PORT=${HAPROXY_PRIMARY_PORT:-5000}; HAPROXY_REPLICA_PORT=${HAPROXY_REPLICA_PORT:-5001}
  HAPROXY_STATS_PORT=${HAPROXY_STATS_PORT:-8404}; GUILDHALL_PORT=${GUILDHALL_PORT:-8787}
}

load_secrets() {
  [ -f "$DIR/secrets.env" ] || die "$DIR/secrets.env is missing: this command runs on the admin host, where render wrote it"
  # shellcheck disable=SC1091
  . "$DIR/secrets.env"
}

make_secrets() {
  [ -f "$DIR/secrets.env" ] && return 0
  (
    umask 077
    echo "PG_SUPERUSER_PASSWORD=$(openssl rand -hex 16)"
    echo "PG_REPLICATION_PASSWORD=$(openssl rand -hex 16)"
    echo "GUILDHALL_DB_PASSWORD=$(openssl rand -hex 16)"
    echo "PATRONI_REST_PASSWORD=$(openssl rand -hex 16)"
    echo "SVC_ADMIN_TOKEN=${SVC_ADMIN_TOKEN:-jadm_$(openssl rand -hex 20)}"
  ) >"$DIR/secrets.env.new"
  chmod 600 "$DIR/secrets.env.new"
  mv "$DIR/secrets.env.new" "$DIR/secrets.env"
}

render() { # template, destination, then KEY=VALUE pairs for this role
  local src=$1 dst=$2; shift 2
  local text pair v
  text=$(cat "$TEMPLATES/$src")
  local common=(SCOPE="$SCOPE" DATA_DIR="$DATA_DIR" WAL_ARCHIVE="$WAL_ARCHIVE")
  for v in "${HOST_VARS[@]}" ETCD_CLIENT_PORT ETCD_PEER_PORT PG_PORT PATRONI_PORT HAPROXY_PRIMARY_PORT \
    HAPROXY_REPLICA_PORT HAPROXY_STATS_PORT GUILDHALL_PORT "${SECRET_NAMES[@]}"; do
    common+=("$v=${!v}")
  done
  for pair in "$@" "${common[@]}"; do
    text=${text//@${pair%%=*}@/${pair#*=}}
  done
  if grep -q '@[A-Z_0-9]*@' <<<"$text"; then die "$src: unrendered placeholder $(grep -o '@[A-Z_0-9]*@' <<<"$text" | head -1)"; fi
  (umask 077 && mkdir -p "$(dirname "$dst")")
  (umask 077 && printf '%s\n' "$text" >"$dst")
  chmod 600 "$dst"
}

render_all() {
  [ -n "$CLUSTER" ] || die "render needs --cluster FILE"
  load_cluster "$CLUSTER"
  mkdir -p "$DIR"
  # Each role's server account walks through to its own folder; every file in it is 0600.
  chmod 711 "$DIR"
  make_secrets
  load_secrets
  local i
  for i in 1 2 3; do
    local host="ETCD${i}_HOST"
    render etcd.yml "$DIR/etcd$i/etcd.yml" ETCD_NAME="etcd$i" ETCD_HOST="${!host}"
    host="NODE${i}_HOST"
    render patroni.yml "$DIR/node$i/patroni.yml" NODE="node$i" NODE_HOST="${!host}"
  done
  render haproxy.cfg "$DIR/haproxy/haproxy.cfg"
  for i in 1 2; do
    host="GUILDHALL${i}_HOST"
    render guildhall.env "$DIR/guildhall$i/guildhall.env" GUILDHALL_HOST="${!host}"
    if [ -n "$EXTRA_ENV" ]; then cat "$EXTRA_ENV" >>"$DIR/guildhall$i/guildhall.env"; fi
  done
  render patronictl.yml "$DIR/patronictl.yml"
  render prometheus-ha.yml "$DIR/prometheus-ha.yml"
  # The hosts and ports travel with each role's folder: `run` on that host reads them back.
  (umask 077 && cp "$CLUSTER" "$DIR/cluster.env")
  chmod 600 "$DIR/cluster.env"
  echo "rendered ${ROLES[*]} into $DIR; secrets in $DIR/secrets.env (mode 0600)"
}

# PostgreSQL and Patroni: the current user, or `postgres` when that is root.
SERVER_USER=""
AS_SERVER=()
server_account() {
  if [ "$(id -u)" -eq 0 ]; then
    id -u postgres >/dev/null 2>&1 || { groupadd -f -r postgres && useradd -r -g postgres -M -s /usr/sbin/nologin postgres; }
    SERVER_USER=postgres
    AS_SERVER=(setpriv --reuid=postgres --regid=postgres --init-groups --)
  fi
}
own() { if [ -n "$SERVER_USER" ]; then chown "$SERVER_USER:$SERVER_USER" "$@"; fi; }

run_role() {
  [ -n "$ROLE" ] || die "run needs a role: ${ROLES[*]}"
  [ -d "$DIR/$ROLE" ] || die "$DIR/$ROLE is missing: copy it from the folder render wrote"
  load_cluster "$DIR/cluster.env"
  mkdir -p "$DATA_DIR"
  case "$ROLE" in
    etcd[123])
      command -v etcd >/dev/null || die "etcd is missing: run scripts/ha-tools.sh"
      mkdir -p "$DATA_DIR/$ROLE"
      chmod 700 "$DATA_DIR/$ROLE"
      exec etcd --config-file "$DIR/$ROLE/etcd.yml"
      ;;
    node[123])
      command -v patroni >/dev/null || die "patroni is missing: run scripts/ha-tools.sh"
      [ -x "$PG_BIN/postgres" ] || die "$PG_BIN is missing: run scripts/ha-tools.sh"
      server_account
      mkdir -p "$DATA_DIR/$ROLE/log"
      # Not recursive: the data folder below is Patroni's own, and may be large.
      own "$DATA_DIR/$ROLE" "$DATA_DIR/$ROLE/log" "$DIR/$ROLE" "$DIR/$ROLE/patroni.yml"
      chmod 700 "$DATA_DIR/$ROLE"
      # The archive is a mount shared by every node: made here only where it is not there yet.
      if [ ! -d "$WAL_ARCHIVE" ]; then mkdir -p "$WAL_ARCHIVE" && own "$WAL_ARCHIVE" && chmod 700 "$WAL_ARCHIVE"; fi
      # From a folder the server account may enter: PostgreSQL's programs resolve their own path
      # through the working directory, and a bootstrap started from one only root may read (a
      # checkout under a mode-0700 folder) never finishes its initdb.
      cd "$DATA_DIR/$ROLE"
      exec "${AS_SERVER[@]}" patroni "$DIR/$ROLE/patroni.yml"
      ;;
    haproxy)
      command -v haproxy >/dev/null || die "haproxy is missing: run scripts/ha-tools.sh"
      exec haproxy -W -db -f "$DIR/haproxy/haproxy.cfg"
      ;;
    guildhall[12])
      [ -f "$ROOT/dist/src/main.js" ] || die "$ROOT/dist/src/main.js is missing: run npm run build"
      cd "$ROOT"
      # Only what the env file says: nothing of this shell's environment leaks into the service.
      exec env -i PATH="$PATH" HOME="${HOME:-/}" bash -c "set -a; . '$DIR/$ROLE/guildhall.env'; set +a; exec node dist/src/main.js"
      ;;
    *) die "unknown role $ROLE: ${ROLES[*]}" ;;
  esac
}

http_ok() { [ "$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$1")" = 200 ]; }
# The password travels in the environment and the SQL on stdin (it may hold one too), never on a
# command line others can list.
psql_primary() {
  PGPASSWORD="$PG_SUPERUSER_PASSWORD" psql -h "$HAPROXY_HOST" -p "$HAPROXY_PRIMARY_PORT" -U postgres -d "${2:-postgres}" \
    -v ON_ERROR_STOP=1 -qtA -f - <<<"$1"
}

bootstrap() {
  load_cluster "$DIR/cluster.env"
  load_secrets
  local deadline=$((SECONDS + 120))
  until psql_primary 'SELECT 1' >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || die "no primary behind HAProxy's $HAPROXY_HOST:$HAPROXY_PRIMARY_PORT"
    sleep 0.5
  done
  if [ "$(psql_primary "SELECT count(*) FROM pg_roles WHERE rolname = 'guildhall'")" = 0 ]; then
    psql_primary "CREATE ROLE guildhall LOGIN PASSWORD '$GUILDHALL_DB_PASSWORD'"
    psql_primary "CREATE DATABASE guildhall OWNER guildhall"
    # The search extensions need a superuser once; the service's migrations then find them.
    psql_primary "CREATE EXTENSION IF NOT EXISTS pg_trgm; CREATE EXTENSION IF NOT EXISTS unaccent; CREATE EXTENSION IF NOT EXISTS btree_gin" guildhall
    echo "created the guildhall role and database"
  else
    echo "the guildhall role exists already"
  fi
}

# One line per check, "ok" or "FAIL"; the exit code counts the failures.
check() {
  load_cluster "$DIR/cluster.env"
  local failures=0 i host
  verdict() { if "${@:2}" >/dev/null 2>&1; then echo "ok   $1"; else echo "FAIL $1"; failures=$((failures + 1)); fi; }
  etcd_healthy() { local h; h=$(curl -s -m 2 "http://$1:$ETCD_CLIENT_PORT/health") && grep -q '"health":"true"' <<<"$h"; }
  for i in 1 2 3; do host="ETCD${i}_HOST"; verdict "etcd$i ${!host}:$ETCD_CLIENT_PORT healthy" etcd_healthy "${!host}"; done
  local cluster=""
  for i in 1 2 3; do
    host="NODE${i}_HOST"
    cluster=$(curl -s -m 2 "http://${!host}:$PATRONI_PORT/cluster") && [ -n "$cluster" ] && break
  done
  members() { python3 -c 'import json,sys; m=json.load(sys.stdin)["members"]; print(" ".join(sorted(x["role"]+":"+x["state"] for x in m)))' <<<"$cluster"; }
  local roles
  roles=$(members 2>/dev/null || true)
  echo "     members: ${roles:-none}"
  count() { grep -Eo "$1" <<<"$roles" | wc -l; }
  verdict "one leader" test "$(count '(^| )leader:running')" = 1
  verdict "one synchronous standby" test "$(count 'sync_standby:(streaming|running)')" = 1
  verdict "three members running or streaming" test "$(count ':(running|streaming)')" = 3
  # Read whole first: grep -q leaving early would fail the pipe (pipefail).
  one_primary_server() {
    local m
    m=$(curl -s -m 2 "http://$HAPROXY_HOST:$HAPROXY_STATS_PORT/metrics") && grep -Eq '^haproxy_backend_active_servers\{proxy="primary"\} 1$' <<<"$m"
  }
  verdict "HAProxy $HAPROXY_HOST: one server in primary" one_primary_server
  for i in 1 2; do
    host="GUILDHALL${i}_HOST"
    verdict "guildhall$i ${!host}:$GUILDHALL_PORT /healthz" http_ok "http://${!host}:$GUILDHALL_PORT/healthz"
  done
  return "$failures"
}

info() {
  load_cluster "$DIR/cluster.env"
  local i host
  echo "DIR=$DIR"
  echo "ETCD_ENDPOINTS=http://$ETCD1_HOST:$ETCD_CLIENT_PORT,http://$ETCD2_HOST:$ETCD_CLIENT_PORT,http://$ETCD3_HOST:$ETCD_CLIENT_PORT"
  for i in 1 2 3; do
    host="NODE${i}_HOST"
    echo "NODE${i}_POSTGRES=${!host}:$PG_PORT"
    echo "NODE${i}_REST_URL=http://${!host}:$PATRONI_PORT"
    echo "NODE${i}_DATA=$DATA_DIR/node$i/pgdata"
  done
  echo "PRIMARY=$HAPROXY_HOST:$HAPROXY_PRIMARY_PORT"
  echo "REPLICAS=$HAPROXY_HOST:$HAPROXY_REPLICA_PORT"
  echo "HAPROXY_STATS_URL=http://$HAPROXY_HOST:$HAPROXY_STATS_PORT/"
  echo "HAPROXY_METRICS_URL=http://$HAPROXY_HOST:$HAPROXY_STATS_PORT/metrics"
  for i in 1 2; do host="GUILDHALL${i}_HOST"; echo "GUILDHALL${i}_URL=http://${!host}:$GUILDHALL_PORT"; done
  echo "WAL_ARCHIVE=$WAL_ARCHIVE"
  echo "SECRETS_FILE=$DIR/secrets.env"
  echo "SECRETS=${SECRET_NAMES[*]}"
  echo "PATRONICTL_CONFIG=$DIR/patronictl.yml"
}

case "$cmd" in
  render) render_all ;;
  run) run_role ;;
  bootstrap) bootstrap ;;
  check) check ;;
  info) info ;;
  patronictl) patronictl -c "$DIR/patronictl.yml" "${PASSTHROUGH[@]}" ;;
  *) die "unknown command $cmd: render, run, bootstrap, check, info or patronictl" ;;
esac
