<?php
/**
 * The core sitemap provider (WordPress 5.5+): `/wp-sitemap-contractorpricing-1.xml` lists the pricing pages.
 *
 * Loaded on `wp_sitemaps_init`, when core's WP_Sitemaps_Provider is defined.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * One page of entries, each with the lastmod rule of Contractor_Pricing_Sitemap; no pages while nothing is stored.
 */
class Contractor_Pricing_Sitemap_Provider extends WP_Sitemaps_Provider {

	/**
	 * Named after the plugin (core allows only lowercase letters here).
	 */
	public function __construct() {
		$this->name        = Contractor_Pricing_Sitemap::PROVIDER;
		$this->object_type = Contractor_Pricing_Sitemap::PROVIDER;
	}

	/**
	 * The entries: `loc` and `lastmod` of every pricing page.
	 *
	 * @param int    $page_num       The page of the sitemap.
	 * @param string $object_subtype Unused: one list.
	 * @return array[]
	 */
	public function get_url_list( $page_num, $object_subtype = '' ) {
		return 1 === (int) $page_num ? Contractor_Pricing_Sitemap::entries() : array();
	}

	/**
	 * One page while there are entries, else none (the index then leaves this sitemap out).
	 *
	 * @param string $object_subtype Unused: one list.
	 * @return int
	 */
	public function get_max_num_pages( $object_subtype = '' ) {
		return Contractor_Pricing_Sitemap::entries() ? 1 : 0;
	}
}
