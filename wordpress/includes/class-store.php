<?php
/**
 * Where the last good pricing.json and the last poll's outcome live: two options, never autoloaded.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * Options rather than transients: an object cache may drop a transient at any time, and the stored
 * copy is what the page shows while the mirror is unreachable.
 *
 * - `contractor_pricing_copy`: the body of the last 200 (its bytes, unchanged), its ETag, its
 *   `content_version`, when this site first saw that `content_version` and the URL it came from.
 *   Written only by a 200; a 304 leaves it as it is.
 * - `contractor_pricing_status`: the last poll (when, outcome, HTTP status, problem) and the last
 *   successful one. Written by every poll.
 */
final class Contractor_Pricing_Store {

	const COPY   = 'contractor_pricing_copy';
	const STATUS = 'contractor_pricing_status';

	/**
	 * The stored copy for the configured company, or null (none yet, withdrawn, or another key's).
	 *
	 * @return array|null Keys: url, body, etag, content_version, first_seen_at, received_at.
	 */
	public static function copy() {
		$copy = get_option( self::COPY, null );
		$url  = Contractor_Pricing_Settings::pricing_json_url();
		if ( ! is_array( $copy ) || null === $url || ! isset( $copy['url'], $copy['body'] ) || $copy['url'] !== $url ) {
			return null;
		}
		return $copy;
	}

	/**
	 * The stored pricing document (decoded), or null when there is none to show.
	 *
	 * @return array|null
	 */
	public static function document() {
		$copy = self::copy();
		return null === $copy ? null : Contractor_Pricing_Document::parse( $copy['body'] );
	}

	/**
	 * Keep the body of a 200.
	 *
	 * @param array $copy See copy().
	 */
	public static function save_copy( array $copy ) {
		update_option( self::COPY, $copy, false );
	}

	/**
	 * Withdraw the copy (the mirror answered 404, or the key or mirror changed).
	 */
	public static function forget_copy() {
		delete_option( self::COPY );
	}

	/**
	 * The last poll: last_poll_at, outcome, http_status, problem, last_success_at (each may be absent).
	 *
	 * @return array
	 */
	public static function status() {
		$status = get_option( self::STATUS, array() );
		return is_array( $status ) ? $status : array();
	}

	/**
	 * Record a poll.
	 *
	 * @param array $status See status().
	 */
	public static function save_status( array $status ) {
		update_option( self::STATUS, $status, false );
	}

	/**
	 * Everything this plugin stored about the company (uninstall, a new key).
	 */
	public static function forget() {
		delete_option( self::COPY );
		delete_option( self::STATUS );
	}
}
