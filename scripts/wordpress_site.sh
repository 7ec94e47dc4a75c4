#!/usr/bin/env bash
# A local WordPress site running this repository's plugin (wordpress/), on Debian's packages and the
# local MariaDB. For trying the plugin against `make run`, and for its tests.
#
#   scripts/wordpress_site.sh install NAME PORT MIRROR_URL PLUGIN_KEY
#       Debian's packages (scripts/install_wordpress.sh), a fresh database, wp_install, the
#       twentytwentythree theme, the plugin activated and pointed at MIRROR_URL for PLUGIN_KEY, and a
#       published page "Our prices" holding the block. Prints the site's URL and admin login.
#   scripts/wordpress_site.sh serve NAME
#       Serve it with `php -S` on 127.0.0.1:PORT until Ctrl-C (stop the whole process group: the
#       server's workers otherwise keep the port). PHP runs with memory_limit 128M, PHP's own default
#       and what most hosts give WordPress (Debian's command-line PHP has none);
#       WORDPRESS_MEMORY_LIMIT changes it.
#   scripts/wordpress_site.sh remove NAME
#       Drop its database, its config file and its folder.
#
# NAME: lowercase letters, digits and "-". Each site has its own database (wp_NAME), its own config
# (/etc/wordpress/config-NAME.php, chosen by WORDPRESS_CONFIG, so sites never share one) and its own
# wp-content under WORDPRESS_SITES_DIR (default /var/tmp/wordpress-sites). The site is quiet and
# deterministic: no WP-Cron on page loads (DISABLE_WP_CRON: run it with GET /wp-cron.php), no request
# to anything but the mirror (WP_HTTP_BLOCK_EXTERNAL), no mail, PHP notices to debug.log only.
# Needs root (the config lives in /etc/wordpress). MariaDB: 127.0.0.1:3306, root, empty password
# (MYSQL_HOST, MYSQL_PORT, MYSQL_USER, MYSQL_PASSWORD override them).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SITES_DIR="${WORDPRESS_SITES_DIR:-/var/tmp/wordpress-sites}"
MYSQL_HOST="${MYSQL_HOST:-127.0.0.1}"
MYSQL_PORT="${MYSQL_PORT:-3306}"
MYSQL_USER="${MYSQL_USER:-root}"
MYSQL_PASSWORD="${MYSQL_PASSWORD:-}"
WORDPRESS=/usr/share/wordpress

say() { echo "wordpress_site: $*" >&2; }
die() { say "ERROR: $*"; exit 1; }
usage() { sed -n '2,16p' "$0" >&2; exit 2; }

