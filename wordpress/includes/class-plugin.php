<?php
/**
 * Wiring: each piece registers its own hooks; this class calls them and registers the block and shortcode.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * Where to start reading: boot() names every piece of the plugin.
 */
final class Contractor_Pricing_Plugin {

	/**
	 * Hook everything (called once, when WordPress loads the plugin).
	 */
	public static function boot() {
		add_action( 'init', array( __CLASS__, 'register_content' ) );
		add_action( 'init', array( 'Contractor_Pricing_Settings', 'register' ) );
		add_action( 'init', array( 'Contractor_Pricing_Settings', 'upgrade' ) );
		add_filter( 'the_content', array( 'Contractor_Pricing_Renderer', 'release' ), PHP_INT_MAX );
		Contractor_Pricing_Poller::register();
		Contractor_Pricing_Page_Head::register();
		Contractor_Pricing_Sitemap::register();
		Contractor_Pricing_Webmcp_Embed::register();
		if ( is_admin() ) {
			Contractor_Pricing_Admin_Notice::register();
			Contractor_Pricing_Settings_Page::register();
		}
	}

	/**
	 * The stylesheet, the editor script, the dynamic block (block/block.json) and the shortcode.
	 */
	public static function register_content() {
		wp_register_style( Contractor_Pricing_Renderer::STYLE, plugins_url( 'assets/pricing.css', CONTRACTOR_PRICING_FILE ), array(), CONTRACTOR_PRICING_VERSION );
		// The editor shows the server's rendering (ServerSideRender); visitors get no script at all.
		wp_register_script(
			'contractor-pricing-editor',
			plugins_url( 'block/editor.js', CONTRACTOR_PRICING_FILE ),
			array( 'wp-blocks', 'wp-element', 'wp-server-side-render', 'wp-block-editor' ),
			CONTRACTOR_PRICING_VERSION,
			true
		);
		register_block_type_from_metadata(
			dirname( CONTRACTOR_PRICING_FILE ) . '/block',
			array( 'render_callback' => array( 'Contractor_Pricing_Renderer', 'render_block' ) )
		);
		add_shortcode( Contractor_Pricing_Pages::SHORTCODE, array( 'Contractor_Pricing_Renderer', 'render_shortcode' ) );
	}

	/**
	 * Activation: start polling (the first poll runs with the next WP-Cron run).
	 */
	public static function activate() {
		Contractor_Pricing_Poller::ensure_scheduled();
	}

	/**
	 * Deactivation: stop polling; the stored copy stays until uninstall.
	 */
	public static function deactivate() {
		Contractor_Pricing_Poller::unschedule();
	}
}
