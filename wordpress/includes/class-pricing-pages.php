<?php
/**
 * Which pages show the prices: those holding the block or the shortcode (JSON-LD and the sitemap follow them).
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * The block `contractor-pricing/pricing` and the shortcode `[contractor_pricing]`, and the posts holding either.
 */
final class Contractor_Pricing_Pages {

	const BLOCK     = 'contractor-pricing/pricing';
	const SHORTCODE = 'contractor_pricing';

	/**
	 * Whether a post's content holds the block or the shortcode.
	 *
	 * @param WP_Post|int|null $post The post.
	 * @return bool
	 */
	public static function holds( $post ) {
		$post = get_post( $post );
		if ( ! $post instanceof WP_Post ) {
			return false;
		}
		return has_block( self::BLOCK, $post ) || has_shortcode( $post->post_content, self::SHORTCODE );
	}

	/**
	 * Whether this request shows one published page holding the prices.
	 *
	 * @return bool
	 */
	public static function is_pricing_request() {
		return is_singular() && self::holds( get_queried_object() );
	}

	/**
	 * The published, public, password-free posts holding the prices, by ID.
	 *
	 * @return int[]
	 */
	public static function published_ids() {
		global $wpdb;
		$types = array_values( array_diff( get_post_types( array( 'public' => true ) ), array( 'attachment' ) ) );
		if ( empty( $types ) ) {
			return array();
		}
		$in  = implode( ', ', array_fill( 0, count( $types ), '%s' ) );
		$sql = "SELECT ID FROM {$wpdb->posts} WHERE post_status = 'publish' AND post_password = '' AND post_type IN ($in)"
			. ' AND (post_content LIKE %s OR post_content LIKE %s) ORDER BY ID';
		$ids = $wpdb->get_col(
			$wpdb->prepare(
				$sql, // phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared -- only placeholders are interpolated.
				array_merge(
					$types,
					array(
						'%' . $wpdb->esc_like( '[' . self::SHORTCODE ) . '%',
						'%' . $wpdb->esc_like( '<!-- wp:' . self::BLOCK ) . '%',
					)
				)
			)
		);
		return array_values( array_filter( array_map( 'intval', $ids ), array( __CLASS__, 'holds' ) ) );
	}
}