[ $# -ge 2 ] || usage
COMMAND=$1 NAME=$2
[[ "$NAME" =~ ^[a-z0-9][a-z0-9-]{0,40}$ ]] || die "NAME must be lowercase letters, digits and - (got '$NAME')"
SITE="$SITES_DIR/$NAME"
CONFIG="/etc/wordpress/config-$NAME.php"
DATABASE="wp_${NAME//-/_}"

mysql_run() { mysql --protocol=tcp -h "$MYSQL_HOST" -P "$MYSQL_PORT" -u "$MYSQL_USER" ${MYSQL_PASSWORD:+-p"$MYSQL_PASSWORD"} "$@"; }
site_php() { WORDPRESS_CONFIG="$NAME" WORDPRESS_HOST="127.0.0.1:$(cat "$SITE/port")" php "$@"; }

remove_site() {
  if [ -e "$CONFIG" ] || [ -d "$SITE" ]; then
    mysql_run -e "DROP DATABASE IF EXISTS \`$DATABASE\`" || say "could not drop $DATABASE (is MariaDB up?)"
  fi
  rm -f "$CONFIG"
  rm -rf "$SITE"
}

write_config() {  # PORT MIRROR_URL
  local port=$1 mirror=$2 mirror_host salts
  mirror_host=$(php -r 'echo parse_url($argv[1], PHP_URL_HOST);' "$mirror")
  salts=$(php -r 'foreach (["AUTH_KEY","SECURE_AUTH_KEY","LOGGED_IN_KEY","NONCE_KEY","AUTH_SALT","SECURE_AUTH_SALT","LOGGED_IN_SALT","NONCE_SALT"] as $k) { echo "define(\x27$k\x27, \x27" . bin2hex(random_bytes(32)) . "\x27);\n"; }')
  mkdir -p /etc/wordpress
  cat >"$CONFIG" <<PHP
<?php
// Written by scripts/wordpress_site.sh for the local site "$NAME"; removed by its \`remove\`.
define('DB_NAME', '$DATABASE');
define('DB_USER', '$MYSQL_USER');
define('DB_PASSWORD', '$MYSQL_PASSWORD');
define('DB_HOST', '$MYSQL_HOST:$MYSQL_PORT');
define('WP_HOME', 'http://127.0.0.1:$port');
define('WP_SITEURL', 'http://127.0.0.1:$port');
define('WP_CONTENT_DIR', '$SITE/wp-content');
define('WP_CONTENT_URL', 'http://127.0.0.1:$port/wp-content');
define('DISABLE_WP_CRON', true);
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('WP_ACCESSIBLE_HOSTS', '$mirror_host');
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_DEBUG', true);
define('WP_DEBUG_DISPLAY', false);
define('WP_DEBUG_LOG', '$SITE/debug.log');
define('WP_ENVIRONMENT_TYPE', 'local');
$salts
PHP
}

install_site() {  # PORT MIRROR_URL PLUGIN_KEY
  local port=$1 mirror=$2 key=$3 password
  [[ "$port" =~ ^[0-9]+$ ]] || die "PORT must be a number (got '$port')"
  bash "$ROOT/scripts/install_wordpress.sh" >&2
  mysql_run -e 'SELECT 1' >/dev/null 2>&1 \
    || die "MariaDB is not answering on $MYSQL_HOST:$MYSQL_PORT as $MYSQL_USER (scripts/ensure_services.sh starts it)"
  remove_site
  mkdir -p "$SITE/wp-content/plugins" "$SITE/wp-content/themes" "$SITE/wp-content/mu-plugins" "$SITE/wp-content/uploads"
  # A copy, not a link: deleting the plugin in wp-admin deletes its folder, which must never be this checkout's.
  cp -R "$ROOT/wordpress" "$SITE/wp-content/plugins/contractor-pricing"
  ln -s "$WORDPRESS/wp-content/themes/twentytwentythree" "$SITE/wp-content/themes/twentytwentythree"
  ln -s "$ROOT/scripts/wordpress/local-site.php" "$SITE/wp-content/mu-plugins/local-site.php"
  echo "$port" >"$SITE/port"
  password="${WORDPRESS_ADMIN_PASSWORD:-$(php -r 'echo bin2hex(random_bytes(9));')}"
  (umask 077 && echo "$password" >"$SITE/admin-password")
  write_config "$port" "$mirror"
  mysql_run -e "CREATE DATABASE \`$DATABASE\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"
  site_php "$ROOT/scripts/wordpress/install.php" --title="Contractor pricing (local)" --password="$password" >&2
  site_php "$ROOT/scripts/wordpress/cli.php" configure "mirror_url=$mirror" "plugin_key=$key" >/dev/null
  site_php "$ROOT/scripts/wordpress/cli.php" page "Our prices" '<!-- wp:contractor-pricing/pricing /-->' >/dev/null
  say "installed http://127.0.0.1:$port/our-prices/ (admin: http://127.0.0.1:$port/wp-admin/ as admin, password in $SITE/admin-password)"
  say "serve it with: bash scripts/wordpress_site.sh serve $NAME; poll now with: WORDPRESS_CONFIG=$NAME WORDPRESS_HOST=127.0.0.1:$port php scripts/wordpress/cli.php poll"
}

serve_site() {
  [ -f "$SITE/port" ] && [ -f "$CONFIG" ] || die "no site '$NAME' (install it first)"
  local port
  port=$(cat "$SITE/port")
  say "serving http://127.0.0.1:$port/ (Ctrl-C stops it)"
  cd "$WORDPRESS"
  PHP_CLI_SERVER_WORKERS="${PHP_CLI_SERVER_WORKERS:-4}" WORDPRESS_CONFIG="$NAME" WP_CONTENT_DIR="$SITE/wp-content" \
    exec php -d memory_limit="${WORDPRESS_MEMORY_LIMIT:-128M}" -d display_errors=0 -d log_errors=1 -d error_log="$SITE/server.log" \
    -S "127.0.0.1:$port" -t "$WORDPRESS" "$ROOT/scripts/wordpress/router.php"
}

case "$COMMAND" in
  install) [ $# -eq 5 ] || usage; install_site "$3" "$4" "$5" ;;
  serve) [ $# -eq 2 ] || usage; serve_site ;;
  remove) [ $# -eq 2 ] || usage; remove_site; say "removed $NAME" ;;
  *) usage ;;
esac
