<?php
/**
 * uninstall.php: nothing of the plugin's is left behind.
 *
 * @package ContractorPricing
 */

/**
 * Runs the real uninstall.php, as WordPress does when the plugin is deleted.
 */
class UninstallTest extends Contractor_Pricing_TestCase {

	public function test_uninstall_removes_every_option_and_the_scheduled_poll() {
		$this->store( self::document() );
		Contractor_Pricing_Poller::schedule( time() + 300 );
		$this->assertNotFalse( get_option( Contractor_Pricing_Settings::OPTION, false ) );

		if ( ! defined( 'WP_UNINSTALL_PLUGIN' ) ) {
			define( 'WP_UNINSTALL_PLUGIN', 'contractor-pricing/contractor-pricing.php' );
		}
		// The installed copy's, as WordPress runs it (the site holds a copy of wordpress/, whose classes are loaded).
		include WP_PLUGIN_DIR . '/contractor-pricing/uninstall.php';

		foreach ( array( Contractor_Pricing_Settings::OPTION, Contractor_Pricing_Store::COPY, Contractor_Pricing_Store::STATUS ) as $option ) {
			$this->assertFalse( get_option( $option, false ), $option );
		}
		$this->assertFalse( wp_next_scheduled( Contractor_Pricing_Poller::HOOK ) );
	}
}
