<?php
/**
 * The one HTTP request this plugin makes: GET pricing.json, with the stored ETag, and what the answer means.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * GETs the company's pricing.json with `wp_safe_remote_get` (a short timeout; never from a visitor's request).
 */
final class Contractor_Pricing_Mirror_Client {

	/** Seconds to wait for the mirror; a slower answer counts as a failed poll and the stored copy stays. */
	const TIMEOUT = 5;

	/**
	 * The largest body the poll reads, in bytes (`limit_response_size`): the largest pricing.json the
	 * mirror's benchmark catalog makes (a company of 100,000 products) is about 20 MB, so 32 MiB passes
	 * every real document with room, and a body that does not stop is cut there and refused.
	 */
	const MAX_BODY_BYTES = 33554432;

	/**
	 * Fetch pricing.json, conditionally when an ETag is given.
	 *
	 * @param string $url  The pricing.json URL.
	 * @param string $etag The stored ETag ('' for an unconditional request).
	 * @return Contractor_Pricing_Fetch
	 */
	public static function fetch( $url, $etag = '' ) {
		$headers = array( 'Accept' => 'application/json' );
		if ( '' !== $etag ) {
			$headers['If-None-Match'] = $etag;
		}
		$response = wp_safe_remote_get(
			$url,
			array(
				'timeout'             => self::TIMEOUT,
				'redirection'         => 2,
				'headers'             => $headers,
				'limit_response_size' => self::MAX_BODY_BYTES,
			)
		);
		return self::interpret( $response );
	}

	/**
	 * What a WordPress HTTP API response (or WP_Error) means for the stored copy.
	 *
	 * @param array|WP_Error $response The answer.
	 * @return Contractor_Pricing_Fetch
	 */
	public static function interpret( $response ) {
		if ( is_wp_error( $response ) ) {
			$fetch          = new Contractor_Pricing_Fetch( Contractor_Pricing_Fetch::FAILED );
			$fetch->problem = self::network_problem( $response );
			return $fetch;
		}
		$status  = (int) wp_remote_retrieve_response_code( $response );
		$outcome = self::outcome_of( $status );
		$fetch   = new Contractor_Pricing_Fetch( $outcome );

		$fetch->status  = $status;
		$fetch->etag    = (string) wp_remote_retrieve_header( $response, 'etag' );
		$fetch->max_age = self::max_age( (string) wp_remote_retrieve_header( $response, 'cache-control' ) );
		if ( Contractor_Pricing_Fetch::CHANGED === $outcome ) {
			$body = (string) wp_remote_retrieve_body( $response );
			if ( strlen( $body ) >= self::MAX_BODY_BYTES ) {
				$fetch->outcome = Contractor_Pricing_Fetch::FAILED;
				/* translators: %d: megabytes. */
				$fetch->problem = sprintf( __( 'The mirror answered 200 with a body larger than %d MB; it was not read.', 'contractor-pricing' ), self::MAX_BODY_BYTES / 1048576 );
				return $fetch;
			}
			$document = Contractor_Pricing_Document::parse( $body );
			if ( null === $document ) {
				$fetch->outcome = Contractor_Pricing_Fetch::FAILED;
				$fetch->problem = sprintf(
					/* translators: %s: the response's Content-Type. */
					__( 'The mirror answered 200 with something that is not pricing.json (Content-Type: %s).', 'contractor-pricing' ),
					(string) wp_remote_retrieve_header( $response, 'content-type' )
				);
				return $fetch;
			}
			$fetch->document = $document;
		} elseif ( Contractor_Pricing_Fetch::NOT_FOUND === $outcome ) {
			$fetch->problem = __( 'The mirror answered 404: the plugin key is unknown, the company is not public, or its pricing is switched off.', 'contractor-pricing' );
		} elseif ( Contractor_Pricing_Fetch::FAILED === $outcome ) {
			/* translators: %d: an HTTP status code. */
			$fetch->problem = sprintf( __( 'The mirror answered HTTP %d.', 'contractor-pricing' ), $status );
		}
		return $fetch;
	}

	/**
	 * The seconds of `max-age` in a Cache-Control value, or null.
	 *
	 * @param string $cache_control The header.
	 * @return int|null
	 */
	public static function max_age( $cache_control ) {
		return preg_match( '/(?:^|[\s,])max-age\s*=\s*"?(\d+)"?/i', $cache_control, $match ) ? (int) $match[1] : null;
	}

	private static function outcome_of( $status ) {
		if ( 200 === $status ) {
			return Contractor_Pricing_Fetch::CHANGED;
		}
		if ( 304 === $status ) {
			return Contractor_Pricing_Fetch::NOT_MODIFIED;
		}
		return 404 === $status ? Contractor_Pricing_Fetch::NOT_FOUND : Contractor_Pricing_Fetch::FAILED;
	}

	private static function network_problem( WP_Error $error ) {
		$message = $error->get_error_message();
		if ( false !== stripos( $message, 'timed out' ) ) {
			/* translators: %d: seconds. */
			return sprintf( __( 'The mirror did not answer within %d seconds.', 'contractor-pricing' ), self::TIMEOUT );
		}
		/* translators: %s: the HTTP API's error message. */
		return sprintf( __( 'The mirror could not be reached: %s', 'contractor-pricing' ), $message );
	}
}
