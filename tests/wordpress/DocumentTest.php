<?php
/**
 * pricing.json at the boundary: the one rule deciding which bodies the plugin stores and shows.
 *
 * @package ContractorPricing
 */

/**
 * The fixture is what the mirror publishes (tests/wordpress/test_wordpress_phpunit.py validates it against the
 * mirror's PricingDocument); each case breaks one thing the renderer or the JSON-LD relies on.
 */
class DocumentTest extends Contractor_Pricing_TestCase {

	public function test_what_the_mirror_publishes_is_a_pricing_document() {
		$this->assertTrue( Contractor_Pricing_Document::is_valid( self::document() ) );
		$this->assertNotNull( Contractor_Pricing_Document::parse( (string) file_get_contents( __DIR__ . '/fixtures/pricing.json' ) ) );
	}

	/**
	 * Documents the page could not follow the content rules from, each with one thing wrong.
	 *
	 * @return array[]
	 */
	public function broken() {
		$cases = array(
			'no trades'                             => function ( &$d ) {
				unset( $d['business']['trades'] );
			},
			'business types that are not a list'    => function ( &$d ) {
				$d['business']['business_types'] = 'HVACBusiness';
			},
			'an empty systems label'                => function ( &$d ) {
				$d['business']['systems_label'] = '';
			},
			'a category without a kind'             => function ( &$d ) {
				unset( $d['categories'][0]['kind'] );
			},
			'an unknown kind'                       => function ( &$d ) {
				$d['categories'][0]['kind'] = 'service';
			},
			'a system without tiers'                => function ( &$d ) {
				unset( $d['categories'][0]['tiers'] );
			},
			'an accessory with tiers'               => function ( &$d ) {
				$d['categories'][2]['tiers'] = array( 'good' => 60.05, 'better' => null, 'best' => null );
			},
			'no options'                            => function ( &$d ) {
				unset( $d['categories'][0]['options'] );
			},
			'fewer options than offer_count'        => function ( &$d ) {
				array_pop( $d['categories'][0]['options'] );
			},
			'an option without a price'             => function ( &$d ) {
				unset( $d['categories'][0]['options'][0]['price'] );
			},
			'an option of an unknown tier'          => function ( &$d ) {
				$d['categories'][0]['options'][0]['tier'] = 'premium';
			},
			'an efficiency that is not a list'      => function ( &$d ) {
				$d['categories'][0]['options'][0]['efficiency'] = '14.3 SEER2';
			},
			'an empty size'                         => function ( &$d ) {
				$d['categories'][0]['options'][0]['size'] = '';
			},
			'a brand that is not text'              => function ( &$d ) {
				$d['categories'][0]['options'][0]['brand'] = array( 'Carrier' );
			},
			'an image that is not an http(s) URL'   => function ( &$d ) {
				$d['categories'][0]['image_url'] = 'javascript:alert(1)';
			},
			'a website that is not an http(s) URL'  => function ( &$d ) {
				$d['business']['website'] = 'javascript:alert(1)';
			},
			'a price that is infinite (1e309)'      => function ( &$d ) {
				$d['categories'][0]['price_low'] = INF;
			},
			'a price beyond the mirror\'s bound'     => function ( &$d ) {
				$d['categories'][0]['options'][0]['price'] = 1.0e300;
			},
			'a negative price'                      => function ( &$d ) {
				$d['categories'][0]['tiers']['good'] = -1;
			},
			'a price of negative zero'              => function ( &$d ) {
				$d['categories'][0]['price_low'] = -0.0;
			},
			'a latitude out of range'               => function ( &$d ) {
				$d['business']['geo']['latitude'] = 91;
			},
			'coordinates that are not numbers'      => function ( &$d ) {
				$d['business']['geo'] = array( 'latitude' => '38.7875', 'longitude' => '-90.6299' );
			},
			'a glossary that is not a list'         => function ( &$d ) {
				$d['glossary'] = array( 'SEER2' => 'Seasonal energy efficiency ratio' );
			},
			'a glossary entry without a meaning'    => function ( &$d ) {
				$d['glossary'] = array( array( 'term' => 'SEER2' ) );
			},
			'a glossary term that is not text'      => function ( &$d ) {
				$d['glossary'] = array( array( 'term' => 2, 'meaning' => 'Two' ) );
			},
			'an empty glossary term'                => function ( &$d ) {
				$d['glossary'] = array( array( 'term' => '', 'meaning' => 'Nothing' ) );
			},
			'a glossary term past its bound'        => function ( &$d ) {
				$d['glossary'] = array( array( 'term' => str_repeat( 'é', Contractor_Pricing_Document::TERM_MAX + 1 ), 'meaning' => 'Long' ) );
			},
			'a meaning past its bound'              => function ( &$d ) {
				$d['glossary'] = array( array( 'term' => 'SEER2', 'meaning' => str_repeat( 'a', Contractor_Pricing_Document::MEANING_MAX + 1 ) ) );
			},
			'more glossary entries than the bound'  => function ( &$d ) {
				$d['glossary'] = array_fill( 0, Contractor_Pricing_Document::GLOSSARY_MAX + 1, array( 'term' => 'SEER2', 'meaning' => 'A rating.' ) );
			},
			'a plain name that is not text'         => function ( &$d ) {
				$d['categories'][0]['plain_name'] = array( 'Air conditioner and gas furnace' );
			},
			'an empty plain name'                   => function ( &$d ) {
				$d['categories'][0]['plain_name'] = '';
			},
			'a plain name past its bound'           => function ( &$d ) {
				$d['categories'][0]['plain_name'] = str_repeat( 'a', Contractor_Pricing_Document::PLAIN_NAME_MAX + 1 );
			},
			'an option image that is not http(s)'   => function ( &$d ) {
				$d['categories'][0]['options'][0]['image_url'] = 'data:image/png;base64,AAAA';
			},
		);
		return array_map(
			function ( $change ) {
				return array( $change );
			},
			$cases
		);
	}

