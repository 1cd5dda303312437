# Sourced by the *-tools.sh scripts. apt_install_programs LABEL MISSING ELSEWHERE PACKAGE...:
# installs Debian PACKAGEs for their programs only, as root or through passwordless sudo. The
# tests run their own servers with their own configurations, folders and ports, so the packages
# are kept from starting their system services while they install (a policy-rc.d refusing every
# start, removed afterwards). MISSING says what is missing, ELSEWHERE what to install on a system
# without apt-get; both go into the one-line refusals.
apt_install_programs() {
  local label=$1 missing=$2 elsewhere=$3
  shift 3
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo=(sudo -n); else
      echo "$label: $missing and installing them needs root: run 'apt-get install $*' as root" >&2
      return 1
    fi
  fi
  if ! command -v apt-get >/dev/null; then
    echo "$label: $missing and this is not a Debian-like system: $elsewhere" >&2
    return 1
  fi
  local policy=/usr/sbin/policy-rc.d added=0 status=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
    "${sudo[@]}" chmod 755 "$policy"
    added=1
  fi
  { "${sudo[@]}" apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@" >/dev/null; } || status=$?
  [ "$added" = 1 ] && "${sudo[@]}" rm -f "$policy"
  return "$status"
}
