#!/usr/bin/env bash
# The PostgreSQL 15 programs the backup and restore tests run (initdb, pg_ctl, pg_dump, pg_restore,
# pg_basebackup): Debian's postgresql-15, installed when missing. Only the programs are wanted: the
# package is told not to create (and start) a cluster of its own.
set -euo pipefail
BIN=/usr/lib/postgresql/15/bin
have() { for p in initdb pg_ctl pg_dump pg_restore pg_basebackup postgres; do [ -x "$BIN/$p" ] || return 1; done; }
have && exit 0

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO=(sudo -n); else
    echo "postgres-tools: $BIN is missing and installing it needs root: run 'apt-get install postgresql-15' as root" >&2
    exit 1
  fi
fi
if ! command -v apt-get >/dev/null; then
  echo "postgres-tools: $BIN is missing and this is not a Debian-like system: install PostgreSQL 15's server programs there" >&2
  exit 1
fi
"${SUDO[@]}" mkdir -p /etc/postgresql-common/createcluster.d
echo 'create_main_cluster = false' | "${SUDO[@]}" tee /etc/postgresql-common/createcluster.d/guildhall-no-main-cluster.conf >/dev/null
"${SUDO[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends postgresql-15 >/dev/null
have || { echo "postgres-tools: postgresql-15 installed, yet $BIN is incomplete" >&2; exit 1; }
