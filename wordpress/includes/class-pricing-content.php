<?php
/**
 * What the pricing page says: every sentence, label and formatted price, computed from one pricing document.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * The content rules of docs/pricing-page.md (the same the mirror's hosted pricing page follows), in one
 * place; the renderer only lays them out, and the JSON-LD reads the same document:
 *
 * 1. a headline per kind: "Installed heating and cooling systems from $8,500" (the systems as
 *    `business.systems_label` names them), then "Parts and add-ons from $60.05", each
 *    from the lowest price_low of its own kind's categories only;
 * 2. each installed system: its range, then a Good/Better/Best row per tier saying what the tier's starting
 *    option (the first of `options` with that tier) is: its brand, efficiency, size and warranty, or its
 *    name when the catalog states none of those; each size with its price when every option of the tier
 *    has a size of its own, else how many options the tier has and their range; "Not offered" for a null tier;
 * 3. every category's published options in a list that opens without JavaScript, "All 6 published options",
 *    grouped by tier (Good, Better, Best, "Other options"), as many as offer_count; a group of more than
 *    Contractor_Pricing_Option_Listing::LISTED lists its lowest-priced and says how many more, up to what price;
 * 4. parts and add-ons apart, after the systems, with their range and options;
 * 5. nothing the document does not state: the labels are pricing.json's own (`size`, `efficiency`,
 *    `warranty`), and no sentence says what a price depends on;
 *
 * and around them: each category's picture (image_url, and an option's where it has one), the plain name of a
 * category whose name abbreviates its kind (plain_name), the plain words of the page (glossary), what the
 * price includes (price_description), the provenance line, when the prices were last confirmed, the quote
 * button (quote_url with `?source=wordpress`, or the contractor's own label) and the phone beside it
 * (business.phone), the address and the ZIP codes served. Money: "$8,500" for whole amounts, "$60.05"
 * otherwise; another currency by its code ("8,500 EUR"). Every one of those reads the stored copy, so
 * while the mirror is unreachable the phone and the quote button stay as the last good copy said.
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
	/** Joins the facts of a tier row: "Lennox · 15.2 SEER2 · 7.8 HSPF2" (a no-break space before the dot). */
	const SEPARATOR = "\u{00A0}· ";
	/** Bidi embeddings, overrides, isolates and marks: dropped where no element can isolate text (a meta description). */
	const BIDI_CONTROLS = '/[\x{061C}\x{200E}\x{200F}\x{202A}-\x{202E}\x{2066}-\x{2069}]/u';

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
			'headlines'         => self::headlines( $document ),
			'systems'           => array_values( array_filter( $categories, function ( $c ) { return $c['is_system']; } ) ),
			'accessories'       => array_values( array_filter( $categories, function ( $c ) { return ! $c['is_system']; } ) ),
			'empty'             => empty( $categories ) ? __( 'No prices are published yet. Please contact us directly.', 'contractor-pricing' ) : null,
			'labels'            => self::labels(),
			'price_description' => isset( $document['price_description'] ) && '' !== $document['price_description'] ? $document['price_description'] : null,
			'provenance'        => $document['data_provenance'],
			'freshness'         => self::freshness( $document ),
			'quote_url'         => self::quote_url( $document ),
			'phone'             => self::phone( $business ),
			'glossary'          => self::glossary( $document ),
			'address'           => isset( $business['address']['formatted'] ) ? $business['address']['formatted'] : null,
			'service_area'      => self::service_area( $business['service_area']['postal_codes'] ),
			'content_version'   => isset( $document['content_version'] ) ? (string) $document['content_version'] : '',
		);
	}

	/**
	 * A headline per kind the contractor publishes, systems first: where that kind's prices start.
	 *
	 * A $60 filter never sets where installed systems start, and one range is never drawn over both kinds.
	 *
	 * @param array $document A valid pricing document.
	 * @return array[] Each: kind ("system" or "accessory"), text.
	 */
	public static function headlines( array $document ) {
		$lows = array(
			'system'    => array(),
			'accessory' => array(),
		);
		foreach ( $document['categories'] as $category ) {
			$lows[ $category['kind'] ][] = $category['price_low'];
		}
		$currency  = $document['currency'];
		$headlines = array();
		if ( $lows['system'] ) {
			$headlines[] = array(
				'kind' => 'system',
				/* translators: 1: "heating and cooling systems" (or "systems"), 2: the lowest price. */
				'text' => sprintf( __( 'Installed %1$s from %2$s', 'contractor-pricing' ), self::systems_noun( $document['business'] ), self::money( min( $lows['system'] ), $currency ) ),
			);
		}
		if ( $lows['accessory'] ) {
			$headlines[] = array(
				'kind' => 'accessory',
				/* translators: %s: the lowest price. */
				'text' => sprintf( __( 'Parts and add-ons from %s', 'contractor-pricing' ), self::money( min( $lows['accessory'] ), $currency ) ),
			);
		}
		return $headlines;
	}

	/**
	 * What the headline calls the installed systems: pricing.json's `business.systems_label` ("heating and
	 * cooling systems" for a contractor with the one trade hvac, "systems" with several or none; the mirror
	 * decides it), or "systems" in a stored copy from a mirror that did not publish it yet.
	 *
	 * @param array $business The document's business.
	 * @return string
	 */
	public static function systems_noun( array $business ) {
		return empty( $business['systems_label'] ) ? __( 'systems', 'contractor-pricing' ) : $business['systems_label'];
	}

	/**
	 * The page's description: "Tudi Mechanical Systems: installed heating and cooling systems from $8,500;
	 * parts and add-ons from $60.05." (bidi controls dropped: a description has no element to isolate them).
	 *
	 * @param array $document A valid pricing document.
	 * @return string
	 */
	public static function description( array $document ) {
		$name      = $document['business']['name'];
		$headlines = self::headlines( $document );
		if ( ! $headlines ) {
			$said = sprintf( self::labels()['none_published'], $name );
		} else {
			$texts = array_map(
				function ( $headline ) {
					return lcfirst( $headline['text'] );
				},
				$headlines
			);
			/* translators: 1: the business name, 2: the headlines, lower-cased and joined by "; ". */
			$said = sprintf( __( '%1$s: %2$s.', 'contractor-pricing' ), $name, implode( '; ', $texts ) );
		}
		return (string) preg_replace( self::BIDI_CONTROLS, '', $said );
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
		$listing   = self::listing( $category );
		return array(
			'slug'            => $category['slug'],
			'name'            => $category['name'],
			'plain_name'      => self::plain_name( $category ),
			'image'           => self::image( $category ),
			'is_system'       => $is_system,
			'range_label'     => self::same_amount( $category['price_low'], $category['price_high'] )
				? __( 'Installed price', 'contractor-pricing' ) : __( 'Installed price range', 'contractor-pricing' ),
			'price_range'     => self::span( $category['price_low'], $category['price_high'], $currency ),
			'tiers'           => $is_system ? self::tier_rows( $category, $currency ) : array(),
			'note'            => $is_system ? self::range_note( $category ) : null,
			'options_summary' => self::options_summary( $listing ),
			'option_groups'   => self::option_groups( $category, $currency ),
		);
	}

	/**
	 * A category's options as the page reads them: the stored listing, or made from a decoded document's `options`.
	 *
	 * @param array $category A category of a stored copy or of a decoded document.
	 * @return array Contractor_Pricing_Option_Listing.
	 */
	public static function listing( array $category ) {
		return isset( $category['listing'] ) ? $category['listing']
			: Contractor_Pricing_Option_Listing::of( $category['options'], Contractor_Pricing_Document::is_system( $category ) );
	}

	/**
	 * The list's summary: "All 6 published options" ("1 published option"); when a group lists only its
	 * lowest-priced options, how many there are and how many are listed ("28,566 published options, 300 listed").
	 *
	 * @param array $listing The category's listing.
	 * @return string
	 */
	public static function options_summary( array $listing ) {
		$count = $listing['count'];
		if ( Contractor_Pricing_Option_Listing::is_complete( $listing ) ) {
			/* translators: %d: how many published options (the list below names each of them). */
			return sprintf( _n( '%d published option', 'All %d published options', $count, 'contractor-pricing' ), $count );
		}
		return sprintf(
			/* translators: 1: how many published options, 2: how many of them the list names. */
			_n( '%1$s published option, %2$s listed', '%1$s published options, %2$s listed', $count, 'contractor-pricing' ),
			number_format_i18n( $count ),
			number_format_i18n( Contractor_Pricing_Option_Listing::listed( $listing ) )
		);
	}

	/**
	 * A system's Good, Better and Best rows, each from its own options.
	 *
	 * @param array  $category A system category.
	 * @param string $currency The document's currency.
	 * @return array[] See tier_row().
	 */
	public static function tier_rows( array $category, $currency ) {
		$listing = self::listing( $category );
		$rows    = array();
		foreach ( self::TIER_LABELS as $tier => $label ) {
			$rows[] = self::tier_row( $tier, $label, $category['tiers'][ $tier ], Contractor_Pricing_Option_Listing::group( $listing, $tier ), $currency );
		}
		return $rows;
	}

	/**
	 * One tier's row: where it starts, what its starting option is, and its sizes or its own range.
	 *
	 * @param string         $tier      good, better or best.
	 * @param string         $label     "Good".
	 * @param int|float|null $starts_at The tier's price in `tiers` (null: no option in it).
	 * @param array          $group     The tier's group of the listing: count, options (the first, cheapest first), last_price.
	 * @param string         $currency  The currency.
	 * @return array Keys: tier, label, price (null: "Not offered"), brand, facts, name, sizes (each size and price), span.
	 */
	public static function tier_row( $tier, $label, $starts_at, array $group, $currency ) {
		$row     = array(
			'tier'  => $tier,
			'label' => $label,
			'price' => null,
			'brand' => null,
			'facts' => array(),
			'name'  => null,
			'sizes' => array(),
			'span'  => null,
		);
		$options = $group['options'];
		$count   = $group['count'];
		if ( null === $starts_at || ! $options ) {
			return $row;
		}
		$first   = $options[0];
		$sizes   = array_map(
			function ( $option ) {
				return isset( $option['size'] ) ? $option['size'] : null;
			},
			$options
		);
		// Each size with its price only when the row can name every option of the tier.
		$by_size = $count > 1 && count( $options ) === $count && ! in_array( null, $sizes, true ) && count( array_unique( $sizes ) ) === count( $sizes );
		$facts   = $first['efficiency'];
		if ( ! $by_size && null !== $sizes[0] ) {
			$facts[] = $sizes[0];
		}
		if ( isset( $first['warranty'] ) ) {
			$facts[] = $first['warranty'];
		}
		$brand        = isset( $first['brand'] ) ? $first['brand'] : null;
		$row['price'] = self::money( $starts_at, $currency );
		$row['brand'] = $brand;
		$row['facts'] = $facts;
		$row['name']  = null === $brand && ! $facts && ! $by_size ? $first['name'] : null;
		if ( $by_size ) {
			foreach ( $options as $option ) {
				$row['sizes'][] = array(
					'size'  => $option['size'],
					'price' => self::money( $option['price'], $currency ),
				);
			}
		} elseif ( $count > 1 ) {
			$low         = $first['price'];
			$high        = $group['last_price'];
			$row['span'] = self::same_amount( $low, $high )
				/* translators: 1: how many options, 2: their one price. */
				? sprintf( __( '%1$s options at %2$s', 'contractor-pricing' ), number_format_i18n( $count ), self::money( $low, $currency ) )
				/* translators: 1: how many options, 2: "$7,800 – $9,900". */
				: sprintf( __( '%1$s options: %2$s', 'contractor-pricing' ), number_format_i18n( $count ), self::span( $low, $high, $currency ) );
		}
		return $row;
	}

	/**
	 * What the "Starts at" column means, where some tier has several options; null otherwise.
	 *
	 * @param array $category A system category.
	 * @return string|null
	 */
	public static function range_note( array $category ) {
		$listing = self::listing( $category );
		foreach ( array_keys( self::TIER_LABELS ) as $tier ) {
			if ( Contractor_Pricing_Option_Listing::group( $listing, $tier )['count'] > 1 ) {
				return __( '“Starts at” is each tier\'s lowest-priced option.', 'contractor-pricing' );
			}
		}
		return null;
	}

	/**
	 * Every published option of a category under its heading: a system's by tier (Good, Better, Best, then
	 * "Other options" for those without a tier); an accessory's in one list without a heading. A group
	 * names at most Contractor_Pricing_Option_Listing::LISTED options, its lowest-priced, and then says
	 * how many more there are and up to what price.
	 *
	 * @param array  $category A category.
	 * @param string $currency The currency.
	 * @return array[] Each: tier (or null), title (or null), options (each sku, name, price), more (a sentence or null).
	 */
	public static function option_groups( array $category, $currency ) {
		$listing   = self::listing( $category );
		$is_system = Contractor_Pricing_Document::is_system( $category );
		$groups    = array();
		$titles    = $is_system ? self::TIER_LABELS : array();
		$titles['']  = $is_system ? __( 'Other options', 'contractor-pricing' ) : null;
		foreach ( $titles as $tier => $title ) {
			$group = Contractor_Pricing_Option_Listing::group( $listing, (string) $tier );
			if ( ! $group['options'] ) {
				continue;
			}
			$more     = $group['count'] - count( $group['options'] );
			$groups[] = array(
				'tier'    => '' === (string) $tier ? null : $tier,
				'title'   => $title,
				'options' => array_map(
					function ( $option ) use ( $currency ) {
						return array(
							'sku'   => $option['sku'],
							'name'  => $option['name'],
							'price' => self::money( $option['price'], $currency ),
							'image' => self::image( $option ),
						);
					},
					$group['options']
				),
				'more'    => $more > 0
					/* translators: 1: how many options the list leaves out, 2: the highest price among them. */
					? sprintf( _n( 'and %1$s more, at %2$s', 'and %1$s more, up to %2$s', $more, 'contractor-pricing' ), number_format_i18n( $more ), self::money( $group['last_price'], $currency ) )
					: null,
			);
		}
		return $groups;
	}

	/**
	 * "$8,500 – $14,000", or one price when low and high are equal.
	 *
	 * @param int|float $low      The lower price.
	 * @param int|float $high     The higher price.
	 * @param string    $currency The currency.
	 * @return string
	 */
	public static function span( $low, $high, $currency ) {
		return self::same_amount( $low, $high ) ? self::money( $low, $currency ) : self::money( $low, $currency ) . ' – ' . self::money( $high, $currency );
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
	 * The quote button's target: quote_url with `?source=` and the contractor's label ("wordpress" unless the
	 * settings name another); null when quoting is switched off.
	 *
	 * @param array $document A valid pricing document.
	 * @return string|null
	 */
	public static function quote_url( array $document ) {
		if ( empty( $document['quote_url'] ) ) {
			return null;
		}
		return add_query_arg( 'source', rawurlencode( Contractor_Pricing_Settings::quote_source() ), $document['quote_url'] );
	}

	/**
	 * The business's phone as the hosted page shows it: "(636) 555-0142" for a US number in E.164 (+1 and ten
	 * digits, as pricing.json writes it), anything else as stored; and its `tel:` address. Null without one.
	 *
	 * @param array $business The document's business.
	 * @return array|null Keys: display, tel.
	 */
	public static function phone( array $business ) {
		$phone = isset( $business['phone'] ) && is_string( $business['phone'] ) ? trim( $business['phone'] ) : '';
		$dial  = (string) preg_replace( '/[^0-9+]/', '', $phone );
		if ( '' === $phone || '' === trim( $dial, '+' ) ) {
			return null;
		}
		$display = preg_match( '/^\+1(\d{3})(\d{3})(\d{4})$/', $phone, $digits ) ? sprintf( '(%s) %s-%s', $digits[1], $digits[2], $digits[3] ) : $phone;
		return array(
			'display' => $display,
			'tel'     => 'tel:' . $dial,
		);
	}

	/**
	 * The page's plain words, as pricing.json's `glossary` lists them (each term the document uses, in the
	 * order it first appears, with one plain line); empty for a mirror that does not publish it. The plugin
	 * keeps no glossary of its own: the words and their meanings are the mirror's.
	 *
	 * @param array $document A valid pricing document.
	 * @return array[] Each: term, meaning, and whether the term is marked where it first appears (`mark`: false
	 *                 for a term the glossary lists with two meanings, "HP" a heat pump and "HP" horsepower, as
	 *                 pricing.json does not say which one a given place means; the list gives both).
	 */
	public static function glossary( array $document ) {
		$meanings = array();
		$listed   = isset( $document['glossary'] ) && is_array( $document['glossary'] ) ? $document['glossary'] : array();
		foreach ( $listed as $entry ) {
			$meanings[ $entry['term'] ][ $entry['meaning'] ] = true;
		}
		$entries = array();
		$seen    = array();
		foreach ( $listed as $entry ) {
			$key = $entry['term'] . "\0" . $entry['meaning'];
			if ( isset( $seen[ $key ] ) ) {
				continue;
			}
			$seen[ $key ] = true;
			$entries[]    = array(
				'term'    => $entry['term'],
				'meaning' => $entry['meaning'],
				'mark'    => 1 === count( $meanings[ $entry['term'] ] ),
			);
		}
		return $entries;
	}

	/**
	 * What a category is, in plain words, when its name abbreviates its kind ("Heat pump and air handler" for
	 * "HP & Air Handler"): pricing.json's `plain_name`; null when it has none or says the name itself.
	 *
	 * @param array $category A category.
	 * @return string|null
	 */
	public static function plain_name( array $category ) {
		$plain = isset( $category['plain_name'] ) && is_string( $category['plain_name'] ) ? $category['plain_name'] : '';
		return '' === $plain || 0 === strcasecmp( $plain, $category['name'] ) ? null : $plain;
	}

	/**
	 * A category's or an option's picture (docs/pricing-page.md, rule 8): its `image_url` when the page may
	 * show it, and its name, bidi controls dropped (an attribute cannot isolate them), for the text a browser
	 * shows or reads out in its place; null when it has none or the page may not show it (the page is then
	 * laid out as if there were none).
	 *
	 * An https picture is always shown; an http one only on a page that is itself served over http, so a
	 * page never carries mixed content.
	 *
	 * @param array     $item     A category or an option.
	 * @param bool|null $page_tls Whether the page is served over https (null: ask WordPress, is_ssl()).
	 * @return array|null Keys: url, alt.
	 */
	public static function image( array $item, $page_tls = null ) {
		if ( empty( $item['image_url'] ) || ! is_string( $item['image_url'] ) ) {
			return null;
		}
		$scheme = strtolower( (string) wp_parse_url( $item['image_url'], PHP_URL_SCHEME ) );
		$tls    = null === $page_tls ? is_ssl() : $page_tls;
		if ( 'https' !== $scheme && ( 'http' !== $scheme || $tls ) ) {
			return null;
		}
		return array(
			'url' => $item['image_url'],
			'alt' => (string) preg_replace( self::BIDI_CONTROLS, '', $item['name'] ),
		);
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
			'systems'        => __( 'Installed systems', 'contractor-pricing' ),
			'tier'           => __( 'Tier', 'contractor-pricing' ),
			'starts_at'      => __( 'Starts at', 'contractor-pricing' ),
			'not_offered'    => __( 'Not offered', 'contractor-pricing' ),
			'accessories'    => __( 'Parts and add-ons', 'contractor-pricing' ),
			/* translators: %s: the business name (the renderer isolates it in <bdi>). */
			'none_published' => __( '%s has not published any installed prices yet.', 'contractor-pricing' ),
			'includes'       => __( 'What the price includes', 'contractor-pricing' ),
			'cta_title'      => __( 'Ready for an exact price?', 'contractor-pricing' ),
			/* translators: %s: the business name (the renderer isolates it in <bdi>). */
			'cta_text'       => __( 'Every home is different. Ask %s for a quote.', 'contractor-pricing' ),
			/* translators: %s: the business name (the renderer isolates it in <bdi>). */
			'cta_call_text'  => __( 'Every home is different. Call %s for a quote.', 'contractor-pricing' ),
			'cta_button'     => __( 'Get a quote', 'contractor-pricing' ),
			'glossary'       => __( 'What these words mean', 'contractor-pricing' ),
		);
	}
}
