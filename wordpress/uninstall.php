<?php
/**
 * Uninstall: remove every option and scheduled event the plugin made.
 *
 * @package ContractorPricing
 */

defined( 'WP_UNINSTALL_PLUGIN' ) || exit;

require_once __DIR__ . '/includes/class-settings.php';
require_once __DIR__ . '/includes/class-store.php';
require_once __DIR__ . '/includes/class-poller.php';

Contractor_Pricing_Store::forget();
delete_option( Contractor_Pricing_Settings::OPTION );
Contractor_Pricing_Poller::unschedule();
