<?php
/**
 * Install WordPress non-interactively into the (empty) database of a local site, switch to a theme and
 * activate this repository's plugin. Run by scripts/wordpress_site.sh install.
 *
 *   WORDPRESS_CONFIG=NAME WORDPRESS_HOST=127.0.0.1:PORT php install.php --title=T --password=P [--theme=twentytwentythree]
 *
 * @package ContractorPricing
 */

define( 'WP_INSTALLING', true );
require __DIR__ . '/load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';

const CONTRACTOR_PRICING_PLUGIN = 'contractor-pricing/contractor-pricing.php';

$options = getopt( '', array( 'title:', 'password:', 'theme:' ) );
if ( empty( $options['title'] ) || empty( $options['password'] ) ) {
	fwrite( STDERR, "usage: install.php --title=TITLE --password=ADMIN_PASSWORD [--theme=SLUG]\n" );
	exit( 2 );
}
if ( is_blog_installed() ) {
	fwrite( STDERR, "install.php: the database already holds a WordPress site; scripts/wordpress_site.sh install starts from a fresh one\n" );
	exit( 1 );
}
$installed = wp_install( $options['title'], 'admin', 'admin@example.invalid', true, '', wp_slash( $options['password'] ) );
if ( empty( $installed['user_id'] ) ) {
	fwrite( STDERR, "install.php: wp_install did not create the admin user\n" );
	exit( 1 );
}
// Pretty permalinks: /wp-sitemap.xml and /our-prices/ are routed by WordPress itself.
update_option( 'permalink_structure', '/%postname%/' );
delete_option( 'rewrite_rules' );

$theme = isset( $options['theme'] ) ? $options['theme'] : 'twentytwentythree';
if ( ! wp_get_theme( $theme )->exists() ) {
	fwrite( STDERR, "install.php: theme $theme is missing (scripts/install_wordpress.sh installs twentytwentythree)\n" );
	exit( 1 );
}
switch_theme( $theme );

$activated = activate_plugin( CONTRACTOR_PRICING_PLUGIN );
if ( is_wp_error( $activated ) ) {
	fwrite( STDERR, 'install.php: could not activate the plugin: ' . $activated->get_error_message() . "\n" );
	exit( 1 );
}
echo 'installed ' . home_url( '/' ) . ' (theme ' . $theme . ', plugin ' . CONTRACTOR_PRICING_PLUGIN . ")\n";
