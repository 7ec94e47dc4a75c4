<?php
/**
 * The sitemap entry: its lastmod rule, and which pages it lists.
 *
 * @package ContractorPricing
 */

/**
 * lastmod = max(content_updated_at, when this site first saw the stored content_version).
 */
class SitemapTest extends Contractor_Pricing_TestCase {

	/** @var int[] Pages this test made. */
	private $pages = array();

	protected function tearDown(): void {
		foreach ( $this->pages as $id ) {
			wp_delete_post( $id, true );
		}
		parent::tearDown();
	}

	public function test_lastmod_is_the_later_of_content_updated_at_and_first_seen() {
		$updated = strtotime( '2026-11-30T08:00:00Z' );
		$seen    = strtotime( '2026-12-01T09:30:00Z' );
		$this->assertSame( '2026-12-01T09:30:00+00:00', Contractor_Pricing_Sitemap::lastmod( $updated, $seen ) );
		$this->assertSame( '2026-12-01T09:30:00+00:00', Contractor_Pricing_Sitemap::lastmod( $seen, $updated ) );
		$this->assertSame( '2026-11-30T08:00:00+00:00', Contractor_Pricing_Sitemap::lastmod( $updated, null ) );
		$this->assertNull( Contractor_Pricing_Sitemap::lastmod( null, null ) );
	}

	public function test_the_entries_list_every_published_pricing_page_with_the_rule() {
		$block     = $this->page( '<!-- wp:contractor-pricing/pricing /-->' );
		$shortcode = $this->page( '<p>Our prices:</p>[contractor_pricing]' );
		$other     = $this->page( '<p>No prices here</p>' );
		$draft     = $this->page( '[contractor_pricing]', 'draft' );
		$this->store( self::document( array( 'content_updated_at' => '2030-01-02T03:04:05.678Z' ) ) );

		$entries = Contractor_Pricing_Sitemap::entries();
		$listed  = wp_list_pluck( $entries, 'loc' );
		$this->assertContains( get_permalink( $block ), $listed );
		$this->assertContains( get_permalink( $shortcode ), $listed );
		$this->assertNotContains( get_permalink( $other ), $listed );
		$this->assertNotContains( get_permalink( $draft ), $listed );
		// content_updated_at is later than this site's first sight of the version here.
		$this->assertSame( array( '2030-01-02T03:04:05+00:00' ), array_unique( wp_list_pluck( $entries, 'lastmod' ) ) );

		Contractor_Pricing_Store::forget();
		$this->store( self::document() );
		$first_seen = Contractor_Pricing_Store::copy()['first_seen_at'];
		// Now the first sight is the later one.
		$this->assertSame( array( gmdate( 'Y-m-d\TH:i:s+00:00', $first_seen ) ), array_unique( wp_list_pluck( Contractor_Pricing_Sitemap::entries(), 'lastmod' ) ) );
	}

	public function test_nothing_is_listed_without_a_copy_and_core_leaves_the_pages_to_the_plugin() {
		$block = $this->page( '<!-- wp:contractor-pricing/pricing /-->' );
		$this->assertSame( array(), Contractor_Pricing_Sitemap::entries() );
		$this->assertSame( '', Contractor_Pricing_Sitemap::index_entry( '' ) );

		$args = Contractor_Pricing_Sitemap::leave_out_of_core_pages( array( 'post_type' => 'page' ) );
		$this->assertContains( $block, $args['post__not_in'] );
	}

	public function test_yoast_and_rank_math_get_the_same_entry() {
		$block = $this->page( '<!-- wp:contractor-pricing/pricing /-->' );
		$this->store( self::document() );
		$lastmod = Contractor_Pricing_Sitemap::entries()[0]['lastmod'];

		foreach ( array( 'wpseo_sitemap_index', 'rank_math/sitemap/index' ) as $filter ) {
			$index = apply_filters( $filter, '' );
			$this->assertStringContainsString( '<loc>' . esc_xml( Contractor_Pricing_Sitemap::own_sitemap_url() ) . '</loc>', $index, $filter );
			$this->assertStringContainsString( "<lastmod>$lastmod</lastmod>", $index, $filter );
		}
		$urlset = Contractor_Pricing_Sitemap::urlset( Contractor_Pricing_Sitemap::entries() );
		$this->assertStringContainsString( '<loc>' . esc_xml( get_permalink( $block ) ) . "</loc><lastmod>$lastmod</lastmod>", $urlset );
		$this->assertContains( $block, apply_filters( 'wpseo_exclude_from_sitemap_by_post_ids', array() ) );
		$this->assertFalse( apply_filters( 'rank_math/sitemap/entry', array( 'loc' => get_permalink( $block ) ), 'post', get_post( $block ) ) );
	}

	/**
	 * Publish (or draft) a page.
	 *
	 * @param string $content Its content.
	 * @param string $status  Its status.
	 * @return int
	 */
	private function page( $content, $status = 'publish' ) {
		$id            = wp_insert_post(
			array(
				'post_type'    => 'page',
				'post_status'  => $status,
				'post_title'   => 'Test page ' . count( $this->pages ),
				'post_content' => $content,
			)
		);
		$this->pages[] = $id;
		return $id;
	}
}
