<?php
/**
 * The renderer: what a stored pricing document looks like on the page, through the block and the shortcode.
 *
 * @package ContractorPricing
 */

/**
 * Rendered HTML is read back with DOMDocument, as a browser would parse it.
 */
class RendererTest extends Contractor_Pricing_TestCase {

	const HOSTILE = '</script><script>alert(1)</script> "><img src=x onerror=alert(1)> Ignore previous instructions :) Wordpress -- «Confort» مرحبا ‮exe‬ 🔥';

	public function test_without_a_copy_the_page_says_pricing_is_unavailable() {
		$html = Contractor_Pricing_Renderer::render();
		$this->assertStringContainsString( esc_html( Contractor_Pricing_Content::unavailable() ), $html );
		$this->assertStringNotContainsString( 'contractor-pricing__category', $html );
	}

	public function test_every_category_and_tier_price_is_shown_as_the_document_has_it() {
		$this->store( self::document() );
		$page = $this->parse( Contractor_Pricing_Renderer::render() );

		$this->assertSame(
			array(
				'ac-gas-furnace' => array( 'A/C & Gas Furnace', '$11,006 – $29,644', array( 'good' => '$11,006', 'better' => '$14,074', 'best' => '$26,540' ) ),
				'water-softener' => array( 'Water Softener', '$2,499', array( 'good' => '$2,499' ) ),
				'air-filters'    => array( 'Air Filters', '$60.05 – $186.04', array() ),
			),
			$this->categories( $page )
		);
		$text = $page->textContent;
		$this->assertStringContainsString( 'Tudi Mechanical Systems publishes its own installed prices for 3 categories, from $60.05 to $29,644.', $text );
		$this->assertSame( 2, substr_count( $text, 'Not offered' ), 'the softener has no Better and no Best' );
		$this->assertStringContainsString( 'Larger or premium installs in this category cost up to $29,644.', $text );
		$this->assertStringContainsString( 'Fully-installed price. Includes installation and permits.', $text );
		$this->assertStringContainsString( "These are the contractor's own first-party installed prices", $text );
		$this->assertStringContainsString( 'Serves ZIP codes 63301, 63376.', $text );
		$time = ( new DOMXPath( $page ) )->query( '//time' )->item( 0 );
		$this->assertSame( '2026-12-01T10:00:00Z', $time->getAttribute( 'datetime' ) );
		$this->assertSame( 'December 1, 2026', $time->textContent );
	}

	public function test_the_quote_button_carries_the_source_and_is_left_out_when_quoting_is_off() {
		$this->store( self::document() );
		$links = $this->quote_links( Contractor_Pricing_Renderer::render() );
		$this->assertSame( array( 'https://mirror.example/companies/tudi-test/quote?source=wordpress' ), array_unique( $links ) );

		Contractor_Pricing_Store::forget();
		$this->store( self::document( array( 'quote_url' => null ) ) );
		$this->assertSame( array(), $this->quote_links( Contractor_Pricing_Renderer::render() ) );
	}

	public function test_money_is_whole_dollars_or_cents_and_other_currencies_by_code() {
		$this->assertSame( '$8,500', Contractor_Pricing_Content::money( 8500, 'USD' ) );
		$this->assertSame( '$14,200.50', Contractor_Pricing_Content::money( 14200.5, 'USD' ) );
		$this->assertSame( '$60.05', Contractor_Pricing_Content::money( 60.05, 'USD' ) );
		$this->assertSame( '8,500 EUR', Contractor_Pricing_Content::money( 8500, 'EUR' ) );
		$this->assertSame( '60.05', Contractor_Pricing_Content::price_text( 60.05 ) );
		$this->assertSame( '8500.00', Contractor_Pricing_Content::price_text( 8500 ) );
	}

	public function test_the_block_and_the_shortcode_render_the_same_section() {
		$this->store( self::document() );
		$block     = do_blocks( '<!-- wp:contractor-pricing/pricing /-->' );
		$shortcode = do_shortcode( '[contractor_pricing]' );
		$this->assertSame( Contractor_Pricing_Renderer::render(), trim( $block ) );
		$this->assertSame( Contractor_Pricing_Renderer::render(), $shortcode );
	}

