#!/usr/bin/env bash
# The PostgreSQL 15 programs the backup and restore tests run (initdb, pg_ctl, pg_dump, pg_restore,
# pg_basebackup, and the restore runbook's createuser and createdb): Debian's postgresql-15,
# installed when missing, for its programs only (apt-install-programs.sh). The package is also told
# not to create a cluster of its own.
set -euo pipefail
. "$(dirname "$0")/apt-install-programs.sh"
BIN=/usr/lib/postgresql/15/bin
have() { for p in initdb pg_ctl pg_dump pg_restore pg_basebackup postgres createuser createdb; do [ -x "$BIN/$p" ] || return 1; done; }
have && exit 0

args=(postgres-tools "$BIN is missing" "install PostgreSQL 15's server programs there" postgresql-15)
apt_root "${args[@]}"
"${APT_SUDO[@]}" mkdir -p /etc/postgresql-common/createcluster.d
echo 'create_main_cluster = false' | "${APT_SUDO[@]}" tee /etc/postgresql-common/createcluster.d/guildhall-no-main-cluster.conf >/dev/null
apt_install_programs "${args[@]}"
have || { echo "postgres-tools: postgresql-15 installed, yet $BIN is incomplete" >&2; exit 1; }
