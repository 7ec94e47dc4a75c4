#!/usr/bin/env bash
# Ensure nginx is installed (the buffering proxy the slow-client test puts in
# front of gunicorn, as deploy/nginx-site.conf does in production).
#
# Idempotent and non-interactive, in the style of install_browser.sh: when
# nginx already runs this exits at once without touching apt. Otherwise it
# runs `apt-get update` once and installs `nginx-light` (falling back to
# `nginx` where that package does not exist). The test starts its own nginx
# as a non-daemon on a loopback port with a temporary prefix; the package's
# own service is neither needed nor started here.
# Needs root (CI runs as root); uses sudo when available if not root.
set -euo pipefail

if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then
    echo "install_nginx: $( (nginx -v || /usr/sbin/nginx -v) 2>&1) already installed"
    exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        echo "install_nginx: ERROR: nginx missing and not root (cannot apt-get install nginx)" >&2
        exit 1
    fi
fi

export DEBIAN_FRONTEND=noninteractive
# Wait (up to 10 min) for another apt/dpkg process instead of failing on its lock.
APT_OPTS=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
# Install the binary only: no service start during install (policy-rc.d is absent in containers).
export RUNLEVEL=1

retry() {  # retry CMD... up to 3 times (network blips, lists lock held by another apt)
    local n
    for n in 1 2 3; do
        if "$@"; then return 0; fi
        echo "install_nginx: attempt $n of '$*' failed; retrying in 10 s" >&2
        sleep 10
    done
    return 1
}

start=$(date +%s)
retry "${SUDO[@]}" apt-get "${APT_OPTS[@]}" update -q
if apt-cache show nginx-light >/dev/null 2>&1; then PKG=nginx-light; else PKG=nginx; fi
echo "install_nginx: installing $PKG via apt-get"
retry "${SUDO[@]}" apt-get "${APT_OPTS[@]}" install -y -q --no-install-recommends "$PKG"

if ! /usr/sbin/nginx -v >/dev/null 2>&1; then
    echo "install_nginx: ERROR: nginx still not runnable after apt-get install" >&2
    exit 1
fi
echo "install_nginx: $(/usr/sbin/nginx -v 2>&1) installed in $(( $(date +%s) - start )) s"
