<?php
/**
 * Plugin Name: Local site (scripts/wordpress_site.sh)
 * Description: Makes a local test site quiet and lets it reach a mirror on a loopback port. Never on a real site.
 *
 * Installed as a must-use plugin by scripts/wordpress_site.sh only. Its config file defines
 * LOCAL_SITE_MIRROR_PORTS (comma-separated) and WP_ACCESSIBLE_HOSTS (the mirror's host).
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

// wp_safe_remote_get only allows ports 80, 443 and 8080 (and the site's own): a local mirror runs on another.
add_filter(
	'http_allowed_safe_ports',
	function ( $ports ) {
		$local = defined( 'LOCAL_SITE_MIRROR_PORTS' ) ? array_map( 'intval', explode( ',', LOCAL_SITE_MIRROR_PORTS ) ) : array();
		return array_merge( (array) $ports, $local );
	}
);
// A mirror on a loopback host other than the site's own (localhost for a site on 127.0.0.1).
add_filter(
	'http_request_host_is_external',
	function ( $external, $host ) {
		$hosts = defined( 'WP_ACCESSIBLE_HOSTS' ) ? array_map( 'trim', explode( ',', WP_ACCESSIBLE_HOSTS ) ) : array();
		return $external || in_array( strtolower( $host ), $hosts, true );
	},
	10,
	2
);
// No mail leaves a local site.
add_filter( 'pre_wp_mail', '__return_false' );
// Only the plugin's poll runs from WP-Cron here: core's update and HTTPS checks would call out (blocked)
// or back into this single local server, making each GET /wp-cron.php slow and its outcome uncertain.
add_filter(
	'pre_schedule_event',
	function ( $pre, $event ) {
		return isset( $event->hook ) && 'contractor_pricing_poll' === $event->hook ? $pre : false;
	},
	10,
	2
);