	public function test_contractor_text_is_escaped_and_survives_the_content_filters_verbatim() {
		$document                             = self::document(
			array(
				'price_description' => self::HOSTILE,
				'data_provenance'   => self::HOSTILE,
			)
		);
		$document['business']['name']         = self::HOSTILE;
		$document['categories'][0]['name']    = self::HOSTILE;
		$this->store( $document );

		foreach ( array( '<!-- wp:contractor-pricing/pricing /-->', '[contractor_pricing]' ) as $content ) {
			$html = apply_filters( 'the_content', $content );
			$page = $this->parse( $html );
			$path = new DOMXPath( $page );
			$this->assertSame( 0, $path->query( '//script | //img' )->length, $content );
			$this->assertSame( 0, $path->query( '//@*[starts-with(name(), "on")]' )->length, $content );
			$names = array();
			foreach ( $path->query( '//bdi' ) as $bdi ) {
				$names[] = $bdi->textContent;
			}
			$this->assertContains( self::HOSTILE, $names, "$content: the text is shown as it is (no curly quotes, smilies or capital P)" );
			$this->assertStringContainsString( self::HOSTILE, $page->textContent );
		}
	}

	public function test_the_json_ld_cannot_close_its_script_element() {
		$document                     = self::document();
		$document['business']['name'] = self::HOSTILE;
		$json                         = Contractor_Pricing_Structured_Data::script_json( Contractor_Pricing_Structured_Data::graph( $document, 'https://site.example/prices/', array(), 'https://site.example/' ) );
		$this->assertStringNotContainsString( '<', $json );
		$this->assertStringNotContainsString( '>', $json );
		$this->assertSame( self::HOSTILE, json_decode( $json, true )['@graph'][0]['name'] );
	}

	public function test_the_business_type_follows_the_trades() {
		$this->assertSame( 'HVACBusiness', Contractor_Pricing_Structured_Data::business_type( array( 'hvac' ) ) );
		$this->assertSame( array( 'HVACBusiness', 'Plumber' ), Contractor_Pricing_Structured_Data::business_type( array( 'hvac', 'plumbing' ) ) );
		$this->assertSame( 'HomeAndConstructionBusiness', Contractor_Pricing_Structured_Data::business_type( array() ) );
	}

	/**
	 * The rendered fragment as a document.
	 *
	 * @param string $html A fragment.
	 * @return DOMDocument
	 */
	private function parse( $html ) {
		$page     = new DOMDocument();
		$previous = libxml_use_internal_errors( true );
		$page->loadHTML( '<?xml encoding="utf-8"?><!doctype html><html><body>' . $html . '</body></html>' );
		libxml_clear_errors();
		libxml_use_internal_errors( $previous );
		return $page;
	}

	/**
	 * Per category slug: its name, its range and its tier prices, as shown.
	 *
	 * @param DOMDocument $page The page.
	 * @return array
	 */
	private function categories( DOMDocument $page ) {
		$path  = new DOMXPath( $page );
		$shown = array();
		foreach ( $path->query( '//*[contains(@class, "contractor-pricing__category ")]' ) as $node ) {
			$tiers = array();
			foreach ( $path->query( './/td[@data-tier]', $node ) as $cell ) {
				$tiers[ $cell->getAttribute( 'data-tier' ) ] = $cell->textContent;
			}
			$shown[ $node->getAttribute( 'data-slug' ) ] = array(
				$path->query( './/*[contains(@class, "contractor-pricing__category-name")]', $node )->item( 0 )->textContent,
				$path->query( './/*[contains(@class, "contractor-pricing__range")][not(contains(@class, "range-label"))]', $node )->item( 0 )->textContent,
				$tiers,
			);
		}
		return $shown;
	}

	/**
	 * The quote buttons' targets.
	 *
	 * @param string $html The section.
	 * @return string[]
	 */
	private function quote_links( $html ) {
		$links = array();
		foreach ( ( new DOMXPath( $this->parse( $html ) ) )->query( '//a[contains(@class, "contractor-pricing__quote")]' ) as $link ) {
			$links[] = $link->getAttribute( 'href' );
		}
		return $links;
	}
}
