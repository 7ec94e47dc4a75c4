<?php
/**
 * JSON-LD on the pricing page: the business and one node per category with its AggregateOffer,
 * built from the same stored document the visible prices come from.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * The mirror's JSON-LD rules (docs/contracts/surfaces.md, "JSON-LD"; the mirror's feeds/jsonld.py), applied
 * to pricing.json, which carries every fact they read:
 *
 * - the business node is typed by `business.business_types` (the mirror decides them from the trades:
 *   HVACBusiness, Plumber, ...; several → an array; none known → HomeAndConstructionBusiness), with its address
 *   (streetAddress = line1, line2 joined by ", "), geo, telephone (E.164), url (its website) and
 *   areaServed (the ZIP codes); a fact the document does not hold is left out, never an empty string;
 * - one node per category (the page shows them all), named after it: a Product with the category's
 *   `image_url` as its image, or, without one, the installation Service it is, provided by the business
 *   (Google requires an image on a Product, and none is ever made up). Its AggregateOffer has lowPrice,
 *   highPrice, offerCount, the price description and the business as seller; a system's lists one Offer
 *   per tier that has a price (the "Starts at" of its row), named Good/Better/Best; prices are strings
 *   with two decimals ("8500.00"), so every offer is a price the page shows;
 * - `@id`s are the page's URL with `#business` and `#category-{slug}`;
 * - `<`, `>`, `&` and `'` are \u escapes, so `</script>` can never form (Contractor_Pricing_Page_Head prints it).
 */
final class Contractor_Pricing_Structured_Data {

	const CONTEXT = 'https://schema.org';
	/**
	 * The type of a business whose stored copy names none: a copy from a mirror that did not publish
	 * `business.business_types` yet (the type the mirror gives a business of no known trade).
	 */
	const UNTYPED_BUSINESS = 'HomeAndConstructionBusiness';

	/**
	 * The schema.org graph: the business, then one node per category.
	 *
	 * @param array  $document A valid pricing document.
	 * @param string $page_url The page's permalink (the base of every @id).
	 * @return array
	 */
	public static function graph( array $document, $page_url ) {
		$business_id = $page_url . '#business';
		$nodes       = array( self::business_node( $document['business'], $business_id ) );
		foreach ( $document['categories'] as $category ) {
			$nodes[] = self::category_node( $document, $category, $page_url, $business_id );
		}
		return array(
			'@context' => self::CONTEXT,
			'@graph'   => $nodes,
		);
	}

	/**
	 * The schema.org type(s) of the business as pricing.json states them (`business.business_types`, in
	 * its order): one as a string, several as an array.
	 *
	 * @param array $business The document's business.
	 * @return string|string[]
	 */
	public static function business_type( array $business ) {
		$types = empty( $business['business_types'] ) ? array( self::UNTYPED_BUSINESS ) : array_values( array_unique( $business['business_types'] ) );
		return 1 === count( $types ) ? $types[0] : $types;
	}

	/**
	 * JSON that can sit inside a script element as it is.
	 *
	 * @param mixed $data The graph.
	 * @return string
	 */
	public static function script_json( $data ) {
		return (string) wp_json_encode( $data, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_HEX_TAG | JSON_HEX_AMP | JSON_HEX_APOS );
	}

	private static function business_node( array $business, $node_id ) {
		$node = array(
			'@type' => self::business_type( $business ),
			'@id'   => $node_id,
			'name'  => $business['name'],
		);
		if ( null !== $business['address'] ) {
			$node['address'] = self::postal_address( $business['address'] );
		}
		if ( ! empty( $business['geo'] ) ) {
			$node['geo'] = array(
				'@type'     => 'GeoCoordinates',
				'latitude'  => $business['geo']['latitude'],
				'longitude' => $business['geo']['longitude'],
			);
		}
		if ( ! empty( $business['phone'] ) ) {
			$node['telephone'] = $business['phone'];
		}
		if ( ! empty( $business['website'] ) ) {
			$node['url'] = $business['website'];
		}
		if ( ! empty( $business['service_area']['postal_codes'] ) ) {
			$node['areaServed'] = array_values( $business['service_area']['postal_codes'] );
		}
		return $node;
	}

	private static function postal_address( array $address ) {
		$street = implode( ', ', array_filter( array( self::text( $address, 'line1' ), self::text( $address, 'line2' ) ) ) );
		$fields = array(
			'streetAddress'   => $street,
			'addressLocality' => self::text( $address, 'locality' ),
			'addressRegion'   => self::text( $address, 'region' ),
			'postalCode'      => self::text( $address, 'postal_code' ),
			'addressCountry'  => self::text( $address, 'country' ),
		);
		return array_merge( array( '@type' => 'PostalAddress' ), array_filter( $fields, 'strlen' ) );
	}

	private static function category_node( array $document, array $category, $page_url, $business_id ) {
		$image = isset( $category['image_url'] ) ? $category['image_url'] : null;
		$node  = array(
			'@type' => null === $image ? 'Service' : 'Product',
			'@id'   => $page_url . '#category-' . rawurlencode( $category['slug'] ),
			'name'  => $category['name'],
		);
		if ( null === $image ) {
			$node['provider'] = array( '@id' => $business_id );
		} else {
			$node['image'] = $image;
		}
		$node['offers'] = self::aggregate_offer( $document, $category, $business_id );
		return $node;
	}

	private static function aggregate_offer( array $document, array $category, $business_id ) {
		$offer = array(
			'@type'         => 'AggregateOffer',
			'priceCurrency' => $document['currency'],
			'lowPrice'      => Contractor_Pricing_Content::price_text( $category['price_low'] ),
			'highPrice'     => Contractor_Pricing_Content::price_text( $category['price_high'] ),
			'offerCount'    => (int) $category['offer_count'],
			'seller'        => array( '@id' => $business_id ),
		);
		if ( ! empty( $document['price_description'] ) ) {
			$offer['description'] = $document['price_description'];
		}
		if ( Contractor_Pricing_Document::is_system( $category ) ) {
			$tiers = array();
			foreach ( Contractor_Pricing_Content::TIER_LABELS as $tier => $label ) {
				if ( null !== $category['tiers'][ $tier ] ) {
					$tiers[] = array(
						'@type'         => 'Offer',
						'name'          => $label,
						'price'         => Contractor_Pricing_Content::price_text( $category['tiers'][ $tier ] ),
						'priceCurrency' => $document['currency'],
					);
				}
			}
			if ( $tiers ) {
				$offer['offers'] = $tiers;
			}
		}
		return $offer;
	}

	private static function text( array $data, $field ) {
		return isset( $data[ $field ] ) ? (string) $data[ $field ] : '';
	}
}
