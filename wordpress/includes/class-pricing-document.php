<?php
/**
 * pricing.json at the boundary: the one rule deciding whether a body is a pricing document this plugin can show.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * A body the mirror answered with 200 is stored only when it parses and has the published shape
 * (business with its trades, categories with their kind and options, currency, price_description,
 * data_provenance, quote_url, last_synced_at, content_updated_at, freshness_state, content_version).
 * A category's options are as many as its offer_count, so the count the page shows is the count of
 * options there are. What is stored is parse()'s form: the document with each category's options
 * read into a bounded listing (Contractor_Pricing_Option_Listing), made once per poll.
 * The business's phone, website, geo, business_types and systems_label, a category's image_url and
 * plain_name, an option's image_url and the document's glossary are optional (a mirror that does not
 * publish them yet is still read). Fields it does not know are ignored.
 */
final class Contractor_Pricing_Document {

	const TIERS            = array( 'good', 'better', 'best' );
	const KINDS            = array( 'system', 'accessory' );
	const FRESHNESS_STATES = array( 'fresh', 'stale', 'unavailable' );
	/**
	 * The largest price a document may state: the mirror's own bound (mirror/store/models.py MAX_CENTS, the
	 * largest BIGINT of cents, as dollars). A larger number, or one JSON cannot carry exactly (`1e309`
	 * decodes to INF), is not a price the mirror published.
	 */
	const MAX_PRICE = 92233720368547758.07;

	/**
	 * The plain words' bounds: `glossary` lists at most GLOSSARY_MAX entries, each a term of at most TERM_MAX
	 * characters and a meaning of at most MEANING_MAX (one plain line); a category's `plain_name` has at
	 * most PLAIN_NAME_MAX. Generous beside what the mirror writes ("SEER2"; "Heat pump and air handler"),
	 * and a document past them is not one the mirror wrote.
	 */
	const GLOSSARY_MAX   = 200;
	const TERM_MAX       = 64;
	const MEANING_MAX    = 500;
	const PLAIN_NAME_MAX = 200;

	/**
	 * The stored form of a body, or null when `$body` is not a pricing document.
	 *
	 * The stored form is the document with each category's `options` replaced by its `listing`
	 * (Contractor_Pricing_Option_Listing): the body is read one option at a time
	 * (Contractor_Pricing_Json_Reader), each option checked by the same rule as a decoded document's,
	 * so a 20 MB body never becomes 100 MB of arrays.
	 *
	 * @param string $body The response body.
	 * @return array|null
	 */
	public static function parse( $body ) {
		try {
			$document = self::read( new Contractor_Pricing_Json_Reader( (string) $body ) );
		} catch ( UnexpectedValueException $error ) {
			return null;
		}
		return self::is_valid( $document ) ? $document : null;
	}

	/**
	 * Whether a decoded body has every field the renderer, the JSON-LD and the sitemap read, each of its type.
	 *
	 * @param array $document The decoded body.
	 * @return bool
	 */
	public static function is_valid( array $document ) {
		$business = isset( $document['business'] ) ? $document['business'] : null;
		if ( ! is_array( $business ) || ! self::is_text( $business, 'name' ) || ! self::is_address( $business )
			|| ! isset( $business['trades'] ) || ! self::is_list_of_text( $business['trades'] )
			|| ! self::is_optional_text( $business, 'phone' ) || ! self::is_optional_url( $business, 'website' ) || ! self::is_optional_geo( $business )
			|| ( isset( $business['business_types'] ) && ! self::is_list_of_text( $business['business_types'] ) )
			|| ! self::is_optional_label( $business, 'systems_label' ) ) {
			return false;
		}
		$area = isset( $business['service_area'] ) ? $business['service_area'] : null;
		if ( ! is_array( $area ) || ! isset( $area['postal_codes'] ) || ! self::is_list_of_text( $area['postal_codes'] ) ) {
			return false;
		}
		if ( ! isset( $document['categories'] ) || ! is_array( $document['categories'] ) || ! self::is_list( $document['categories'] ) ) {
			return false;
		}
		foreach ( $document['categories'] as $category ) {
			if ( ! self::is_category( $category ) ) {
				return false;
			}
		}
		return self::is_optional_glossary( $document )
			&& self::is_text( $document, 'currency' )
			&& self::is_text( $document, 'data_provenance' )
			&& self::is_optional_text( $document, 'price_description' )
			&& self::is_optional_url( $document, 'quote_url' )
			&& self::is_optional_time( $document, 'last_synced_at' )
			&& self::is_optional_time( $document, 'content_updated_at' )
			&& self::is_optional_text( $document, 'content_version' )
			&& isset( $document['freshness_state'] ) && in_array( $document['freshness_state'], self::FRESHNESS_STATES, true );
	}

