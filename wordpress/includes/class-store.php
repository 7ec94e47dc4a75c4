<?php
/**
 * Where the last good pricing.json (decoded once, in the form the page reads) and the last poll's outcome live: two options, never autoloaded.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * Options rather than transients: an object cache may drop a transient at any time, and the stored
 * copy is what the page shows while the mirror is unreachable.
 *
 * - `contractor_pricing_copy`: the last 200's document in its stored form (Contractor_Pricing_Document::parse():
 *   every field the page, its head, the sitemap and the settings screen read, each category's options
 *   as a bounded listing), its ETag, its `content_version`, when this site first saw that
 *   `content_version` and the URL it came from. Written only by a 200; a 304 leaves it as it is. A page
 *   view reads it as it is stored: the body is decoded once, by the poll, never per view.
 * - `contractor_pricing_status`: the last poll (when, outcome, HTTP status, problem) and the last
 *   successful one. Written by every poll.
 *
 * Copies stored by 1.1 and before hold the body itself (`body`); the first read converts one to the
 * stored form and writes it back, so it is decoded once more, and never again.
 */
final class Contractor_Pricing_Store {

	const COPY   = 'contractor_pricing_copy';
	const STATUS = 'contractor_pricing_status';

	/**
	 * The stored copy for the configured company, or null (none yet, withdrawn, or another key's).
	 *
	 * @return array|null Keys: url, document, etag, content_version, first_seen_at, received_at.
	 */
	public static function copy() {
		$copy = get_option( self::COPY, null );
		$url  = Contractor_Pricing_Settings::pricing_json_url();
		if ( ! is_array( $copy ) || null === $url || ! isset( $copy['url'] ) || $copy['url'] !== $url ) {
			return null;
		}
		if ( isset( $copy['body'] ) ) {
			return self::upgrade( $copy );
		}
		return isset( $copy['document'] ) && is_array( $copy['document'] ) ? $copy : null;
	}

	/**
	 * The stored pricing document (its stored form), or null when there is none to show.
	 *
	 * @return array|null
	 */
	public static function document() {
		$copy = self::copy();
		return null === $copy ? null : $copy['document'];
	}

	/**
	 * Keep the document of a 200.
	 *
	 * @param array $copy See copy().
	 * @return bool Whether the database holds it (false: it refused the write, and the copy before stays).
	 */
	public static function save_copy( array $copy ) {
		// update_option() is false both when the write failed and when nothing changed; only the first is a failure.
		return update_option( self::COPY, $copy, false ) || get_option( self::COPY, null ) === $copy;
	}

	/**
	 * A 1.1 copy (the body itself) in the stored form, written back; null when its body is not a pricing document.
	 *
	 * @param array $copy A copy holding `body`.
	 * @return array|null
	 */
	private static function upgrade( array $copy ) {
		$document = Contractor_Pricing_Document::parse( $copy['body'] );
		if ( null === $document ) {
			return null;
		}
		unset( $copy['body'] );
		$copy['document'] = $document;
		self::save_copy( $copy );
		return $copy;
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
