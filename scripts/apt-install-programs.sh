# Sourced by the *-tools.sh scripts. apt_install_programs LABEL MISSING ELSEWHERE PACKAGE...:
# installs Debian PACKAGEs for their programs only, as root or through passwordless sudo. The
# tests run their own servers with their own configurations, folders and ports, so the packages
# are kept from starting their system services while they install (a policy-rc.d refusing every
# start, removed afterwards). MISSING says what is missing, ELSEWHERE what to install on a system
# without apt-get; both go into the one-line refusals.

# apt_root LABEL MISSING ELSEWHERE PACKAGE...: sets APT_SUDO to what runs a command as root (nothing
# as root, passwordless sudo otherwise), or refuses in one line when that or apt-get is missing.
apt_root() {
  local label=$1 missing=$2 elsewhere=$3
  shift 3
  APT_SUDO=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then APT_SUDO=(sudo -n); else
      echo "$label: $missing and installing them needs root: run 'apt-get install $*' as root" >&2
      return 1
    fi
  fi
  if ! command -v apt-get >/dev/null; then
    echo "$label: $missing and this is not a Debian-like system: $elsewhere" >&2
    return 1
  fi
}

apt_install_programs() {
  apt_root "$@" || return 1
  shift 3
  local policy=/usr/sbin/policy-rc.d added=0 status=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | "${APT_SUDO[@]}" tee "$policy" >/dev/null
    "${APT_SUDO[@]}" chmod 755 "$policy"
    added=1
  fi
  { "${APT_SUDO[@]}" apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive "${APT_SUDO[@]}" apt-get install -y -qq --no-install-recommends "$@" >/dev/null; } || status=$?
  [ "$added" = 1 ] && "${APT_SUDO[@]}" rm -f "$policy"
  return "$status"
}
