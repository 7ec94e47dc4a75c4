#!/usr/bin/env bash
# Install Debian packages once, idempotently and non-interactively.
#
#   scripts/apt_install.sh LABEL CHECK PACKAGE...
#
# When the shell command CHECK succeeds this exits at once without touching
# apt. Otherwise it runs `apt-get update` once and installs PACKAGE... (each
# given as `a|b` takes `a` where the package exists, else `b`), then runs
# CHECK again and fails loudly if it still fails. Needs root (CI runs as root);
# uses sudo when available if not root. No service is started by the install.
set -euo pipefail

LABEL=$1 CHECK=$2
shift 2

if bash -c "$CHECK" >/dev/null 2>&1; then
    echo "$LABEL: already installed"
    exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        echo "$LABEL: ERROR: missing and not root (cannot apt-get install $*)" >&2
        exit 1
    fi
fi

export DEBIAN_FRONTEND=noninteractive RUNLEVEL=1
# Wait (up to 10 min) for another apt/dpkg process instead of failing on its lock.
APT_OPTS=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)

retry() {  # retry CMD... up to 3 times (network blips, lists lock held by another apt)
    local n
    for n in 1 2 3; do
        if "$@"; then return 0; fi
        echo "$LABEL: attempt $n of '$*' failed; retrying in 10 s" >&2
        sleep 10
    done
    return 1
}

start=$(date +%s)
retry "${SUDO[@]}" apt-get "${APT_OPTS[@]}" update -q
PKGS=()
for choice in "$@"; do
    first=${choice%%|*}
    if [ "$first" != "$choice" ] && ! apt-cache show "$first" >/dev/null 2>&1; then
        PKGS+=("${choice#*|}")
    else
        PKGS+=("$first")
    fi
done
echo "$LABEL: installing ${PKGS[*]} via apt-get"
retry "${SUDO[@]}" apt-get "${APT_OPTS[@]}" install -y -q --no-install-recommends "${PKGS[@]}"

if ! bash -c "$CHECK" >/dev/null 2>&1; then
    echo "$LABEL: ERROR: still not runnable after apt-get install" >&2
    exit 1
fi
echo "$LABEL: installed in $(( $(date +%s) - start )) s"