	/**
	 * @dataProvider broken
	 *
	 * @param callable $change Breaks the fixture.
	 */
	public function test_a_document_the_page_cannot_follow_the_rules_from_is_refused( callable $change ) {
		$document = self::document();
		$change( $document );
		$this->assertFalse( Contractor_Pricing_Document::is_valid( $document ) );
		// Read option by option, the body is judged as when it is decoded whole (-0.0 encodes as -0, which is 0).
		$body    = (string) wp_json_encode( $document );
		$decoded = json_decode( $body, true );
		$this->assertSame( is_array( $decoded ) && Contractor_Pricing_Document::is_valid( $decoded ), null !== Contractor_Pricing_Document::parse( $body ) );
	}

	public function test_the_stored_form_says_what_the_decoded_body_says() {
		$document                          = self::document();
		$document['categories'][0]['name'] = 'Quotes " and \\" backslashes \\ ]} {[ , : in a name';
		$options_first                     = $document;
		foreach ( $options_first['categories'] as &$category ) {
			$category = array_merge( array( 'options' => $category['options'], 'listing' => 'a field the plugin does not read' ), $category );
		}
		unset( $category );
		$bodies = array(
			'as the mirror writes it'          => wp_json_encode( $document, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE ),
			'escaped and pretty-printed'       => wp_json_encode( $document, JSON_PRETTY_PRINT ) . "\n",
			'options before kind, and listing' => wp_json_encode( $options_first ),
		);
		foreach ( $bodies as $what => $body ) {
			$stored = Contractor_Pricing_Document::parse( $body );
			$this->assertNotNull( $stored, $what );
			$decoded = json_decode( $body, true );
			foreach ( $decoded['categories'] as &$category ) {
				unset( $category['listing'] );
			}
			unset( $category );
			$this->assertSame( Contractor_Pricing_Content::of( $decoded ), Contractor_Pricing_Content::of( $stored ), $what );
			$this->assertSame( Contractor_Pricing_Structured_Data::graph( $decoded, 'https://site.example/p/' ), Contractor_Pricing_Structured_Data::graph( $stored, 'https://site.example/p/' ), $what );
			$this->assertSame( array( 6, 1, 3 ), array_column( array_column( $stored['categories'], 'listing' ), 'count' ), $what );
			$this->assertArrayNotHasKey( 'options', $stored['categories'][0], $what );
		}
	}

