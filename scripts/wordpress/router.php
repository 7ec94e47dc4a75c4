<?php
/**
 * The router `php -S` runs for a local site (scripts/wordpress_site.sh serve): the web server's part.
 *
 * - /wp-content/... comes from the site's own content folder (WP_CONTENT_DIR in the environment):
 *   static files as they are, never PHP;
 * - an existing file under /usr/share/wordpress: PHP files run (with the site named by WORDPRESS_CONFIG),
 *   other files are served as they are;
 * - anything else goes to index.php (pretty permalinks, /wp-sitemap.xml).
 *
 * @package ContractorPricing
 */

$_SERVER['WORDPRESS_CONFIG'] = getenv( 'WORDPRESS_CONFIG' );
$contractor_pricing_root     = '/usr/share/wordpress';
$contractor_pricing_path     = rawurldecode( (string) parse_url( $_SERVER['REQUEST_URI'], PHP_URL_PATH ) );

if ( false !== strpos( $contractor_pricing_path, '/../' ) || false !== strpos( $contractor_pricing_path, "\0" ) ) {
	http_response_code( 400 );
	return true;
}

if ( 0 === strpos( $contractor_pricing_path, '/wp-content/' ) ) {
	$contractor_pricing_content = realpath( (string) getenv( 'WP_CONTENT_DIR' ) );
	$contractor_pricing_file    = realpath( $contractor_pricing_content . substr( $contractor_pricing_path, strlen( '/wp-content' ) ) );
	$contractor_pricing_types   = array(
		'css'   => 'text/css',
		'js'    => 'text/javascript',
		'json'  => 'application/json',
		'png'   => 'image/png',
		'jpg'   => 'image/jpeg',
		'svg'   => 'image/svg+xml',
		'woff2' => 'font/woff2',
		'txt'   => 'text/plain',
	);
	$contractor_pricing_ext     = strtolower( pathinfo( (string) $contractor_pricing_file, PATHINFO_EXTENSION ) );
	// Plugins and themes are symlinks out of the content folder: any file they resolve to may be served, but no PHP.
	if ( false === $contractor_pricing_file || ! is_file( $contractor_pricing_file ) || ! isset( $contractor_pricing_types[ $contractor_pricing_ext ] ) ) {
		http_response_code( 404 );
		header( 'Content-Type: text/plain' );
		echo "Not found\n";
		return true;
	}
	header( 'Content-Type: ' . $contractor_pricing_types[ $contractor_pricing_ext ] );
	header( 'Content-Length: ' . filesize( $contractor_pricing_file ) );
	readfile( $contractor_pricing_file );
	return true;
}

$contractor_pricing_file = realpath( $contractor_pricing_root . $contractor_pricing_path );
if ( false !== $contractor_pricing_file && is_dir( $contractor_pricing_file ) && is_file( $contractor_pricing_file . '/index.php' ) ) {
	$contractor_pricing_file .= '/index.php';
	$contractor_pricing_path  = rtrim( $contractor_pricing_path, '/' ) . '/index.php';
}
if ( false !== $contractor_pricing_file && is_file( $contractor_pricing_file ) && 0 === strpos( $contractor_pricing_file, $contractor_pricing_root . '/' ) ) {
	if ( '.php' !== substr( $contractor_pricing_file, -4 ) ) {
		return false; // A static file: the built-in server sends it.
	}
} else {
	$contractor_pricing_file = $contractor_pricing_root . '/index.php';
	$contractor_pricing_path = '/index.php';
}
$_SERVER['SCRIPT_FILENAME'] = $contractor_pricing_file;
$_SERVER['SCRIPT_NAME']     = $contractor_pricing_path;
$_SERVER['PHP_SELF']        = $contractor_pricing_path;
chdir( dirname( $contractor_pricing_file ) );
require $contractor_pricing_file;