	/**
	 * A time field as a Unix timestamp (fractions dropped), or null.
	 *
	 * @param array  $document The decoded document.
	 * @param string $field    `last_synced_at` or `content_updated_at`.
	 * @return int|null
	 */
	public static function timestamp( array $document, $field ) {
		return empty( $document[ $field ] ) ? null : self::parse_time( $document[ $field ] );
	}

	/**
	 * Whether a category is an installed system (kind "system", with tiers) rather than a part or add-on.
	 *
	 * @param array $category One entry of `categories`.
	 * @return bool
	 */
	public static function is_system( array $category ) {
		return 'system' === $category['kind'];
	}

	/**
	 * The document at the reader, each category's `options` read into its `listing`.
	 *
	 * @param Contractor_Pricing_Json_Reader $reader At the start of the body.
	 * @return array
	 */
	private static function read( Contractor_Pricing_Json_Reader $reader ) {
		if ( '{' !== $reader->peek() ) {
			throw new UnexpectedValueException( 'a pricing document is a JSON object' );
		}
		$document = array();
		$reader->each_member(
			function ( $key, $reader ) use ( &$document ) {
				$document[ $key ] = 'categories' === $key && '[' === $reader->peek() ? self::read_categories( $reader ) : $reader->value();
			}
		);
		$reader->end();
		return $document;
	}

	private static function read_categories( Contractor_Pricing_Json_Reader $reader ) {
		$categories = array();
		$reader->each_item(
			function ( $reader ) use ( &$categories ) {
				$categories[] = '{' === $reader->peek() ? self::read_category( $reader ) : $reader->value();
			}
		);
		return $categories;
	}

	/**
	 * One category: its fields decoded, then its `options` walked (once its `kind` is known, wherever
	 * the key sits) into a listing. A `listing` field in the body is not the plugin's and is dropped.
	 *
	 * @param Contractor_Pricing_Json_Reader $reader At the category.
	 * @return array
	 */
	private static function read_category( Contractor_Pricing_Json_Reader $reader ) {
		$category   = array();
		$options_at = null;
		$reader->each_member(
			function ( $key, $reader ) use ( &$category, &$options_at ) {
				if ( 'options' === $key ) {
					$options_at = $reader->position();
					$reader->skip();
				} else {
					$category[ $key ] = $reader->value();
				}
			}
		);
		unset( $category['listing'] );
		if ( null === $options_at ) {
			return $category;
		}
		$after = $reader->position();
		$reader->seek( $options_at );
		if ( '[' === $reader->peek() ) {
			$category['listing'] = self::read_options( $reader, isset( $category['kind'] ) && 'system' === $category['kind'] );
		} else {
			$category['options'] = $reader->value();
		}
		$reader->seek( $after );
		return $category;
	}

	private static function read_options( Contractor_Pricing_Json_Reader $reader, $is_system ) {
		$listing = Contractor_Pricing_Option_Listing::start();
		$reader->each_item(
			function ( $reader ) use ( &$listing, $is_system ) {
				$option = $reader->value();
				if ( ! self::is_option( $option ) ) {
					throw new UnexpectedValueException( 'an option the page cannot show' );
				}
				$listing = Contractor_Pricing_Option_Listing::add( $listing, $option, $is_system );
			}
		);
		return $listing;
	}

