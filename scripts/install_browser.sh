#!/usr/bin/env bash
# Ensure Debian's Chromium is installed at /usr/bin/chromium (for Playwright,
# driven with executable_path="/usr/bin/chromium"; no browser download).
#
# Idempotent and non-interactive: when /usr/bin/chromium already runs this
# exits at once without touching apt. Otherwise it runs `apt-get update` once
# and installs `chromium` (+ fonts-liberation so pages render text).
# Needs root (CI runs as root); uses sudo when available if not root.
set -euo pipefail

CHROMIUM=/usr/bin/chromium
PKGS=(chromium fonts-liberation)

if [ -x "$CHROMIUM" ] && "$CHROMIUM" --version >/dev/null 2>&1; then
    echo "install_browser: $("$CHROMIUM" --version 2>/dev/null) already installed"
    exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        echo "install_browser: ERROR: $CHROMIUM missing and not root (cannot apt-get install chromium)" >&2
        exit 1
    fi
fi

export DEBIAN_FRONTEND=noninteractive
# Wait (up to 10 min) for another apt/dpkg process instead of failing on its lock.
APT_OPTS=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)

retry() {  # retry CMD... up to 3 times (network blips, lists lock held by another apt)
    local n
    for n in 1 2 3; do
        if "$@"; then return 0; fi
        echo "install_browser: attempt $n of '$*' failed; retrying in 10 s" >&2
        sleep 10
    done
    return 1
}

echo "install_browser: installing ${PKGS[*]} via apt-get"
start=$(date +%s)
retry "${SUDO[@]}" apt-get "${APT_OPTS[@]}" update -q
retry "${SUDO[@]}" apt-get "${APT_OPTS[@]}" install -y -q --no-install-recommends "${PKGS[@]}"

if ! "$CHROMIUM" --version >/dev/null 2>&1; then
    echo "install_browser: ERROR: $CHROMIUM still not runnable after apt-get install" >&2
    exit 1
fi
echo "install_browser: $("$CHROMIUM" --version 2>/dev/null) installed in $(( $(date +%s) - start )) s"
