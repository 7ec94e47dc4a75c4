<?php
/**
 * What the pricing page says: every sentence, label and formatted price, computed from one pricing document.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * The content rules, in one place (the renderer only lays them out, the JSON-LD reads the same document):
 *
 * - the direct answer: "{name} publishes its own installed prices for {n} categories, from {low} to {high}.";
 * - installed systems (the categories with tiers): the range, a Good/Better/Best table of where each option
 *   starts ("Not offered" for a tier without a product) and what the tiers and the top of the range mean;
 * - parts and add-ons (the categories without tiers): one row each, with its range;
 * - what the price includes (price_description), the provenance line, when the prices were last confirmed,
 *   the quote button (quote_url with `?source=wordpress`), the address and the ZIP codes served;
 * - money: "$8,500" for whole amounts, "$60.05" otherwise; another currency by its code ("8,500 EUR").
 *
 * Contractor text is returned as it is; the renderer escapes it.
 */
final class Contractor_Pricing_Content {

	const TIER_LABELS      = array(
		'good'   => 'Good',
		'better' => 'Better',
		'best'   => 'Best',
	);
	const CURRENCY_SYMBOLS = array( 'USD' => '$' );

	/**
	 * The sentence shown where the prices would be, when there are none to show.
	 *
	 * @return string
	 */
	public static function unavailable() {
		return __( 'Pricing is not available right now. Please contact us directly for a price.', 'contractor-pricing' );
	}

	/**
	 * Everything the page shows, from one stored pricing document.
	 *
	 * @param array $document A valid pricing document.
	 * @return array
	 */
	public static function of( array $document ) {
		$currency   = $document['currency'];
		$categories = array_map(
			function ( $category ) use ( $currency ) {
				return self::category( $category, $currency );
			},
			$document['categories']
		);
		$business   = $document['business'];
		return array(
			'business_name'     => $business['name'],
			'answer'            => self::answer_sentence( $document ),
			'systems'           => array_values( array_filter( $categories, function ( $c ) { return $c['is_system']; } ) ),
			'accessories'       => array_values( array_filter( $categories, function ( $c ) { return ! $c['is_system']; } ) ),
			'empty'             => empty( $categories ) ? __( 'No prices are published yet. Please contact us directly.', 'contractor-pricing' ) : null,
			'labels'            => self::labels(),
			'price_description' => isset( $document['price_description'] ) && '' !== $document['price_description'] ? $document['price_description'] : null,
			'provenance'        => $document['data_provenance'],
			'freshness'         => self::freshness( $document ),
			'quote_url'         => self::quote_url( $document ),
			'address'           => isset( $business['address']['formatted'] ) ? $business['address']['formatted'] : null,
			'service_area'      => self::service_area( $business['service_area']['postal_codes'] ),
			'content_version'   => isset( $document['content_version'] ) ? (string) $document['content_version'] : '',
		);
	}

	/**
	 * The direct answer: who publishes what, from what price to what price.
	 *
	 * @param array $document A valid pricing document.
	 * @return string
	 */
	public static function answer_sentence( array $document ) {
		$name       = $document['business']['name'];
		$categories = $document['categories'];
		if ( empty( $categories ) ) {
			/* translators: %s: the business name. */
			return sprintf( __( '%s has not published any installed prices yet.', 'contractor-pricing' ), $name );
		}
		$low    = min( array_column( $categories, 'price_low' ) );
		$high   = max( array_column( $categories, 'price_high' ) );
		$things = 1 === count( $categories ) ? __( '1 category', 'contractor-pricing' )
			/* translators: %d: how many categories. */
			: sprintf( __( '%d categories', 'contractor-pricing' ), count( $categories ) );
		$span   = self::same_amount( $low, $high ) ? self::money( $low, $document['currency'] )
			/* translators: 1: the lowest price, 2: the highest price. */
			: sprintf( __( '%1$s to %2$s', 'contractor-pricing' ), self::money( $low, $document['currency'] ), self::money( $high, $document['currency'] ) );
		/* translators: 1: the business name, 2: "3 categories", 3: "$60.05 to $29,644". */
		return sprintf( __( '%1$s publishes its own installed prices for %2$s, from %3$s.', 'contractor-pricing' ), $name, $things, $span );
	}