	/**
	 * Seconds since the epoch of an RFC 3339 time, or null.
	 *
	 * @param mixed $value The text.
	 * @return int|null
	 */
	private static function parse_time( $value ) {
		if ( ! is_string( $value ) || ! preg_match( '/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/', $value ) ) {
			return null;
		}
		try {
			return ( new DateTimeImmutable( $value ) )->getTimestamp();
		} catch ( Exception $error ) {
			return null;
		}
	}

	private static function is_category( $category ) {
		if ( ! is_array( $category ) || ! self::is_text( $category, 'name' ) || ! self::is_text( $category, 'slug' )
			|| ! isset( $category['kind'] ) || ! in_array( $category['kind'], self::KINDS, true )
			|| ! self::is_price( $category, 'price_low' ) || ! self::is_price( $category, 'price_high' )
			|| ! isset( $category['offer_count'] ) || ! is_int( $category['offer_count'] ) || $category['offer_count'] < 0
			|| ! self::is_optional_url( $category, 'image_url' ) || ! self::is_optional_short_text( $category, 'plain_name', self::PLAIN_NAME_MAX )
			|| ! self::are_options( $category ) ) {
			return false;
		}
		// Tiers are on installed systems only, and every system has them.
		if ( ! self::is_system( $category ) ) {
			return ! isset( $category['tiers'] );
		}
		if ( ! isset( $category['tiers'] ) || ! is_array( $category['tiers'] ) ) {
			return false;
		}
		foreach ( self::TIERS as $tier ) {
			if ( ! array_key_exists( $tier, $category['tiers'] ) ) {
				return false;
			}
			if ( null !== $category['tiers'][ $tier ] && ! self::is_price( $category['tiers'], $tier ) ) {
				return false;
			}
		}
		return true;
	}

	/**
	 * `options` (a decoded document) or `listing` (the stored form): exactly `offer_count` options, each
	 * an option is_option() accepts.
	 *
	 * @param array $category A category.
	 * @return bool
	 */
	private static function are_options( array $category ) {
		if ( isset( $category['listing'] ) ) {
			// Made by read_options() from options it checked one by one.
			return is_array( $category['listing'] ) && $category['listing']['count'] === $category['offer_count'];
		}
		if ( ! isset( $category['options'] ) || ! is_array( $category['options'] ) || ! self::is_list( $category['options'] )
			|| count( $category['options'] ) !== $category['offer_count'] ) {
			return false;
		}
		foreach ( $category['options'] as $option ) {
			if ( ! self::is_option( $option ) ) {
				return false;
			}
		}
		return true;
	}

	/**
	 * One option: its sku, name, price, tier (or null), the catalog's labels (brand, size, warranty:
	 * text or null; efficiency: a list of text) and its picture (image_url: http or https, or null; optional).
	 *
	 * @param mixed $option One entry of `options`.
	 * @return bool
	 */
	private static function is_option( $option ) {
		return is_array( $option ) && self::is_text( $option, 'sku' ) && self::is_text( $option, 'name' ) && self::is_price( $option, 'price' )
			&& ( null === self::value( $option, 'tier' ) || in_array( $option['tier'], self::TIERS, true ) )
			&& self::is_optional_label( $option, 'brand' ) && self::is_optional_label( $option, 'size' ) && self::is_optional_label( $option, 'warranty' )
			&& isset( $option['efficiency'] ) && self::is_list_of_text( $option['efficiency'] ) && ! in_array( '', $option['efficiency'], true )
			&& self::is_optional_url( $option, 'image_url' );
	}

