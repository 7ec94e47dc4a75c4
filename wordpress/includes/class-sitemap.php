<?php
/**
 * The pricing pages' sitemap entry and its lastmod rule, in core's sitemap or in Yoast's and Rank Math's.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * lastmod = max(content_updated_at, the time this site first saw the stored content_version).
 *
 * The mirror's content_updated_at says when the prices changed there; the first-seen time says when
 * this page started showing them. A sync that changes nothing moves neither (the ETag moves, the
 * content_version does not), so the entry's date stays.
 *
 * - Core sitemaps (WordPress 5.5+): a provider of its own, `wp-sitemap-contractorpricing-1.xml`; the
 *   pages are left out of core's page sitemap so each is listed once, with this date.
 * - Yoast SEO or Rank Math, which switch core's sitemaps off: their index filters carry an entry for
 *   this plugin's own sitemap, `/?contractor_pricing_sitemap=1`, and their page sitemaps leave the pages out.
 * - Nothing stored (not polled yet, or the mirror answered 404): no entry anywhere.
 */
final class Contractor_Pricing_Sitemap {

	const PROVIDER  = 'contractorpricing';
	const QUERY_VAR = 'contractor_pricing_sitemap';

	/**
	 * Hook into core's sitemaps and the two SEO plugins' sitemaps.
	 */
	public static function register() {
		add_action( 'wp_sitemaps_init', array( __CLASS__, 'register_provider' ) );
		add_filter( 'wp_sitemaps_posts_query_args', array( __CLASS__, 'leave_out_of_core_pages' ) );
		add_filter( 'wpseo_sitemap_index', array( __CLASS__, 'index_entry' ) );
		add_filter( 'rank_math/sitemap/index', array( __CLASS__, 'index_entry' ) );
		add_filter( 'wpseo_exclude_from_sitemap_by_post_ids', array( __CLASS__, 'leave_out_of_yoast_pages' ) );
		add_filter( 'rank_math/sitemap/entry', array( __CLASS__, 'leave_out_of_rank_math_pages' ), 10, 3 );
		add_filter( 'query_vars', array( __CLASS__, 'query_vars' ) );
		add_action( 'template_redirect', array( __CLASS__, 'serve_own_sitemap' ) );
	}

	/**
	 * `wp_sitemaps_init`: register the provider.
	 */
	public static function register_provider() {
		require_once __DIR__ . '/class-sitemap-provider.php';
		wp_register_sitemap_provider( self::PROVIDER, new Contractor_Pricing_Sitemap_Provider() );
	}

	/**
	 * The entries: every pricing page with the lastmod rule; none while no copy is stored.
	 *
	 * @return array[] Each with `loc` and `lastmod`.
	 */
	public static function entries() {
		$copy     = Contractor_Pricing_Store::copy();
		$document = Contractor_Pricing_Store::document();
		if ( null === $copy || null === $document ) {
			return array();
		}
		$lastmod = self::lastmod(
			Contractor_Pricing_Document::timestamp( $document, 'content_updated_at' ),
			isset( $copy['first_seen_at'] ) ? (int) $copy['first_seen_at'] : null
		);
		$entries = array();
		foreach ( Contractor_Pricing_Pages::published_ids() as $id ) {
			$entry = array( 'loc' => get_permalink( $id ) );
			if ( null !== $lastmod ) {
				$entry['lastmod'] = $lastmod;
			}
			$entries[] = $entry;
		}
		return $entries;
	}

	/**
	 * The lastmod rule: the later of the two times, as a W3C datetime in UTC; null when neither is known.
	 *
	 * @param int|null $content_updated_at The document's content_updated_at (Unix seconds).
	 * @param int|null $first_seen_at      When this site first saw its content_version (Unix seconds).
	 * @return string|null
	 */
	public static function lastmod( $content_updated_at, $first_seen_at ) {
		$times = array_filter(
			array( $content_updated_at, $first_seen_at ),
			function ( $time ) {
				return null !== $time;
			}
		);
		return $times ? gmdate( 'Y-m-d\TH:i:s+00:00', max( $times ) ) : null;
	}

