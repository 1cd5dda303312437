#!/usr/bin/env bash
# The Prometheus programs `npm run test:ops` runs (prometheus, promtool): Debian's prometheus,
# installed when missing, for its programs only (apt-install-programs.sh).
set -euo pipefail
. "$(dirname "$0")/apt-install-programs.sh"
have() { command -v prometheus >/dev/null && command -v promtool >/dev/null; }
have && exit 0

apt_install_programs prometheus-tools 'prometheus and promtool are missing' 'install Prometheus 2.x there' prometheus
have || { echo "prometheus-tools: prometheus installed, yet prometheus or promtool is missing from PATH" >&2; exit 1; }