	/**
	 * `glossary`: absent or null (a mirror that does not publish it), or a list of at most GLOSSARY_MAX entries,
	 * each a `term` and a `meaning`, both text within their bounds.
	 *
	 * @param array $document The decoded body.
	 * @return bool
	 */
	private static function is_optional_glossary( array $document ) {
		$glossary = self::value( $document, 'glossary' );
		if ( null === $glossary ) {
			return true;
		}
		if ( ! is_array( $glossary ) || ! self::is_list( $glossary ) || count( $glossary ) > self::GLOSSARY_MAX ) {
			return false;
		}
		foreach ( $glossary as $entry ) {
			if ( ! is_array( $entry ) || ! self::is_short_text( $entry, 'term', self::TERM_MAX ) || ! self::is_short_text( $entry, 'meaning', self::MEANING_MAX ) ) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Text of one to `$max` characters.
	 *
	 * @param array  $data  The object holding it.
	 * @param string $field Its field.
	 * @param int    $max   The most characters.
	 * @return bool
	 */
	private static function is_short_text( array $data, $field, $max ) {
		if ( ! self::is_text( $data, $field ) ) {
			return false;
		}
		$length = preg_match_all( '/./us', $data[ $field ] ); // Characters; false for text that is not UTF-8.
		return false !== $length && $length <= $max;
	}

	private static function is_optional_short_text( array $data, $field, $max ) {
		return null === self::value( $data, $field ) || self::is_short_text( $data, $field, $max );
	}

	private static function is_optional_geo( array $business ) {
		$geo = self::value( $business, 'geo' );
		if ( null === $geo ) {
			return true;
		}
		return is_array( $geo ) && self::is_number( $geo, 'latitude' ) && self::is_number( $geo, 'longitude' )
			&& abs( $geo['latitude'] ) <= 90 && abs( $geo['longitude'] ) <= 180;
	}

	private static function is_address( array $business ) {
		if ( ! array_key_exists( 'address', $business ) ) {
			return false;
		}
		$address = $business['address'];
		if ( null === $address ) {
			return true;
		}
		if ( ! is_array( $address ) || ! self::is_text( $address, 'formatted' ) ) {
			return false;
		}
		foreach ( array( 'line1', 'line2', 'locality', 'region', 'postal_code', 'country' ) as $field ) {
			if ( ! self::is_optional_text( $address, $field ) ) {
				return false;
			}
		}
		return true;
	}

	private static function is_text( array $data, $field ) {
		return isset( $data[ $field ] ) && is_string( $data[ $field ] ) && '' !== $data[ $field ];
	}

	private static function is_optional_text( array $data, $field ) {
		return ! isset( $data[ $field ] ) || is_string( $data[ $field ] );
	}

	private static function is_optional_label( array $data, $field ) {
		return null === self::value( $data, $field ) || self::is_text( $data, $field );
	}

	private static function value( array $data, $field ) {
		return isset( $data[ $field ] ) ? $data[ $field ] : null;
	}

	private static function is_number( array $data, $field ) {
		return isset( $data[ $field ] ) && ( is_int( $data[ $field ] ) || is_float( $data[ $field ] ) );
	}

	private static function is_optional_url( array $data, $field ) {
		if ( ! isset( $data[ $field ] ) ) {
			return true;
		}
		$scheme = is_string( $data[ $field ] ) ? wp_parse_url( $data[ $field ], PHP_URL_SCHEME ) : null;
		// Schemes are case-insensitive (RFC 3986): `HTTPS://` is https, as a browser reads it.
		return is_string( $scheme ) && in_array( strtolower( $scheme ), array( 'http', 'https' ), true );
	}

	private static function is_optional_time( array $data, $field ) {
		return ! isset( $data[ $field ] ) || null !== self::parse_time( $data[ $field ] );
	}

	/**
	 * A price: a finite number from 0 to MAX_PRICE. Negative zero is refused with the negatives: the
	 * mirror writes prices from whole cents and never writes `-0.0`, so a document holding it is not its.
	 *
	 * @param array  $data  The object holding the price.
	 * @param string $field Its field.
	 * @return bool
	 */
	private static function is_price( array $data, $field ) {
		if ( ! self::is_number( $data, $field ) ) {
			return false;
		}
		$price = $data[ $field ];
		return is_finite( (float) $price ) && $price >= 0 && $price <= self::MAX_PRICE && '-0' !== (string) $price;
	}

	private static function is_list( array $items ) {
		return array_values( $items ) === $items;
	}

	private static function is_list_of_text( $items ) {
		if ( ! is_array( $items ) || ! self::is_list( $items ) ) {
			return false;
		}
		foreach ( $items as $item ) {
			if ( ! is_string( $item ) ) {
				return false;
			}
		}
		return true;
	}
}
