#!/usr/bin/env bash
# nginx: the buffering proxy the slow-client test puts in front of gunicorn, as
# deploy/nginx-site.conf does in production. The test starts its own nginx as a
# non-daemon on a loopback port; the package's service is not needed.
exec bash "$(dirname "$0")/apt_install.sh" install_nginx "/usr/sbin/nginx -v" "nginx-light|nginx"
