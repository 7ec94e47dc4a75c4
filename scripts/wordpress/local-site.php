<?php
/**
 * Plugin Name: Local site (scripts/wordpress_site.sh)
 * Description: Makes a local test site quiet. Never on a real site.
 *
 * Installed as a must-use plugin by scripts/wordpress_site.sh only. It opens no port and no host to
 * WordPress's safe requests: the Contractor Pricing plugin reaches its mirror on any port by its own
 * rule (Contractor_Pricing_Mirror_Client), as it must on a contractor's site, so the local site tests it.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

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