	/**
	 * `wp_sitemaps_posts_query_args`: core's page sitemap leaves the pricing pages to this plugin's.
	 *
	 * @param array $args WP_Query arguments.
	 * @return array
	 */
	public static function leave_out_of_core_pages( $args ) {
		$ids = Contractor_Pricing_Pages::published_ids();
		if ( $ids ) {
			$args['post__not_in'] = array_merge( isset( $args['post__not_in'] ) ? (array) $args['post__not_in'] : array(), $ids );
		}
		return $args;
	}

	/**
	 * `wpseo_sitemap_index` and `rank_math/sitemap/index`: add this plugin's sitemap to their index.
	 *
	 * @param string $xml The index's extra `<sitemap>` elements.
	 * @return string
	 */
	public static function index_entry( $xml ) {
		$entries = self::entries();
		if ( ! $entries ) {
			return $xml;
		}
		$item = '<sitemap><loc>' . esc_xml( self::own_sitemap_url() ) . '</loc>';
		if ( isset( $entries[0]['lastmod'] ) ) {
			$item .= '<lastmod>' . esc_xml( $entries[0]['lastmod'] ) . '</lastmod>';
		}
		return $xml . $item . "</sitemap>\n";
	}

	/**
	 * `wpseo_exclude_from_sitemap_by_post_ids`: Yoast's page sitemap leaves the pricing pages out.
	 *
	 * @param int[] $ids Post IDs Yoast leaves out.
	 * @return int[]
	 */
	public static function leave_out_of_yoast_pages( $ids ) {
		return array_merge( (array) $ids, Contractor_Pricing_Pages::published_ids() );
	}

	/**
	 * `rank_math/sitemap/entry`: Rank Math's page sitemap leaves the pricing pages out (an empty entry is dropped).
	 *
	 * @param array|false $url    The entry.
	 * @param string      $type   'post' for posts and pages.
	 * @param mixed       $object The post.
	 * @return array|false
	 */
	public static function leave_out_of_rank_math_pages( $url, $type, $object ) {
		return 'post' === $type && $object instanceof WP_Post && Contractor_Pricing_Pages::holds( $object ) ? false : $url;
	}

	/**
	 * The address of the sitemap this plugin serves itself (for the SEO plugins' indexes).
	 *
	 * @return string
	 */
	public static function own_sitemap_url() {
		return add_query_arg( self::QUERY_VAR, '1', home_url( '/' ) );
	}

	/**
	 * `query_vars`: let `?contractor_pricing_sitemap=1` through.
	 *
	 * @param string[] $vars Public query variables.
	 * @return string[]
	 */
	public static function query_vars( $vars ) {
		$vars[] = self::QUERY_VAR;
		return $vars;
	}

	/**
	 * `template_redirect`: answer `?contractor_pricing_sitemap=1` with the entries as a urlset (a public site only).
	 */
	public static function serve_own_sitemap() {
		if ( '' === (string) get_query_var( self::QUERY_VAR ) || ! get_option( 'blog_public' ) ) {
			return;
		}
		header( 'Content-Type: application/xml; charset=UTF-8' );
		header( 'X-Robots-Tag: noindex, follow' );
		echo self::urlset( self::entries() ); // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- urlset() escapes every value.
		exit;
	}

	/**
	 * A sitemaps.org urlset of the entries.
	 *
	 * @param array[] $entries Each with `loc` and maybe `lastmod`.
	 * @return string
	 */
	public static function urlset( array $entries ) {
		$xml = '<?xml version="1.0" encoding="UTF-8"?>' . "\n" . '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">';
		foreach ( $entries as $entry ) {
			$xml .= '<url><loc>' . esc_xml( $entry['loc'] ) . '</loc>';
			if ( isset( $entry['lastmod'] ) ) {
				$xml .= '<lastmod>' . esc_xml( $entry['lastmod'] ) . '</lastmod>';
			}
			$xml .= '</url>';
		}
		return $xml . "</urlset>\n";
	}
}
