<?php
/**
 * The head of a pricing page: its JSON-LD and its description, from the same stored document as the visible prices.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * Printed in `wp_head` only on a page holding the block or the shortcode, and only while a copy is stored:
 *
 * - the JSON-LD graph (Contractor_Pricing_Structured_Data), escaped for a script element;
 * - `<meta name="description">` saying what the headlines say (docs/pricing-page.md, rule 1), unless Yoast SEO
 *   or Rank Math are active: they print the page's description, as the contractor set it there.
 */
final class Contractor_Pricing_Page_Head {

	/**
	 * Print the head's parts on a pricing page.
	 */
	public static function register() {
		add_action( 'wp_head', array( __CLASS__, 'print_head' ) );
	}

	/**
	 * The description and the `<script type="application/ld+json">` element, when this request is a pricing page with a stored copy.
	 */
	public static function print_head() {
		if ( ! Contractor_Pricing_Pages::is_pricing_request() ) {
			return;
		}
		$document = Contractor_Pricing_Store::document();
		if ( null === $document ) {
			return;
		}
		if ( ! self::seo_plugin_owns_the_description() ) {
			echo '<meta name="description" content="' . esc_attr( Contractor_Pricing_Content::description( $document ) ) . '">' . "\n";
		}
		$graph = Contractor_Pricing_Structured_Data::graph( $document, get_permalink( get_queried_object() ) );
		echo '<script type="application/ld+json">' . Contractor_Pricing_Structured_Data::script_json( $graph ) . "</script>\n"; // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- script_json() escapes for a script element.
	}

	/**
	 * Whether Yoast SEO or Rank Math print the page's meta description.
	 *
	 * @return bool
	 */
	private static function seo_plugin_owns_the_description() {
		return defined( 'WPSEO_VERSION' ) || defined( 'RANK_MATH_VERSION' );
	}
}
