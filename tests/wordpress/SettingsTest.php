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

	/**
	 * Issue 32's walkthrough: a newcomer pastes the pricing.json address `make run` prints (or the hosted page's)
	 * as the mirror address. The mirror's own address before `/companies` is saved, the key after it fills an
	 * empty key field (never a typed one), and the page says what was saved; a mirror under a path keeps it.
	 */
	public function test_a_companys_own_address_saves_the_mirrors_address_and_says_so() {
		global $wp_settings_errors;
		if ( ! function_exists( 'add_settings_error' ) ) {
			require_once ABSPATH . 'wp-admin/includes/template.php'; // The Settings API's messages, as on the settings page.
		}
		$saved = function ( $url, $key ) use ( &$wp_settings_errors ) {
			$wp_settings_errors = array();
			$clean = Contractor_Pricing_Settings::sanitize( array( 'mirror_url' => $url, 'plugin_key' => $key ) );
			return array( $clean['mirror_url'], $clean['plugin_key'], wp_list_pluck( get_settings_errors( Contractor_Pricing_Settings::OPTION ), 'type' ) );
		};
		$json = 'http://127.0.0.1:8721/companies/000qeNvgDSrmHEbIejt1beAWureP3Z5HrsB3NZFq/pricing.json';
		$this->assertSame( array( 'http://127.0.0.1:8721', '000qeNvgDSrmHEbIejt1beAWureP3Z5HrsB3NZFq', array( 'success' ) ), $saved( $json, '' ) );
		$this->assertSame( array( 'http://127.0.0.1:8721', self::KEY, array( 'success' ) ), $saved( $json, self::KEY ), 'a typed key stays' );
		$this->assertSame( array( 'https://mirror.example/catalog', self::KEY, array( 'success' ) ), $saved( 'https://mirror.example/catalog/companies/tudi-test/pricing', '' ) );
		$this->assertSame( array( 'https://mirror.example', '', array( 'success' ) ), $saved( 'https://mirror.example/companies/', '' ) );
		$said = get_settings_errors( Contractor_Pricing_Settings::OPTION );
		$this->assertSame( 'The mirror address is saved as https://mirror.example: the plugin adds /companies/KEY/pricing.json to it itself.', $said[0]['message'] );

		// A mirror's own address, under a path or not, is saved as typed, without a word.
		foreach ( array( 'https://mirror.example', 'https://mirror.example/catalog', 'https://mirror.example/companies-mirror' ) as $mirror ) {
			$this->assertSame( array( $mirror, self::KEY, array() ), $saved( $mirror . '/', self::KEY ) );
		}
		$wp_settings_errors = array();
	}
}
