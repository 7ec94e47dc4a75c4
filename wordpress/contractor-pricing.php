<?php
/**
 * Plugin Name:       Contractor Pricing
 * Description:       Your own installed-prices page, its structured data and its sitemap entry, from the pricing.json your catalog mirror publishes. Add the "Contractor pricing" block or the [contractor_pricing] shortcode to a page.
 * Version:           1.3.1
 * Requires at least: 5.5
 * Requires PHP:      7.4
 * Author:            contractorcommerce
 * License:           GPL-2.0-or-later
 * License URI:       https://www.gnu.org/licenses/gpl-2.0.html
 * Text Domain:       contractor-pricing
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

define( 'CONTRACTOR_PRICING_VERSION', '1.3.1' );
define( 'CONTRACTOR_PRICING_FILE', __FILE__ );

require_once __DIR__ . '/includes/class-settings.php';
require_once __DIR__ . '/includes/class-json-reader.php';
require_once __DIR__ . '/includes/class-option-listing.php';
require_once __DIR__ . '/includes/class-pricing-document.php';
require_once __DIR__ . '/includes/class-fetch.php';
require_once __DIR__ . '/includes/class-mirror-client.php';
require_once __DIR__ . '/includes/class-store.php';
require_once __DIR__ . '/includes/class-poller.php';
require_once __DIR__ . '/includes/class-pricing-content.php';
require_once __DIR__ . '/includes/class-plain-words.php';
require_once __DIR__ . '/includes/class-renderer.php';
require_once __DIR__ . '/includes/class-pricing-pages.php';
require_once __DIR__ . '/includes/class-structured-data.php';
require_once __DIR__ . '/includes/class-page-head.php';
require_once __DIR__ . '/includes/class-sitemap.php';
require_once __DIR__ . '/includes/class-webmcp-embed.php';
require_once __DIR__ . '/includes/class-admin-notice.php';
require_once __DIR__ . '/includes/class-settings-page.php';
require_once __DIR__ . '/includes/class-plugin.php';

Contractor_Pricing_Plugin::boot();
register_activation_hook( __FILE__, array( 'Contractor_Pricing_Plugin', 'activate' ) );
register_deactivation_hook( __FILE__, array( 'Contractor_Pricing_Plugin', 'deactivate' ) );
