#!/usr/bin/env bash
# Debian's Chromium at /usr/bin/chromium (Playwright drives it with
# executable_path="/usr/bin/chromium"; no browser download), with fonts so
# pages render text.
exec bash "$(dirname "$0")/apt_install.sh" install_browser "/usr/bin/chromium --version" chromium fonts-liberation
