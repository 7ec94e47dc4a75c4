<?php
/**
 * The settings: what is a setting, and what an upgrade from 1.0.0 leaves of its option.
 *
 * @package ContractorPricing
 */

/**
 * 1.0.0 asked for the contractor's trades; pricing.json carries them now, so they are a setting no more.
 */
class SettingsTest extends Contractor_Pricing_TestCase {

	public function test_an_upgrade_from_1_0_0_drops_the_trades_and_keeps_the_rest() {
		$saved = array(
			'mirror_url'   => self::MIRROR,
			'plugin_key'   => self::KEY,
			'trades'       => array( 'hvac' ),
			'webmcp_embed' => true,
		);
		update_option( Contractor_Pricing_Settings::OPTION, $saved );
		$this->store( self::document() );
		$copy = Contractor_Pricing_Store::copy();
		$this->assertArrayNotHasKey( 'trades', Contractor_Pricing_Settings::all() );

		// The plugin runs the upgrade on `init`, as on the first request after the new version is in place.
		$this->assertNotFalse( has_action( 'init', array( 'Contractor_Pricing_Settings', 'upgrade' ) ) );
		Contractor_Pricing_Settings::upgrade();

		$this->assertSame(
			array(
				'mirror_url'   => self::MIRROR,
				'plugin_key'   => self::KEY,
				'quote_source' => '',
				'webmcp_embed' => true,
			),
			get_option( Contractor_Pricing_Settings::OPTION )
		);
		$this->assertSame( $copy, Contractor_Pricing_Store::copy(), 'the same mirror and key: the stored copy stays' );
	}

	public function test_the_settings_form_has_no_trades_field_and_saving_ignores_one() {
		$clean = Contractor_Pricing_Settings::sanitize(
			array(
				'mirror_url' => self::MIRROR,
				'plugin_key' => self::KEY,
				'trades'     => array( 'hvac' ),
			)
		);
		$this->assertSame( array( 'mirror_url', 'plugin_key', 'quote_source', 'webmcp_embed' ), array_keys( $clean ) );
	}

	/**
	 * The quote link's label follows the mirror's rule for `?source=` (web/sources.py: a label's first 64
	 * characters are recorded, a blank one is none): up to 64 characters are kept whole, a longer one is refused
	 * rather than cut, and blank means "wordpress".
	 */
	public function test_the_quote_links_label_is_one_the_mirror_records_whole() {
		$saved = function ( $label ) {
			return Contractor_Pricing_Settings::sanitize( array_merge( Contractor_Pricing_Settings::all(), array( 'quote_source' => $label ) ) )['quote_source'];
		};
		$this->assertSame( '', $saved( '   ' ) );
		$this->assertSame( Contractor_Pricing_Settings::QUOTE_SOURCE, Contractor_Pricing_Settings::quote_source() );
		$this->assertSame( 'tudi.example blog', $saved( ' tudi.example blog ' ) );
		$this->assertSame( str_repeat( 'é', 64 ), $saved( str_repeat( 'é', 64 ) ) );

		update_option( Contractor_Pricing_Settings::OPTION, array_merge( Contractor_Pricing_Settings::all(), array( 'quote_source' => 'homepage' ) ) );
		$this->assertSame( 'homepage', Contractor_Pricing_Settings::quote_source() );
		foreach ( array( str_repeat( 'a', 65 ), "new\nline", "n\0ul", array( 'x' ) ) as $refused ) {
			$this->assertSame( 'homepage', $saved( $refused ), 'a refused label keeps the saved one' );
		}
	}
}
