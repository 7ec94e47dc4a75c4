<?php
/**
 * The browser embed: the mirror's webmcp.js tag on every page, when the settings ask for it.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * Prints, in wp_head, the tag exactly as the mirror documents it:
 * `<script type="module" src="https://HOST/webmcp.js" data-plugin-key="KEY"></script>`.
 * In-browser agents (WebMCP) then find the contractor's catalog tools on this site. The script itself
 * decides whether to register anything (the company's `webmcp` switch), so the tag stays harmless.
 */
final class Contractor_Pricing_Webmcp_Embed {

	/**
	 * Print the tag on the site's pages.
	 */
	public static function register() {
		add_action( 'wp_head', array( __CLASS__, 'print_tag' ), 5 );
	}

	/**
	 * The tag, or nothing when the embed is off or the plugin is not configured.
	 */
	public static function print_tag() {
		echo self::tag(); // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- tag() escapes both attributes.
	}

	/**
	 * The tag's HTML ('' when off).
	 *
	 * @return string
	 */
	public static function tag() {
		$settings = Contractor_Pricing_Settings::all();
		$src      = Contractor_Pricing_Settings::webmcp_script_url();
		if ( empty( $settings['webmcp_embed'] ) || null === $src ) {
			return '';
		}
		return '<script type="module" src="' . esc_url( $src ) . '" data-plugin-key="' . esc_attr( $settings['plugin_key'] ) . '"></script>' . "\n";
	}
}
