<?php
/**
 * Reads a large JSON text one value at a time, so no more than one small value is ever decoded at once.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * A cursor over a JSON text. The caller walks the objects and arrays it wants to take apart
 * (each_member(), each_item()) and decodes the rest whole with value(), which is PHP's own
 * json_decode() of that value's bytes: numbers, strings and escapes mean exactly what they mean to
 * json_decode() of the whole text.
 *
 * Why: pricing.json for a company of 100,000 products is about 20 MB, and json_decode() of the whole
 * of it takes about 100 MB of PHP arrays, more than the 128M a WordPress front end or WP-Cron
 * usually has. Walked here, the poll decodes one option at a time and keeps only what the page shows.
 *
 * Every byte is either decoded by json_decode() (values) or read by the strict rules below (the
 * punctuation of the objects and arrays walked), so a text that is not JSON is refused as a whole:
 * each method throws UnexpectedValueException.
 */
final class Contractor_Pricing_Json_Reader {

	/** JSON's insignificant white space. */
	const SPACE = " \t\n\r";

	/** @var string The text. */
	private $json;

	/** @var int Its length. */
	private $length;

	/** @var int Where the cursor is. */
	private $at = 0;

	/**
	 * @param string $json The JSON text.
	 */
	public function __construct( $json ) {
		$this->json   = (string) $json;
		$this->length = strlen( $this->json );
	}

	/**
	 * The first character of the next value ('{', '[', '"', or the start of a number or literal).
	 *
	 * @return string
	 */
	public function peek() {
		$this->skip_space();
		if ( $this->at >= $this->length ) {
			throw new UnexpectedValueException( 'JSON ends where a value was expected' );
		}
		return $this->json[ $this->at ];
	}

	/**
	 * Where the cursor is (to come back with seek()).
	 *
	 * @return int
	 */
	public function position() {
		return $this->at;
	}

	/**
	 * Move the cursor back to a position().
	 *
	 * @param int $position A position() taken before.
	 */
	public function seek( $position ) {
		$this->at = (int) $position;
	}

	/**
	 * The next value, decoded whole (json_decode with associative arrays).
	 *
	 * @return mixed
	 */
	public function value() {
		$this->skip_space();
		$start = $this->at;
		$this->skip_value();
		$text  = substr( $this->json, $start, $this->at - $start );
		$value = json_decode( $text, true );
		if ( null === $value && 'null' !== $text ) {
			throw new UnexpectedValueException( 'not a JSON value at byte ' . $start );
		}
		return $value;
	}

	/**
	 * Step over the next value without decoding it (it is decoded or walked after a seek()).
	 */
	public function skip() {
		$this->skip_space();
		$this->skip_value();
	}

	/**
	 * Walk the object at the cursor: `$member( $key, $reader )` for each member, which must read or
	 * skip the member's value. A repeated key is the caller's to resolve (json_decode keeps the last).
	 *
	 * @param callable $member Called with each key and this reader.
	 */
	public function each_member( callable $member ) {
		$this->expect( '{' );
		if ( '}' === $this->peek() ) {
			++$this->at;
			return;
		}
		do {
			if ( '"' !== $this->peek() ) {
				throw new UnexpectedValueException( 'an object key must be a string, at byte ' . $this->at );
			}
			$key = $this->value();
			$this->expect( ':' );
			$member( $key, $this );
		} while ( $this->comma_or( '}' ) );
	}

	/**
	 * Walk the array at the cursor: `$item( $reader )` for each item, which must read or skip it.
	 *
	 * @param callable $item Called with this reader at each item.
	 */
	public function each_item( callable $item ) {
		$this->expect( '[' );
		if ( ']' === $this->peek() ) {
			++$this->at;
			return;
		}
		do {
			$item( $this );
		} while ( $this->comma_or( ']' ) );
	}

	/**
	 * Nothing but white space may follow the document.
	 */
	public function end() {
		$this->skip_space();
		if ( $this->at !== $this->length ) {
			throw new UnexpectedValueException( 'text after the JSON document, at byte ' . $this->at );
		}
	}

	private function skip_space() {
		$this->at += strspn( $this->json, self::SPACE, $this->at );
	}

	private function expect( $character ) {
		if ( $this->peek() !== $character ) {
			throw new UnexpectedValueException( "expected '$character' at byte " . $this->at );
		}
		++$this->at;
	}

	/**
	 * After a member or an item: true on a comma (another follows), false on the closing bracket.
	 *
	 * @param string $close '}' or ']'.
	 * @return bool
	 */
	private function comma_or( $close ) {
		$next = $this->peek();
		++$this->at;
		if ( ',' === $next ) {
			return true;
		}
		if ( $close === $next ) {
			return false;
		}
		throw new UnexpectedValueException( "expected ',' or '$close' at byte " . ( $this->at - 1 ) );
	}

	/**
	 * Move past the value at the cursor: a string, a whole object or array (brackets counted, strings
	 * jumped over), or a number or literal. Its exact grammar is json_decode()'s to check, by value().
	 */
	private function skip_value() {
		$first = $this->at < $this->length ? $this->json[ $this->at ] : '';
		if ( '"' === $first ) {
			$this->at = $this->string_end( $this->at );
			return;
		}
		if ( '{' !== $first && '[' !== $first ) {
			$this->at += strcspn( $this->json, ',}]' . self::SPACE, $this->at );
			return;
		}
		$depth = 0;
		do {
			$next = $this->at + strcspn( $this->json, '{}[]"', $this->at );
			if ( $next >= $this->length ) {
				throw new UnexpectedValueException( 'JSON ends inside an object or array' );
			}
			$character = $this->json[ $next ];
			if ( '"' === $character ) {
				$this->at = $this->string_end( $next );
				continue;
			}
			$depth   += ( '{' === $character || '[' === $character ) ? 1 : -1;
			$this->at = $next + 1;
		} while ( $depth > 0 );
	}

	/**
	 * Just past the closing quote of the string opening at `$open` (a quote after an odd run of backslashes is escaped).
	 *
	 * @param int $open The opening quote.
	 * @return int
	 */
	private function string_end( $open ) {
		$from = $open + 1;
		while ( true ) {
			$quote = strpos( $this->json, '"', $from );
			if ( false === $quote ) {
				throw new UnexpectedValueException( 'JSON ends inside a string' );
			}
			$backslashes = 0;
			while ( '\\' === $this->json[ $quote - 1 - $backslashes ] ) {
				++$backslashes;
			}
			if ( 0 === $backslashes % 2 ) {
				return $quote + 1;
			}
			$from = $quote + 1;
		}
	}
}