	/**
	 * One category as the page shows it.
	 *
	 * @param array  $category One entry of `categories`.
	 * @param string $currency The document's currency.
	 * @return array
	 */
	public static function category( array $category, $currency ) {
		$is_system = Contractor_Pricing_Document::is_system( $category );
		$tiers     = array();
		if ( $is_system ) {
			foreach ( self::TIER_LABELS as $tier => $label ) {
				$price   = $category['tiers'][ $tier ];
				$tiers[] = array(
					'tier'  => $tier,
					'label' => $label,
					'price' => null === $price ? null : self::money( $price, $currency ),
				);
			}
		}
		$count = (int) $category['offer_count'];
		return array(
			'slug'        => $category['slug'],
			'name'        => $category['name'],
			'is_system'   => $is_system,
			'range_label' => self::same_amount( $category['price_low'], $category['price_high'] )
				? __( 'Installed price', 'contractor-pricing' ) : __( 'Installed price range', 'contractor-pricing' ),
			'price_range' => self::price_range( $category, $currency ),
			'tiers'       => $tiers,
			'note'        => $is_system ? self::range_note( $category, $currency ) : null,
			/* translators: %d: how many published options. */
			'options'     => sprintf( _n( '%d published option.', '%d published options.', $count, 'contractor-pricing' ), $count ),
			/* translators: %d: how many options. */
			'item_count'  => sprintf( _n( '%d option', '%d options', $count, 'contractor-pricing' ), $count ),
		);
	}

	/**
	 * What a system's tier prices and the top of its range mean; null when nothing needs saying.
	 *
	 * Each tier shows its cheapest published option, so a range ending above the highest tier price
	 * reaches into larger or premium installs of the category.
	 *
	 * @param array  $category A system category.
	 * @param string $currency The document's currency.
	 * @return string|null
	 */
	public static function range_note( array $category, $currency ) {
		$prices = array_filter(
			array_values( $category['tiers'] ),
			function ( $price ) {
				return null !== $price;
			}
		);
		if ( empty( $prices ) ) {
			return self::same_amount( $category['price_low'], $category['price_high'] ) ? null : __( 'The price depends on the option you choose.', 'contractor-pricing' );
		}
		$starts = __( 'Good, Better and Best show where each option starts.', 'contractor-pricing' );
		if ( $category['price_high'] > max( $prices ) ) {
			/* translators: 1: "Good, Better and Best show where each option starts.", 2: the top of the range. */
			return sprintf( __( '%1$s Larger or premium installs in this category cost up to %2$s.', 'contractor-pricing' ), $starts, self::money( $category['price_high'], $currency ) );
		}
		return $starts;
	}

	/**
	 * "$8,500 – $14,000", or one price when low and high are equal.
	 *
	 * @param array  $category A category.
	 * @param string $currency The currency.
	 * @return string
	 */
	public static function price_range( array $category, $currency ) {
		$low  = self::money( $category['price_low'], $currency );
		$high = self::money( $category['price_high'], $currency );
		return $low === $high ? $low : $low . ' – ' . $high;
	}

	/**
	 * "$8,500" for whole amounts, "$60.05" otherwise; other currencies by code.
	 *
	 * @param int|float $amount   A price as pricing.json gives it (a JSON number with the exact decimal value).
	 * @param string    $currency An ISO 4217 code.
	 * @return string
	 */
	public static function money( $amount, $currency ) {
		$decimals = self::same_amount( floor( $amount ), $amount ) ? 0 : 2;
		$digits   = number_format( (float) $amount, $decimals, '.', ',' );
		return isset( self::CURRENCY_SYMBOLS[ $currency ] ) ? self::CURRENCY_SYMBOLS[ $currency ] . $digits : $digits . ' ' . $currency;
	}

