<?php
/**
 * The JSON-LD: the mirror's rules (docs/contracts/surfaces.md, "JSON-LD") applied to the stored document.
 *
 * @package ContractorPricing
 */

/**
 * The graph is built from a document alone; tests/wordpress/test_wordpress.py compares it with the mirror's own `.jsonld`.
 */
class StructuredDataTest extends Contractor_Pricing_TestCase {

	const PAGE = 'https://site.example/prices/';

	public function test_the_business_node_carries_the_documents_type_phone_coordinates_and_website() {
		$business = self::graph( self::document() )['@graph'][0];
		$this->assertSame(
			array(
				'@type'      => 'HVACBusiness',
				'@id'        => self::PAGE . '#business',
				'name'       => 'Tudi Mechanical Systems',
				'address'    => array(
					'@type'           => 'PostalAddress',
					'streetAddress'   => '1200 Mid Rivers Mall Dr, Suite 4',
					'addressLocality' => 'St. Peters',
					'addressRegion'   => 'MO',
					'postalCode'      => '63376',
					'addressCountry'  => 'US',
				),
				'geo'        => array(
					'@type'     => 'GeoCoordinates',
					'latitude'  => 38.7875,
					'longitude' => -90.6299,
				),
				'telephone'  => '+16365550142',
				'url'        => 'https://www.tudimechanical.example/',
				'areaServed' => array( '63301', '63376' ),
			),
			$business
		);
	}

	public function test_facts_the_document_does_not_hold_are_left_out() {
		$document             = self::document();
		$document['business'] = array_merge(
			$document['business'],
			array(
				'geo'     => null,
				'phone'   => null,
				'website' => null,
				'address' => null,
			)
		);
		$business = self::graph( $document )['@graph'][0];
		$this->assertSame( array( '@type', '@id', 'name', 'areaServed' ), array_keys( $business ) );
		// A document from a mirror that does not publish them yet is read the same way.
		unset( $document['business']['geo'], $document['business']['phone'], $document['business']['website'] );
		foreach ( array_keys( $document['categories'] ) as $index ) {
			unset( $document['categories'][ $index ]['image_url'] );
		}
		$this->assertTrue( Contractor_Pricing_Document::is_valid( $document ) );
		$graph = self::graph( $document );
		$this->assertSame( array( '@type', '@id', 'name', 'areaServed' ), array_keys( $graph['@graph'][0] ) );
		$this->assertSame( array( 'Service', 'Service', 'Service' ), array_column( array_slice( $graph['@graph'], 1 ), '@type' ) );
	}

	public function test_a_category_with_an_image_is_a_product_and_one_without_is_the_service_provided_by_the_business() {
		list( , $furnace, $softener, $filters ) = self::graph( self::document() )['@graph'];
		$this->assertSame( array( 'Product', self::PAGE . '#category-ac-gas-furnace', 'A/C & Gas Furnace', 'https://images.catalog.example/ac-gas-furnace/acgf-3t-good.jpg' ), array( $furnace['@type'], $furnace['@id'], $furnace['name'], $furnace['image'] ) );
		$this->assertArrayNotHasKey( 'provider', $furnace );
		$this->assertSame( 'Service', $softener['@type'] );
		$this->assertSame( array( '@id' => self::PAGE . '#business' ), $softener['provider'] );
		$this->assertArrayNotHasKey( 'image', $softener );
		$this->assertSame( 'Product', $filters['@type'] );
	}

	public function test_each_category_has_its_range_and_a_system_one_offer_per_priced_tier() {
		list( , $furnace, $softener, $filters ) = self::graph( self::document() )['@graph'];
		$this->assertSame(
			array(
				'@type'         => 'AggregateOffer',
				'priceCurrency' => 'USD',
				'lowPrice'      => '11006.00',
				'highPrice'     => '29644.00',
				'offerCount'    => 6,
				'seller'        => array( '@id' => self::PAGE . '#business' ),
				'description'   => 'Fully-installed price. Includes installation and permits.',
				'offers'        => array(
					array( '@type' => 'Offer', 'name' => 'Good', 'price' => '11006.00', 'priceCurrency' => 'USD' ),
					array( '@type' => 'Offer', 'name' => 'Better', 'price' => '14074.00', 'priceCurrency' => 'USD' ),
					array( '@type' => 'Offer', 'name' => 'Best', 'price' => '26540.00', 'priceCurrency' => 'USD' ),
				),
			),
			$furnace['offers']
		);
		$this->assertSame( array( 'Good' ), array_column( $softener['offers']['offers'], 'name' ), 'no Offer for a tier that is not offered' );
		$this->assertArrayNotHasKey( 'offers', $filters['offers'] );
		$this->assertSame( array( '60.05', '186.04', 3 ), array( $filters['offers']['lowPrice'], $filters['offers']['highPrice'], $filters['offers']['offerCount'] ) );
	}

	public function test_the_business_type_is_the_documents_business_types() {
		$this->assertSame( 'HVACBusiness', Contractor_Pricing_Structured_Data::business_type( array( 'business_types' => array( 'HVACBusiness' ) ) ) );
		$this->assertSame( array( 'HVACBusiness', 'Plumber' ), Contractor_Pricing_Structured_Data::business_type( array( 'business_types' => array( 'HVACBusiness', 'Plumber' ) ) ) );
		$this->assertSame( 'HomeAndConstructionBusiness', Contractor_Pricing_Structured_Data::business_type( array( 'business_types' => array( 'HomeAndConstructionBusiness' ) ) ) );
		$this->assertSame( 'HomeAndConstructionBusiness', Contractor_Pricing_Structured_Data::business_type( array( 'trades' => array( 'hvac' ) ) ), 'a copy from a mirror without business_types' );
		$document                               = self::document();
		$document['business']['business_types'] = array( 'Plumber' );
		$this->assertSame( 'Plumber', self::graph( $document )['@graph'][0]['@type'] );
	}

	public function test_the_json_ld_cannot_close_its_script_element() {
		$document                     = self::document();
		$document['business']['name'] = self::HOSTILE;
		$json                         = Contractor_Pricing_Structured_Data::script_json( self::graph( $document ) );
		$this->assertStringNotContainsString( '<', $json );
		$this->assertStringNotContainsString( '>', $json );
		$this->assertSame( self::HOSTILE, json_decode( $json, true )['@graph'][0]['name'] );
	}

	/**
	 * The graph of a document on the test page.
	 *
	 * @param array $document A document.
	 * @return array
	 */
	private static function graph( array $document ) {
		return Contractor_Pricing_Structured_Data::graph( $document, self::PAGE );
	}
}
