<?php
/**
 * The renderer: what a stored pricing document looks like on the page, through the block and the shortcode,
 * by the content rules of docs/pricing-page.md.
 *
 * @package ContractorPricing
 */

/**
 * Rendered HTML is read back with DOMDocument, as a browser would parse it.
 */
class RendererTest extends Contractor_Pricing_TestCase {

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
				'ac-gas-furnace' => array( 'A/C & Gas Furnace', 'Installed price range', '$11,006 – $29,644', array( 'good' => '$11,006', 'better' => '$14,074', 'best' => '$26,540' ) ),
				'water-softener' => array( 'Water Softener', 'Installed price', '$2,499', array( 'good' => '$2,499' ) ),
				'air-filters'    => array( 'Air Filters', null, '$60.05 – $186.04', array() ),
			),
			$this->categories( $page )
		);
		$text = $page->textContent;
		$this->assertSame( 2, substr_count( $text, 'Not offered' ), 'the softener has no Better and no Best' );
		$this->assertStringContainsString( 'Fully-installed price. Includes installation and permits.', $text );
		$this->assertStringContainsString( "These are the contractor's own first-party installed prices", $text );
		$this->assertStringContainsString( 'Serves ZIP codes 63301, 63376.', $text );
		$time = ( new DOMXPath( $page ) )->query( '//time' )->item( 0 );
		$this->assertSame( '2026-12-01T10:00:00Z', $time->getAttribute( 'datetime' ) );
		$this->assertSame( 'December 1, 2026', $time->textContent );
		// Never a claim of what a price depends on: each size's own price is shown instead.
		$this->assertDoesNotMatchRegularExpression( '/larger|premium|depends on|rise with/i', $text );
	}

	public function test_a_headline_per_kind_each_from_its_own_categories() {
		$this->store( self::document() );
		$this->assertSame(
			array(
				'system'    => 'Installed heating and cooling systems from $2,499',
				'accessory' => 'Parts and add-ons from $60.05',
			),
			$this->headlines( Contractor_Pricing_Renderer::render() ),
			'the $60.05 filters never set where installed systems start'
		);
		$this->assertSame(
			'Tudi Mechanical Systems: installed heating and cooling systems from $2,499; parts and add-ons from $60.05.',
			Contractor_Pricing_Content::description( self::document() )
		);
	}

	/**
	 * The systems are named as pricing.json's business.systems_label says (the mirror names them after
	 * the business's one trade); a stored copy from a mirror without the field says "systems".
	 *
	 * @return array[]
	 */
	public function systems_labels() {
		return array(
			'hvac'           => array( 'heating and cooling systems', 'Installed heating and cooling systems from $2,499' ),
			'plumbing'       => array( 'plumbing systems', 'Installed plumbing systems from $2,499' ),
			'several trades' => array( 'systems', 'Installed systems from $2,499' ),
			'not published'  => array( null, 'Installed systems from $2,499' ),
		);
	}

	/**
	 * @dataProvider systems_labels
	 *
	 * @param string|null $label    business.systems_label (null: the field is absent).
	 * @param string      $headline The systems' headline.
	 */
	public function test_the_systems_headline_names_the_systems_as_the_document_does( $label, $headline ) {
		$document = self::document();
		unset( $document['business']['systems_label'] );
		if ( null !== $label ) {
			$document['business']['systems_label'] = $label;
		}
		$this->assertTrue( Contractor_Pricing_Document::is_valid( $document ) );
		$this->assertSame( $headline, Contractor_Pricing_Content::headlines( $document )[0]['text'] );
	}

	public function test_without_categories_the_headline_says_nothing_is_published_and_only_kinds_published_get_one() {
		$this->store( self::document( array( 'categories' => array() ) ) );
		$page = $this->parse( Contractor_Pricing_Renderer::render() );
		$this->assertSame( array(), $this->headlines( Contractor_Pricing_Renderer::render() ) );
		$this->assertStringContainsString( 'Tudi Mechanical Systems has not published any installed prices yet.', self::text( $page ) );
		$this->assertSame( 'Tudi Mechanical Systems has not published any installed prices yet.', Contractor_Pricing_Content::description( self::document( array( 'categories' => array() ) ) ) );

		$accessories_only = self::document();
		array_splice( $accessories_only['categories'], 0, 2 );
		$this->assertSame( array( 'accessory' ), array_column( Contractor_Pricing_Content::headlines( $accessories_only ), 'kind' ) );
	}

	public function test_each_tier_row_says_what_its_starting_option_is() {
		$this->store( self::document() );
		$rows = $this->tier_rows( Contractor_Pricing_Renderer::render() );
		// Every option of the tier has its own size: each size with its price, and the size leaves the "what" line.
		$this->assertSame(
			array(
				'good'   => array( 'Good Carrier · 14.3 SEER2 · 80% AFUE 3 ton $11,006 · 4 ton $12,480', '$11,006' ),
				'better' => array( 'Better Carrier · 16 SEER2 · 96% AFUE 3 ton $14,074 · 4 ton $15,990', '$14,074' ),
				'best'   => array( 'Best Lennox · 22 SEER2 · 98% AFUE 3 ton $26,540 · 4 ton $29,644', '$26,540' ),
			),
			$rows['ac-gas-furnace']
		);
		// One option: its brand, then its size and warranty; no option: "Not offered".
		$this->assertSame(
			array(
				'good'   => array( 'Good Fleck · 48,000 grain · 10-year warranty', '$2,499' ),
				'better' => array( 'Better', 'Not offered' ),
				'best'   => array( 'Best', 'Not offered' ),
			),
			$rows['water-softener']
		);
		$page = $this->parse( Contractor_Pricing_Renderer::render() );
		$this->assertSame( array( '“Starts at” is each tier\'s lowest-priced option.' ), $this->texts( $page, '//*[@data-slug="ac-gas-furnace"]//*[contains(@class, "contractor-pricing__note")]' ) );
		$this->assertSame( array(), $this->texts( $page, '//*[@data-slug="water-softener"]//*[contains(@class, "contractor-pricing__note")]' ), 'no tier has several options' );
	}

	public function test_a_tier_whose_options_have_no_size_each_says_how_many_and_its_range() {
		$document = self::document();
		foreach ( $document['categories'][0]['options'] as $index => $option ) {
			$document['categories'][0]['options'][ $index ]['size'] = 'good' === $option['tier'] ? null : '3 ton'; // Better and Best: one size twice.
		}
		$document['categories'][0]['options'][5]['price'] = 26540; // Best: both at one price.
		$this->store( $document );
		$rows = $this->tier_rows( Contractor_Pricing_Renderer::render() )['ac-gas-furnace'];
		$this->assertSame( array( 'Good Carrier · 14.3 SEER2 · 80% AFUE 2 options: $11,006 – $12,480', '$11,006' ), $rows['good'] );
		$this->assertSame( array( 'Better Carrier · 16 SEER2 · 96% AFUE · 3 ton 2 options: $14,074 – $15,990', '$14,074' ), $rows['better'] );
		$this->assertSame( array( 'Best Lennox · 22 SEER2 · 98% AFUE · 3 ton 2 options at $26,540', '$26,540' ), $rows['best'] );
	}

	public function test_an_option_the_catalog_states_nothing_of_is_named() {
		$document                                  = self::document();
		$document['categories'][1]['options'][0] = array_merge(
			$document['categories'][1]['options'][0],
			array(
				'brand'    => null,
				'size'     => null,
				'warranty' => null,
			)
		);
		$this->store( $document );
		$rows = $this->tier_rows( Contractor_Pricing_Renderer::render() );
		$this->assertSame( array( 'Good Fleck 48,000-grain Water Softener', '$2,499' ), $rows['water-softener']['good'] );
	}

	public function test_every_published_option_is_named_in_a_list_that_opens_without_javascript() {
		$document = self::document();
		$this->store( $document );
		$page = $this->parse( Contractor_Pricing_Renderer::render() );
		$path = new DOMXPath( $page );
		foreach ( $document['categories'] as $category ) {
			$card = $path->query( '//*[@data-slug="' . $category['slug'] . '"]' )->item( 0 );
			$this->assertSame( 1, $path->query( './/details[not(@open)]/summary', $card )->length, $category['slug'] );
			$summary = self::text( $path->query( './/details/summary', $card )->item( 0 ) );
			$count   = $category['offer_count'];
			$this->assertSame( 1 === $count ? '1 published option' : "All $count published options", $summary );
			$named = array();
			foreach ( $path->query( './/details//li', $card ) as $item ) {
				$named[] = array(
					$item->getAttribute( 'data-sku' ),
					self::text( $path->query( './/*[contains(@class, "contractor-pricing__option-name")]', $item )->item( 0 ) ),
					self::text( $path->query( './/*[contains(@class, "contractor-pricing__option-price")]', $item )->item( 0 ) ),
				);
			}
			$expected = array_map(
				function ( $option ) {
					return array( $option['sku'], $option['name'], Contractor_Pricing_Content::money( $option['price'], 'USD' ) );
				},
				$category['options']
			);
			$this->assertSame( $expected, $named, $category['slug'] );
			$this->assertCount( $count, $named );
		}
		$this->assertSame( array( 'Good', 'Better', 'Best' ), $this->texts( $page, '//*[@data-slug="ac-gas-furnace"]//details//*[contains(@class, "contractor-pricing__group-title")]' ) );
		$this->assertSame( array(), $this->texts( $page, '//*[@data-slug="air-filters"]//details//*[contains(@class, "contractor-pricing__group-title")]' ), 'accessories have no groups' );
	}

	public function test_a_systems_option_without_a_tier_is_listed_under_other_options() {
		$document = self::document();
		$document['categories'][0]['options'][1]['tier'] = null; // The 4-ton Good furnace.
		$this->store( $document );
		$page = $this->parse( Contractor_Pricing_Renderer::render() );
		$this->assertSame( array( 'Good', 'Better', 'Best', 'Other options' ), $this->texts( $page, '//*[@data-slug="ac-gas-furnace"]//details//*[contains(@class, "contractor-pricing__group-title")]' ) );
		$this->assertSame( 6, ( new DOMXPath( $page ) )->query( '//*[@data-slug="ac-gas-furnace"]//details//li' )->length );
		$this->assertSame( array( 'Good Carrier · 14.3 SEER2 · 80% AFUE · 3 ton', '$11,006' ), $this->tier_rows( Contractor_Pricing_Renderer::render() )['ac-gas-furnace']['good'] );
	}

	public function test_the_quote_button_carries_the_source_and_is_left_out_when_quoting_is_off() {
		$this->store( self::document() );
		$links = $this->quote_links( Contractor_Pricing_Renderer::render() );
		$this->assertSame( array( 'https://mirror.example/companies/tudi-test/quote?source=wordpress' ), array_unique( $links ) );

		Contractor_Pricing_Store::forget();
		$this->store( self::document( array( 'quote_url' => null ) ) );
		$this->assertSame( array(), $this->quote_links( Contractor_Pricing_Renderer::render() ) );
	}

	public function test_the_quote_link_carries_the_label_the_contractor_sets() {
		$this->store( self::document() );
		update_option( Contractor_Pricing_Settings::OPTION, array_merge( Contractor_Pricing_Settings::all(), array( 'quote_source' => 'our site & blog' ) ) );
		$this->assertSame( array( 'https://mirror.example/companies/tudi-test/quote?source=our%20site%20%26%20blog' ), array_unique( $this->quote_links( Contractor_Pricing_Renderer::render() ) ) );
	}

	public function test_the_phone_stands_beside_the_quote_button_as_on_the_hosted_page() {
		$this->store( self::document() );
		$path = new DOMXPath( $this->parse( Contractor_Pricing_Renderer::render() ) );
		foreach ( array( 'contractor-pricing__actions', 'contractor-pricing__cta' ) as $place ) {
			$links = array();
			foreach ( $path->query( '//*[contains(@class, "' . $place . '")]//a' ) as $link ) {
				$links[] = array( self::text( $link ), $link->getAttribute( 'href' ) );
			}
			$this->assertSame(
				array(
					array( 'Get a quote', 'https://mirror.example/companies/tudi-test/quote?source=wordpress' ),
					array( 'Call (636) 555-0142', 'tel:+16365550142' ),
				),
				$links,
				$place
			);
		}
		$this->assertSame( array( 'tel:+16365550142' ), $this->attributes( $path, '//footer//a', 'href' ) );

		// Quoting switched off: the phone is still there, and the call to action asks for a call.
		Contractor_Pricing_Store::forget();
		$this->store( self::document( array( 'quote_url' => null ) ) );
		$page = $this->parse( Contractor_Pricing_Renderer::render() );
		$this->assertSame( array( 'Call (636) 555-0142', 'Call (636) 555-0142' ), $this->texts( $page, '//a[contains(@class, "contractor-pricing__call")]' ) );
		$this->assertStringContainsString( 'Call Tudi Mechanical Systems for a quote.', $page->textContent );

		// No phone: no call button, and nothing in its place.
		$document                      = self::document();
		$document['business']['phone'] = null;
		Contractor_Pricing_Store::forget();
		$this->store( $document );
		$this->assertSame( array(), $this->texts( $this->parse( Contractor_Pricing_Renderer::render() ), '//a[starts-with(@href, "tel:")]' ) );
	}

	public function test_while_the_mirror_is_unreachable_the_phone_and_the_quote_button_stay_as_the_last_good_copy_said() {
		$this->store( self::document() );
		$this->answers[] = new WP_Error( 'http_request_failed', 'cURL error 7: Failed to connect' );
		Contractor_Pricing_Poller::poll();
		$this->assertSame( Contractor_Pricing_Fetch::FAILED, Contractor_Pricing_Store::status()['outcome'] );
		$path = new DOMXPath( $this->parse( Contractor_Pricing_Renderer::render() ) );
		$this->assertSame( array( 'tel:+16365550142', 'tel:+16365550142', 'tel:+16365550142' ), $this->attributes( $path, '//a[starts-with(@href, "tel:")]', 'href' ) );
		$this->assertSame( array( 'https://mirror.example/companies/tudi-test/quote?source=wordpress' ), array_unique( $this->attributes( $path, '//a[contains(@class, "contractor-pricing__quote")]', 'href' ) ) );
	}

	/**
	 * The phone as the hosted page shows it (feeds/pages.py format_phone; tests/wordpress/test_wordpress_phpunit.py compares the two).
	 */
	public function test_a_us_phone_reads_as_a_person_dials_it_and_any_other_as_stored() {
		$this->assertSame( array( 'display' => '(636) 555-0142', 'tel' => 'tel:+16365550142' ), Contractor_Pricing_Content::phone( array( 'phone' => '+16365550142' ) ) );
		$this->assertSame( array( 'display' => '+44 20 7946 0958', 'tel' => 'tel:+442079460958' ), Contractor_Pricing_Content::phone( array( 'phone' => '+44 20 7946 0958' ) ) );
		$this->assertNull( Contractor_Pricing_Content::phone( array( 'phone' => null ) ) );
		$this->assertNull( Contractor_Pricing_Content::phone( array( 'phone' => 'call us' ) ) );
	}

	public function test_category_and_option_pictures_are_lazy_sized_and_named_and_the_page_stands_without_them() {
		$document = self::document();
		$document['categories'][0]['options'][0]['image_url'] = 'https://images.catalog.example/acgf-3t-good.jpg';
		$this->store( $document );
		$path = new DOMXPath( $this->parse( Contractor_Pricing_Renderer::render() ) );
		$shown = array();
		foreach ( $path->query( '//img' ) as $image ) {
			$slug    = $path->query( 'ancestor::*[@data-slug][1]', $image )->item( 0 )->getAttribute( 'data-slug' );
			$shown[] = array( $slug, $image->getAttribute( 'src' ), $image->getAttribute( 'alt' ), $image->getAttribute( 'loading' ), $image->getAttribute( 'width' ) . 'x' . $image->getAttribute( 'height' ) );
		}
		$this->assertSame(
			array(
				array( 'ac-gas-furnace', 'https://images.catalog.example/ac-gas-furnace/acgf-3t-good.jpg', 'A/C & Gas Furnace', 'lazy', '96x72' ),
				array( 'ac-gas-furnace', 'https://images.catalog.example/acgf-3t-good.jpg', 'Carrier 14.3 SEER2 A/C & 80% AFUE Gas Furnace, 3 ton', 'lazy', '40x40' ),
				array( 'air-filters', 'https://images.catalog.example/air-filters/acc-flt-m8-16x25x1.jpg', 'Air Filters', 'lazy', '64x48' ),
			),
			$shown
		);

		// Beside the category's name, in the heading.
		$this->assertSame( 'A/C & Gas Furnace', self::text( $path->query( '//img[@width="96"]/following-sibling::*[1]//h3' )->item( 0 ) ) );

		// Without pictures: no image element, no empty box, and the same words and prices.
		$with = $this->categories( $path->document );
		foreach ( $document['categories'] as &$category ) {
			$category['image_url'] = null;
		}
		unset( $category );
		unset( $document['categories'][0]['options'][0]['image_url'] );
		Contractor_Pricing_Store::forget();
		$this->store( $document );
		$page = $this->parse( Contractor_Pricing_Renderer::render() );
		$this->assertSame( 0, ( new DOMXPath( $page ) )->query( '//img | //*[contains(@class, "contractor-pricing__image")]' )->length );
		$this->assertSame( $with, $this->categories( $page ) );
	}

	/**
	 * Rule 8: an https picture always; an http one only where the page itself is http (no mixed content);
	 * anything else never; the name without bidi controls as its alt text.
	 */
	public function test_a_picture_is_shown_only_where_the_page_can_carry_it() {
		$https = array( 'name' => "A/C \u{202E}& Furnace", 'image_url' => 'https://images.example/a.jpg' );
		$http  = array( 'name' => 'A/C', 'image_url' => 'HTTP://images.example/a.jpg' );
		$this->assertSame( array( 'url' => 'https://images.example/a.jpg', 'alt' => 'A/C & Furnace' ), Contractor_Pricing_Content::image( $https, true ) );
		$this->assertNotNull( Contractor_Pricing_Content::image( $https, false ) );
		$this->assertNull( Contractor_Pricing_Content::image( $http, true ), 'an http picture on an https page would be mixed content' );
		$this->assertSame( 'HTTP://images.example/a.jpg', Contractor_Pricing_Content::image( $http, false )['url'] );
		$this->assertNull( Contractor_Pricing_Content::image( array( 'name' => 'A/C', 'image_url' => null ), false ) );
	}

	/**
	 * A document as a mirror with plain words publishes it: its glossary (each term it uses, in the order it
	 * first appears) and the plain name of a category whose name abbreviates its kind.
	 *
	 * @return array
	 */
	private static function with_plain_words() {
		$document                               = self::document(
			array(
				'glossary' => array(
					array(
						'term'    => 'A/C',
						'meaning' => 'Air conditioner: cools the house.',
					),
					array(
						'term'    => 'SEER2',
						'meaning' => 'How efficiently it cools over a season; higher uses less electricity.',
					),
					array(
						'term'    => 'AFUE',
						'meaning' => 'How much of the gas a furnace burns becomes heat in the house.',
					),
					array(
						'term'    => 'ton',
						'meaning' => 'Cooling capacity: one ton removes 12,000 BTU of heat an hour.',
					),
				),
			)
		);
		$document['categories'][0]['plain_name'] = 'Air conditioner and gas furnace';
		return $document;
	}

	public function test_each_plain_word_is_explained_where_it_first_appears_and_in_a_list_that_opens_without_javascript() {
		$this->store( self::with_plain_words() );
		$path = new DOMXPath( $this->parse( Contractor_Pricing_Renderer::render() ) );

		$marked = array();
		foreach ( $path->query( '//abbr' ) as $abbr ) {
			$marked[] = array( $abbr->textContent, $abbr->getAttribute( 'title' ), $path->query( 'ancestor::*[@class][1]', $abbr )->item( 0 )->getAttribute( 'class' ) );
		}
		$this->assertSame(
			array(
				array( 'A/C', 'Air conditioner: cools the house.', 'contractor-pricing__category-name' ),
				array( 'SEER2', 'How efficiently it cools over a season; higher uses less electricity.', 'contractor-pricing__fact' ),
				array( 'AFUE', 'How much of the gas a furnace burns becomes heat in the house.', 'contractor-pricing__fact' ),
				array( 'ton', 'Cooling capacity: one ton removes 12,000 BTU of heat an hour.', 'contractor-pricing__size' ),
			),
			$marked,
			'each term once, where the page first shows it'
		);
		// The contractor's name stays as written, the plain name beneath it.
		$card = '//*[@data-slug="ac-gas-furnace"]';
		$this->assertSame( array( 'A/C & Gas Furnace' ), $this->texts( $path->document, $card . '//h3' ) );
		$this->assertSame( array( 'Air conditioner and gas furnace' ), $this->texts( $path->document, $card . '//h3/following-sibling::p[1][contains(@class, "contractor-pricing__plain-name")]' ) );
		$this->assertSame( array(), $this->texts( $path->document, '//*[@data-slug="air-filters"]//*[contains(@class, "contractor-pricing__plain-name")]' ) );
		// Every term with its line, in a <details> list: readable on a phone, where a title never shows.
		$this->assertSame( 0, $path->query( '//script' )->length );
		$this->assertSame( array( 'What these words mean' ), $this->texts( $path->document, '//details[contains(@class, "contractor-pricing__glossary")]/summary/text()' ) );
		$this->assertSame( array( 'A/C, SEER2, AFUE, ton' ), $this->texts( $path->document, '//details[contains(@class, "contractor-pricing__glossary")]/summary/span' ), 'the summary names the terms: a phone cannot hover' );
		$this->assertSame( array( 'A/C', 'SEER2', 'AFUE', 'ton' ), $this->texts( $path->document, '//details[contains(@class, "contractor-pricing__glossary")]//dt' ) );
		$this->assertSame( 'Air conditioner: cools the house.', self::text( $path->query( '//details[contains(@class, "contractor-pricing__glossary")]//dd' )->item( 0 ) ) );
		// The words read as before: each tier row is word for word what it says without plain words.
		$rows = $this->tier_rows( Contractor_Pricing_Renderer::render() );
		Contractor_Pricing_Store::forget();
		$this->store( self::document() );
		$this->assertSame( $this->tier_rows( Contractor_Pricing_Renderer::render() ), $rows );
	}

	public function test_a_term_listed_with_two_meanings_is_explained_in_the_list_only() {
		$document = self::with_plain_words();
		array_unshift(
			$document['glossary'],
			array(
				'term'    => 'AFUE',
				'meaning' => 'A second meaning the document does not say where it applies.',
			)
		);
		$document['glossary'][] = array(
			'term'    => 'SEER2',
			'meaning' => 'How efficiently it cools over a season; higher uses less electricity.',
		);
		$this->store( $document );
		$path = new DOMXPath( $this->parse( Contractor_Pricing_Renderer::render() ) );
		$this->assertSame( array( 'A/C', 'SEER2', 'ton' ), $this->texts( $path->document, '//abbr' ), 'never the wrong meaning of AFUE' );
		$this->assertSame( array( 'AFUE', 'A/C', 'SEER2', 'AFUE', 'ton' ), $this->texts( $path->document, '//dt' ), 'both meanings listed; a repeated entry once' );
	}

	public function test_a_plain_word_is_a_whole_token_as_the_mirror_matches_it() {
		$words = new Contractor_Pricing_Plain_Words(
			array(
				array(
					'term'    => 'SEER',
					'meaning' => 'Old rating.',
					'mark'    => true,
				),
				array(
					'term'    => 'ton',
					'meaning' => 'Cooling.',
					'mark'    => true,
				),
				array(
					'term'    => 'AC',
					'meaning' => 'Air conditioner.',
					'mark'    => true,
				),
			)
		);
		$this->assertSame( '16 SEER2 ACC-FLT Boston', $words->mark( '16 SEER2 ACC-FLT Boston' ), 'never inside a longer word' );
		$this->assertSame( '3<abbr class="contractor-pricing__term" title="Cooling.">ton</abbr> &amp; <abbr class="contractor-pricing__term" title="Air conditioner.">AC</abbr>', $words->mark( '3ton & AC' ), 'a number and its unit' );
		$this->assertSame( '15 <abbr class="contractor-pricing__term" title="Old rating.">SEER</abbr> AC, 2 ton', $words->mark( '15 SEER AC, 2 ton' ), 'each word once, where it first appears' );
	}

	public function test_the_document_the_mirror_publishes_now_shows_its_words_and_pictures() {
		$document = self::published_document();
		$this->assertNotEmpty( $document['glossary'] );
		$this->store( $document );
		$path = new DOMXPath( $this->parse( Contractor_Pricing_Renderer::render() ) );
		$marked = array();
		foreach ( $path->query( '//abbr' ) as $abbr ) {
			$marked[] = $abbr->textContent;
		}
		$terms = array_column( $document['glossary'], 'term' );
		$this->assertNotEmpty( $marked );
		$this->assertSame( array(), array_diff( $marked, $terms ), 'only published terms are marked' );
		$this->assertSame( 1, $path->query( '//details[contains(@class, "contractor-pricing__glossary")]' )->length );
		$options_with_pictures = 0;
		foreach ( $document['categories'] as $category ) {
			foreach ( $category['options'] as $option ) {
				$options_with_pictures += empty( $option['image_url'] ) ? 0 : 1;
			}
		}
		$this->assertSame( $options_with_pictures, $path->query( '//img[@width="40"]' )->length );
	}

	public function test_without_plain_words_the_page_is_as_before() {
		$this->store( self::document() );
		$plain = Contractor_Pricing_Renderer::render();
		$path  = new DOMXPath( $this->parse( $plain ) );
		$this->assertSame( 0, $path->query( '//abbr | //*[contains(@class, "contractor-pricing__glossary")] | //*[contains(@class, "contractor-pricing__plain-name")]' )->length );

		Contractor_Pricing_Store::forget();
		$this->store( self::with_plain_words() );
		$this->assertSame( self::text( $path->document->documentElement ), self::text( $this->parse( preg_replace( '#<details class="contractor-pricing__panel contractor-pricing__glossary">.*?</details>|<p class="contractor-pricing__plain-name">.*?</p>#s', '', Contractor_Pricing_Renderer::render() ) )->documentElement ) );
	}

	public function test_plain_words_are_contractor_free_text_escaped_and_marked_as_whole_words_only() {
		$document             = self::document(
			array(
				'glossary' => array(
					array(
						'term'    => 'ton',
						'meaning' => self::HOSTILE,
					),
					array(
						'term'    => '<b>',
						'meaning' => 'A tag.',
					),
				),
			)
		);
		$document['categories'][0]['name']       = 'Boston <b> & ton';
		$document['categories'][0]['plain_name'] = self::HOSTILE;
		$this->store( $document );
		$html = Contractor_Pricing_Renderer::render();
		$path = new DOMXPath( $this->parse( $html ) );
		$this->assertSame( 0, $path->query( '//script | //b | //@*[starts-with(name(), "on")]' )->length );
		$this->assertSame( array( 'Boston <b> & ton' ), $this->texts( $path->document, '//*[@data-slug="ac-gas-furnace"]//h3' ) );
		$this->assertSame( array( '<b>', 'ton' ), $this->texts( $path->document, '//*[@data-slug="ac-gas-furnace"]//h3//abbr' ), '"ton" as a word, never inside "Boston"' );
		$this->assertSame( self::HOSTILE, $path->query( '//h3//abbr[. = "ton"]' )->item( 0 )->getAttribute( 'title' ) );
		$this->assertSame( self::HOSTILE, $path->query( '//*[contains(@class, "contractor-pricing__plain-name")]/bdi' )->item( 0 )->textContent );
	}

	public function test_installed_systems_lead_and_parts_and_add_ons_are_a_smaller_line() {
		$this->store( self::document() );
		$this->assertSame( array( 'system', 'accessory' ), array_keys( $this->headlines( Contractor_Pricing_Renderer::render() ) ) );
		// The stylesheet's sizes (Chromium measures them on the real page: tests/wordpress/test_wordpress.py).
		$css = (string) file_get_contents( dirname( CONTRACTOR_PRICING_FILE ) . '/assets/pricing.css' );
		preg_match( '/\.contractor-pricing__headline--system\{font-size:([\d.]+)em/', $css, $system );
		preg_match( '/\.contractor-pricing__headline--accessory\{font-size:([\d.]+)em/', $css, $accessory );
		$this->assertGreaterThanOrEqual( 1.5, (float) $system[1] / (float) $accessory[1] );
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
		$document                                        = self::document(
			array(
				'price_description' => self::HOSTILE,
				'data_provenance'   => self::HOSTILE,
			)
		);
		$document['business']['name']                    = self::HOSTILE;
		$document['categories'][0]['name']               = self::HOSTILE;
		$document['categories'][0]['options'][0]['name'] = self::HOSTILE;
		$document['categories'][0]['options'][0]['sku']  = self::HOSTILE;
		$document['categories'][0]['options'][2]['brand'] = self::HOSTILE;
		$document['categories'][1]['options'][0]         = array_merge( $document['categories'][1]['options'][0], array( 'name' => self::HOSTILE, 'brand' => null, 'size' => null, 'warranty' => null ) );
		$this->store( $document );

		foreach ( array( '<!-- wp:contractor-pricing/pricing /-->', '[contractor_pricing]' ) as $content ) {
			$html = apply_filters( 'the_content', $content );
			$page = $this->parse( $html );
			$path = new DOMXPath( $page );
			// No element but the plugin's own: the only pictures are the categories' (image_url), their names as alt text.
			$this->assertSame( 0, $path->query( '//script | //img[not(contains(@class, "contractor-pricing__image"))]' )->length, $content );
			$this->assertSame( preg_replace( Contractor_Pricing_Content::BIDI_CONTROLS, '', self::HOSTILE ), $path->query( '//*[@data-slug="ac-gas-furnace"]//img' )->item( 0 )->getAttribute( 'alt' ), 'the name, bidi controls dropped: an attribute cannot isolate them' );
			$this->assertSame( 0, $path->query( '//@*[starts-with(name(), "on")]' )->length, $content );
			$names = array();
			foreach ( $path->query( '//bdi' ) as $bdi ) {
				$names[] = $bdi->textContent;
			}
			// The business, the category, the option in the list and as a tier row's name, the brand.
			$this->assertGreaterThanOrEqual( 5, count( array_keys( $names, self::HOSTILE, true ) ), "$content: the text is shown as it is (no curly quotes, smilies or capital P), isolated" );
			$this->assertSame( self::HOSTILE, $path->query( '//li[contains(@class, "contractor-pricing__option")]' )->item( 0 )->getAttribute( 'data-sku' ) );
			$this->assertStringContainsString( self::HOSTILE, $page->textContent );
		}
	}

	public function test_the_description_drops_bidi_controls_nothing_can_isolate() {
		$document                     = self::document();
		$document['business']['name'] = "Tudi \u{202E}Mechanical\u{202C} \u{2067}Systems\u{2069}";
		$this->assertSame(
			'Tudi Mechanical Systems: installed heating and cooling systems from $2,499; parts and add-ons from $60.05.',
			Contractor_Pricing_Content::description( $document )
		);
	}

	/**
	 * Per category slug: its name, its range label, its range and its tier prices, as shown.
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
			$label = $path->query( './/*[contains(@class, "contractor-pricing__range-label")]', $node )->item( 0 );
			$shown[ $node->getAttribute( 'data-slug' ) ] = array(
				$path->query( './/*[contains(@class, "contractor-pricing__category-name")]', $node )->item( 0 )->textContent,
				null === $label ? null : $label->textContent,
				$path->query( './/*[contains(concat(" ", @class, " "), " contractor-pricing__range ")]', $node )->item( 0 )->textContent,
				$tiers,
			);
		}
		return $shown;
	}

	public function test_a_tier_of_more_options_than_the_page_lists_names_its_lowest_priced_and_counts_the_rest() {
		$document = self::document();
		$furnace  = &$document['categories'][0];
		$good     = $furnace['options'][0];
		$options  = array();
		for ( $i = 0; $i < 250; $i++ ) {
			$options[] = array_merge( $good, array( 'sku' => 'GOOD-' . $i, 'price' => 11006 + 10 * $i ) );
		}
		$furnace['options']     = array_merge( $options, array_slice( $furnace['options'], 2 ) );
		$furnace['offer_count'] = count( $furnace['options'] );
		unset( $furnace );
		$this->store( $document );
		$html = Contractor_Pricing_Renderer::render();
		$path = new DOMXPath( $this->parse( $html ) );

		$card = '//*[@data-slug="ac-gas-furnace"]';
		$this->assertSame( array( '254 published options, 104 listed' ), $this->texts( $path->document, $card . '//summary' ) );
		$skus = array();
		foreach ( $path->query( $card . '//li[@data-sku]' ) as $item ) {
			$skus[] = $item->getAttribute( 'data-sku' );
		}
		$listed = Contractor_Pricing_Option_Listing::LISTED;
		$this->assertSame( array_merge( array_map( function ( $i ) { return 'GOOD-' . $i; }, range( 0, $listed - 1 ) ), array( 'ACGF-3T-BETTER', 'ACGF-4T-BETTER', 'ACGF-3T-BEST', 'ACGF-4T-BEST' ) ), $skus );
		$this->assertSame( array( 'and 150 more, up to $13,496' ), $this->texts( $path->document, $card . '//*[@class="contractor-pricing__more"]' ) );
		$this->assertSame( array( 'Good Carrier · 14.3 SEER2 · 80% AFUE · 3 ton 250 options: $11,006 – $13,496', '$11,006' ), $this->tier_rows( $html )['ac-gas-furnace']['good'] );
	}

	/**
	 * Per category slug, per tier: the row's head (what the tier is) and its price cell, as read.
	 *
	 * @param string $html The section.
	 * @return array
	 */
	private function tier_rows( $html ) {
		$path = new DOMXPath( $this->parse( $html ) );
		$rows = array();
		foreach ( $path->query( '//tr[@data-tier-row]' ) as $row ) {
			$slug = $path->query( 'ancestor::*[@data-slug][1]', $row )->item( 0 )->getAttribute( 'data-slug' );
			$rows[ $slug ][ $row->getAttribute( 'data-tier-row' ) ] = array(
				self::text( $path->query( './th', $row )->item( 0 ) ),
				self::text( $path->query( './td', $row )->item( 0 ) ),
			);
		}
		return $rows;
	}

	/**
	 * The headlines by kind.
	 *
	 * @param string $html The section.
	 * @return string[]
	 */
	private function headlines( $html ) {
		$shown = array();
		foreach ( ( new DOMXPath( $this->parse( $html ) ) )->query( '//*[contains(@class, "contractor-pricing__headline ")]' ) as $headline ) {
			$shown[ str_replace( 'contractor-pricing__headline contractor-pricing__headline--', '', $headline->getAttribute( 'class' ) ) ] = self::text( $headline );
		}
		return $shown;
	}

	/**
	 * The texts of the nodes an XPath finds.
	 *
	 * @param DOMDocument $page  The page.
	 * @param string      $query The XPath.
	 * @return string[]
	 */
	private function texts( DOMDocument $page, $query ) {
		$texts = array();
		foreach ( ( new DOMXPath( $page ) )->query( $query ) as $node ) {
			$texts[] = self::text( $node );
		}
		return $texts;
	}

	/**
	 * One attribute of each node an XPath finds.
	 *
	 * @param DOMXPath $path      The page's XPath.
	 * @param string   $query     The XPath.
	 * @param string   $attribute The attribute.
	 * @return string[]
	 */
	private function attributes( DOMXPath $path, $query, $attribute ) {
		$values = array();
		foreach ( $path->query( $query ) as $node ) {
			$values[] = $node->getAttribute( $attribute );
		}
		return $values;
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
