#!/usr/bin/env bash
# Debian's WordPress (6.1), PHP 8.2 with the extensions it needs, Debian's phpunit and the
# twentytwentythree theme (Debian's wordpress ships no theme): what the WordPress plugin's tests
# and scripts/wordpress_site.sh run on. No web server or service is started.
exec bash "$(dirname "$0")/apt_install.sh" install_wordpress \
  "test -f /usr/share/wordpress/wp-load.php && test -f /usr/share/wordpress/wp-content/themes/twentytwentythree/style.css && php -r 'exit(extension_loaded(\"mysqli\") && extension_loaded(\"curl\") && extension_loaded(\"mbstring\") && extension_loaded(\"xml\") ? 0 : 1);' && phpunit --version" \
  wordpress php-cli php-mysql php-xml php-mbstring php-curl phpunit wordpress-theme-twentytwentythree
