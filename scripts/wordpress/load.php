<?php
/**
 * Load one local WordPress site (made by scripts/wordpress_site.sh) in a command-line PHP process.
 *
 * The site is named by WORDPRESS_CONFIG: Debian's wp-config.php then reads
 * /etc/wordpress/config-NAME.php. WORDPRESS_HOST is the site's host:port (Debian's wp-config.php
 * reads HTTP_HOST, which a command line does not have).
 *
 * @package ContractorPricing
 */

$contractor_pricing_site = getenv( 'WORDPRESS_CONFIG' );
if ( ! is_string( $contractor_pricing_site ) || ! preg_match( '/^[a-zA-Z0-9-]+$/', $contractor_pricing_site ) ) {
	fwrite( STDERR, "WORDPRESS_CONFIG must name a site made by scripts/wordpress_site.sh (letters, digits, -)\n" );
	exit( 2 );
}
$_SERVER['WORDPRESS_CONFIG'] = $contractor_pricing_site;
$_SERVER['HTTP_HOST']        = getenv( 'WORDPRESS_HOST' ) ? getenv( 'WORDPRESS_HOST' ) : '127.0.0.1';
$_SERVER['SERVER_NAME']      = preg_replace( '/:.*/', '', $_SERVER['HTTP_HOST'] );
$_SERVER['REQUEST_URI']      = '/';
$_SERVER['REQUEST_METHOD']   = 'GET';
$_SERVER['SERVER_PROTOCOL']  = 'HTTP/1.1';

require '/usr/share/wordpress/wp-load.php';