	public function test_a_body_that_is_not_json_is_refused_whole() {
		$body   = (string) wp_json_encode( self::document(), JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE );
		$broken = array(
			'text after it'            => $body . ' x',
			'cut short'                => substr( $body, 0, -1 ),
			'cut inside the options'   => substr( $body, 0, strpos( $body, '"options"' ) + 40 ),
			'a trailing comma'         => str_replace( '}]', '},]', $body ),
			'a key without quotes'     => preg_replace( '/"sku"/', 'sku', $body, 1 ),
			'a bracket closing a brace' => preg_replace( '/\]/', '}', $body, 1 ),
			'two documents'            => $body . $body,
			'empty'                    => '',
		);
		foreach ( $broken as $what => $text ) {
			$this->assertNull( json_decode( $text, true ), $what . ' is not JSON' );
			$this->assertNull( Contractor_Pricing_Document::parse( $text ), $what );
		}
		$this->assertNull( Contractor_Pricing_Document::parse( '[' . $body . ']' ), 'a list of documents' );
	}

	public function test_prices_json_cannot_carry_exactly_are_refused_as_the_body_says_them() {
		$body = (string) file_get_contents( __DIR__ . '/fixtures/pricing.json' );
		foreach ( array( '1e309', '-0.0', str_repeat( '9', 300 ) ) as $number ) {
			$broken = preg_replace( '/"price_low": ?[0-9.]+/', '"price_low": ' . $number, $body, 1 );
			$this->assertNotSame( $body, $broken );
			$this->assertNull( Contractor_Pricing_Document::parse( $broken ), $number );
		}
	}

	public function test_urls_with_an_upper_case_scheme_are_http_urls() {
		$document                              = self::document();
		$document['business']['website']       = 'HTTPS://WWW.UPPER.EXAMPLE/';
		$document['categories'][0]['image_url'] = 'Https://img.example/a.jpg';
		$this->assertTrue( Contractor_Pricing_Document::is_valid( $document ) );
	}

	public function test_the_plain_words_and_pictures_are_read_when_published_and_optional() {
		$document                                      = self::document(
			array(
				'glossary' => array(
					array(
						'term'    => 'SEER2',
						'meaning' => 'How efficiently an air conditioner or heat pump cools over a season; higher uses less power.',
					),
					array(
						'term'    => str_repeat( 'é', Contractor_Pricing_Document::TERM_MAX ),
						'meaning' => str_repeat( 'm', Contractor_Pricing_Document::MEANING_MAX ),
					),
				),
			)
		);
		$document['categories'][0]['plain_name']       = 'Air conditioner and gas furnace';
		$document['categories'][1]['plain_name']       = null;
		$document['categories'][2]['plain_name']       = str_repeat( 'p', Contractor_Pricing_Document::PLAIN_NAME_MAX );
		$document['categories'][0]['options'][0]['image_url'] = 'https://images.catalog.example/acgf-3t-good.jpg';
		$document['categories'][0]['options'][1]['image_url'] = null;
		$this->assertTrue( Contractor_Pricing_Document::is_valid( $document ) );
		$stored = Contractor_Pricing_Document::parse( (string) wp_json_encode( $document ) );
		$this->assertSame( $document['glossary'], $stored['glossary'] );
		$this->assertSame( 'Air conditioner and gas furnace', $stored['categories'][0]['plain_name'] );
		// A mirror that publishes none of them (the fixture, as older mirrors write it) is read as before.
		$this->assertArrayNotHasKey( 'glossary', self::document() );
		$this->assertTrue( Contractor_Pricing_Document::is_valid( self::document( array( 'glossary' => null ) ) ) );
	}

	public function test_a_refused_body_counts_as_a_failed_poll_and_keeps_the_copy() {
		$this->store( self::document() );
		$stored   = Contractor_Pricing_Store::copy();
		$document = self::document();
		array_pop( $document['categories'][0]['options'] );
		$this->mirror_serves( $document, '"v2"' );
		Contractor_Pricing_Poller::poll();
		$this->assertSame( Contractor_Pricing_Fetch::FAILED, Contractor_Pricing_Store::status()['outcome'] );
		$this->assertSame( $stored, Contractor_Pricing_Store::copy() );
	}
}
