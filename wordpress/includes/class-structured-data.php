<?php
/**
 * JSON-LD on the pricing page: the business and one node per category with its AggregateOffer,
 * built from the same stored document the visible prices come from.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * The mirror's JSON-LD rules, applied to what pricing.json carries:
 *
 * - the business node is typed by its trades (Contractor_Pricing_Settings::TRADES: hvac → HVACBusiness,
 *   plumbing → Plumber, ...; several → an array; none → HomeAndConstructionBusiness). pricing.json has
 *   no trades, so they come from the settings page;
 * - address (streetAddress = line1, line2 joined by ", "), areaServed (the ZIP codes) and url (this
 *   site); facts pricing.json does not carry (phone, coordinates) are left out, never empty strings;
 * - one node per category, named after it, with an AggregateOffer (lowPrice, highPrice, offerCount,
 *   the price description, seller = the business) whose tiered systems list one Offer per published
 *   tier named Good/Better/Best; prices are strings with two decimals ("8500.00");
 * - pricing.json carries no image and Google requires one on a Product, so each category is the
 *   installation Service it is (the mirror's rule for an image-less category), provided by the business;
 * - printed in wp_head only on a page holding the block or shortcode, and only while a copy is stored;
 *   `<`, `>`, `&` and `'` are \u escapes, so `</script>` can never form.
 */
final class Contractor_Pricing_Structured_Data {

	const CONTEXT       = 'https://schema.org';
	const NO_TRADE_TYPE = 'HomeAndConstructionBusiness';

	/**
	 * Print the graph in the head of a pricing page.
	 */
	public static function register() {
		add_action( 'wp_head', array( __CLASS__, 'print_graph' ) );
	}

	/**
	 * The `<script type="application/ld+json">` element, when this request is a pricing page with a stored copy.
	 */
	public static function print_graph() {
		if ( ! Contractor_Pricing_Pages::is_pricing_request() ) {
			return;
		}
		$document = Contractor_Pricing_Store::document();
		if ( null === $document ) {
			return;
		}
		$graph = self::graph( $document, get_permalink( get_queried_object() ), Contractor_Pricing_Settings::all()['trades'], home_url( '/' ) );
		echo '<script type="application/ld+json">' . self::script_json( $graph ) . "</script>\n"; // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- script_json() escapes for a script element.
	}

	/**
	 * The schema.org graph: the business, then one node per category.
	 *
	 * @param array    $document A valid pricing document.
	 * @param string   $page_url The page's permalink (the base of every @id).
	 * @param string[] $trades   The contractor's trades.
	 * @param string   $site_url This site's address (the business's url).
	 * @return array
	 */
	public static function graph( array $document, $page_url, array $trades, $site_url ) {
		$business_id = $page_url . '#business';
		$nodes       = array( self::business_node( $document, $business_id, $trades, $site_url ) );
		foreach ( $document['categories'] as $category ) {
			$nodes[] = self::category_node( $document, $category, $page_url, $business_id );
		}
		return array(
			'@context' => self::CONTEXT,
			'@graph'   => $nodes,
		);
	}

	/**
	 * The schema.org type(s) of the business: one per known trade, in the settings' order.
	 *
	 * @param string[] $trades The contractor's trades.
	 * @return string|string[]
	 */
	public static function business_type( array $trades ) {
		$types = array();
		foreach ( $trades as $trade ) {
			$type = isset( Contractor_Pricing_Settings::TRADES[ $trade ] ) ? Contractor_Pricing_Settings::TRADES[ $trade ]['schema_type'] : null;
			if ( null !== $type && ! in_array( $type, $types, true ) ) {
				$types[] = $type;
			}
		}
		if ( empty( $types ) ) {
			return self::NO_TRADE_TYPE;
		}
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

	private static function business_node( array $document, $node_id, array $trades, $site_url ) {
		$business = $document['business'];
		$node     = array(
			'@type' => self::business_type( $trades ),
			'@id'   => $node_id,
			'name'  => $business['name'],
		);
		if ( null !== $business['address'] ) {
			$node['address'] = self::postal_address( $business['address'] );
		}
		$node['url'] = $site_url;
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
		return array(
			'@type'    => 'Service',
			'@id'      => $page_url . '#category-' . rawurlencode( $category['slug'] ),
			'name'     => $category['name'],
			'provider' => array( '@id' => $business_id ),
			'offers'   => self::aggregate_offer( $document, $category, $business_id ),
		);
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
