#!/usr/bin/env bash
# The programs `npm run test:ha` and deploy/ha/ha.sh run: Debian's patroni (with python3-etcd, its
# etcd client), etcd-server and haproxy, plus PostgreSQL 15's server programs (scripts/postgres-tools.sh),
# installed when missing, for their programs only (apt-install-programs.sh): the deployment runs its
# own etcd, haproxy and clusters with their own configurations, folders and addresses. The suite
# also cuts links between its hosts with nft (nftables) and makes them with ip (iproute2).
set -euo pipefail
cd "$(dirname "$0")"
./postgres-tools.sh
. ./apt-install-programs.sh

have() {
  command -v patroni >/dev/null && command -v patronictl >/dev/null && command -v etcd >/dev/null &&
    command -v etcdctl >/dev/null && command -v haproxy >/dev/null && command -v nft >/dev/null && command -v ip >/dev/null &&
    /usr/bin/python3 -c 'import etcd' 2>/dev/null
}
have && exit 0

apt_install_programs ha-tools 'patroni, etcd, haproxy or nft is missing' 'install Patroni 3, etcd 3.4+ and HAProxy 2.x there' \
  patroni python3-etcd etcd-server etcd-client haproxy nftables iproute2
have || { echo "ha-tools: the packages installed, yet patroni, patronictl, etcd, etcdctl, haproxy, nft, ip or python3-etcd is missing" >&2; exit 1; }