	/**
	 * Whether two prices are one amount (pricing.json writes 11006 and 60.05: an int or a float).
	 *
	 * @param int|float $a A price.
	 * @param int|float $b Another.
	 * @return bool
	 */
	public static function same_amount( $a, $b ) {
		return (float) $a === (float) $b;
	}

	/**
	 * A price as schema.org wants it: a decimal string with exactly two decimals ("8500.00").
	 *
	 * @param int|float $amount A price.
	 * @return string
	 */
	public static function price_text( $amount ) {
		return number_format( (float) $amount, 2, '.', '' );
	}

	/**
	 * When the prices were last confirmed against the contractor's catalog: a sentence around one date.
	 *
	 * @param array $document A valid pricing document.
	 * @return array Keys: before, when (or null), iso (or null), after, stale.
	 */
	public static function freshness( array $document ) {
		$stale     = 'fresh' !== $document['freshness_state'];
		$confirmed = Contractor_Pricing_Document::timestamp( $document, 'last_synced_at' );
		if ( null === $confirmed ) {
			return array(
				'before' => __( 'These prices have not been confirmed yet.', 'contractor-pricing' ),
				'when'   => null,
				'iso'    => null,
				'after'  => '',
				'stale'  => $stale,
			);
		}
		return array(
			'before' => __( 'Prices last confirmed', 'contractor-pricing' ),
			// The UTC date in English words, as the hosted page writes it; the instant goes in <time datetime>.
			'when'   => gmdate( 'F j, Y', $confirmed ),
			'iso'    => gmdate( 'Y-m-d\TH:i:s\Z', $confirmed ),
			'after'  => $stale ? __( '; the contractor\'s prices may have changed since.', 'contractor-pricing' ) : '.',
			'stale'  => $stale,
		);
	}

	/**
	 * The quote button's target: quote_url with `?source=wordpress`; null when quoting is switched off.
	 *
	 * @param array $document A valid pricing document.
	 * @return string|null
	 */
	public static function quote_url( array $document ) {
		if ( empty( $document['quote_url'] ) ) {
			return null;
		}
		return add_query_arg( 'source', Contractor_Pricing_Settings::QUOTE_SOURCE, $document['quote_url'] );
	}

	/**
	 * "Serves ZIP codes 63301, 63303." or null.
	 *
	 * @param array $postal_codes The service area's codes.
	 * @return string|null
	 */
	private static function service_area( array $postal_codes ) {
		/* translators: %s: ZIP codes, comma-separated. */
		return empty( $postal_codes ) ? null : sprintf( __( 'Serves ZIP codes %s.', 'contractor-pricing' ), implode( ', ', $postal_codes ) );
	}

	/**
	 * The fixed texts around the prices.
	 *
	 * @return array
	 */
	private static function labels() {
		return array(
			'systems'       => __( 'Installed systems', 'contractor-pricing' ),
			'option'        => __( 'Option', 'contractor-pricing' ),
			'starts_at'     => __( 'Starts at', 'contractor-pricing' ),
			'not_offered'   => __( 'Not offered', 'contractor-pricing' ),
			'accessories'   => __( 'Parts and add-ons', 'contractor-pricing' ),
			'item'          => __( 'Item', 'contractor-pricing' ),
			'price'         => __( 'Price', 'contractor-pricing' ),
			'range_note'    => __( 'Where a range is shown, the price depends on the size or model you choose.', 'contractor-pricing' ),
			'includes'      => __( 'What the price includes', 'contractor-pricing' ),
			'cta_title'     => __( 'Ready for an exact price?', 'contractor-pricing' ),
			/* translators: %s: the business name (the renderer isolates it in <bdi>). */
			'cta_text'      => __( 'Every home is different. Ask %s for a quote.', 'contractor-pricing' ),
			'cta_button'    => __( 'Get a quote', 'contractor-pricing' ),
		);
	}
}
