#!/usr/bin/env bash
# The Prometheus programs `npm run test:ops` runs (prometheus, promtool): Debian's prometheus,
# installed when missing. Only the programs are wanted: the tests run their own prometheus, with
# their own configuration, data folder and ports, so the package is kept from starting its system
# service while it installs (a policy-rc.d refusing every start, removed afterwards).
set -euo pipefail
have() { command -v prometheus >/dev/null && command -v promtool >/dev/null; }
have && exit 0

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO=(sudo -n); else
    echo "prometheus-tools: prometheus and promtool are missing and installing them needs root: run 'apt-get install prometheus' as root" >&2
    exit 1
  fi
fi
if ! command -v apt-get >/dev/null; then
  echo "prometheus-tools: prometheus and promtool are missing and this is not a Debian-like system: install Prometheus 2.x there" >&2
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
DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends prometheus >/dev/null
have || { echo "prometheus-tools: prometheus installed, yet prometheus or promtool is missing from PATH" >&2; exit 1; }
