#!/usr/bin/env bash
# The programs `npm run test:ha` and deploy/ha/ha.sh run: Debian's patroni (with python3-etcd, its
# etcd client), etcd-server and haproxy, plus PostgreSQL 15's server programs (scripts/postgres-tools.sh),
# installed when missing. Only the programs are wanted: the deployment runs its own etcd, haproxy and
# clusters with their own configurations, folders and ports, so the packages are kept from starting
# their system services while they install (a policy-rc.d refusing every start, removed afterwards).
set -euo pipefail
cd "$(dirname "$0")"
./postgres-tools.sh

have() {
  command -v patroni >/dev/null && command -v patronictl >/dev/null && command -v etcd >/dev/null &&
    command -v etcdctl >/dev/null && command -v haproxy >/dev/null && /usr/bin/python3 -c 'import etcd' 2>/dev/null
}
have && exit 0

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO=(sudo -n); else
    echo "ha-tools: patroni, etcd or haproxy is missing and installing them needs root: run 'apt-get install patroni python3-etcd etcd-server etcd-client haproxy' as root" >&2
    exit 1
  fi
fi
if ! command -v apt-get >/dev/null; then
  echo "ha-tools: patroni, etcd or haproxy is missing and this is not a Debian-like system: install Patroni 3, etcd 3.4+ and HAProxy 2.x there" >&2
  exit 1
fi
POLICY=/usr/sbin/policy-rc.d
ADDED_POLICY=0
if [ ! -e "$POLICY" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${SUDO[@]}" tee "$POLICY" >/dev/null
  "${SUDO[@]}" chmod 755 "$POLICY"
  ADDED_POLICY=1
fi
trap '[ "$ADDED_POLICY" = 1 ] && "${SUDO[@]}" rm -f "$POLICY"' EXIT
"${SUDO[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends \
  patroni python3-etcd etcd-server etcd-client haproxy >/dev/null
have || { echo "ha-tools: the packages installed, yet patroni, patronictl, etcd, etcdctl, haproxy or python3-etcd is missing" >&2; exit 1; }
