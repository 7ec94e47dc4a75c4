<?php
/**
 * The one HTTP request this plugin makes: GET pricing.json, with the stored ETag, and what the answer means.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * GETs the company's pricing.json with `wp_safe_remote_get` (a short timeout; never from a visitor's request).
 *
 * WordPress's safe requests (`wp_http_validate_url`) go only to ports 80, 443 and 8080 and never to a
 * loopback or private address. The contractor names the mirror in the settings, and a mirror (or a
 * staging mirror) may run on another port or inside the contractor's own network; so, while this one
 * request runs, and for the configured mirror's own host only, its port is allowed and its address
 * counts as external (`http_allowed_safe_ports`, `http_request_host_is_external`). Every other rule
 * of a safe request stays in force: http or https only, no credentials in the address, a host name
 * that resolves, at most two redirects, each checked again (a redirect to another host or port is
 * refused), and every other request WordPress makes keeps WordPress's own rules.
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

	/** @var array|null The host and port of the mirror being asked, while fetch() runs; null otherwise. */
	private static $mirror = null;

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
		self::$mirror = self::host_and_port( $url );
		add_filter( 'http_allowed_safe_ports', array( __CLASS__, 'allowed_ports' ), 10, 2 );
		add_filter( 'http_request_host_is_external', array( __CLASS__, 'host_is_external' ), 10, 2 );
		try {
			$response = wp_safe_remote_get(
				$url,
				array(
					'timeout'             => self::TIMEOUT,
					'redirection'         => 2,
					'headers'             => $headers,
					'limit_response_size' => self::MAX_BODY_BYTES,
				)
			);
		} finally {
			remove_filter( 'http_allowed_safe_ports', array( __CLASS__, 'allowed_ports' ), 10 );
			remove_filter( 'http_request_host_is_external', array( __CLASS__, 'host_is_external' ), 10 );
			self::$mirror = null;
		}
		return self::interpret( $response, $url );
	}

	/**
	 * The host (lower case) and port (null when the address names none) of a mirror address.
	 *
	 * @param string $url An address.
	 * @return array|null Keys: host, port; null when it has no host.
	 */
	public static function host_and_port( $url ) {
		$parts = wp_parse_url( $url );
		if ( ! is_array( $parts ) || empty( $parts['host'] ) ) {
			return null;
		}
		return array(
			'host' => strtolower( trim( $parts['host'], '.' ) ),
			'port' => isset( $parts['port'] ) ? (int) $parts['port'] : null,
		);
	}

	/**
	 * `http_allowed_safe_ports`, during the plugin's own request: the configured mirror's port, for its host only.
	 *
	 * @param int[]  $ports The ports WordPress allows (80, 443 and 8080 unless another filter changed them).
	 * @param string $host  The host of the address being checked.
	 * @return int[]
	 */
	public static function allowed_ports( $ports, $host ) {
		if ( self::is_mirror( $host ) && null !== self::$mirror['port'] ) {
			$ports   = is_array( $ports ) ? $ports : array();
			$ports[] = self::$mirror['port'];
		}
		return $ports;
	}

	/**
	 * `http_request_host_is_external`, during the plugin's own request: the configured mirror's host counts as
	 * external, though it is a loopback or private address (the contractor named it); no other host does.
	 *
	 * @param bool   $external Whether another rule already allows the host.
	 * @param string $host     The host of the address being checked.
	 * @return bool
	 */
	public static function host_is_external( $external, $host ) {
		return $external || self::is_mirror( $host );
	}

	private static function is_mirror( $host ) {
		return null !== self::$mirror && is_string( $host ) && strtolower( trim( $host, '.' ) ) === self::$mirror['host'];
	}

	/**
	 * What a WordPress HTTP API response (or WP_Error) means for the stored copy.
	 *
	 * @param array|WP_Error $response The answer.
	 * @param string         $url      The address asked ('' when unknown).
	 * @return Contractor_Pricing_Fetch
	 */
	public static function interpret( $response, $url = '' ) {
		if ( is_wp_error( $response ) ) {
			$fetch          = new Contractor_Pricing_Fetch( Contractor_Pricing_Fetch::FAILED );
			$fetch->problem = self::network_problem( $response, (string) $url );
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

	/**
	 * What a request that got no answer means, as sentences for the admin (each refusal WordPress gives is
	 * named with its fix: wordpress/README.md, "Troubleshooting", says the same).
	 *
	 * @param WP_Error $error The HTTP API's error.
	 * @param string   $url   The address asked.
	 * @return string
	 */
	private static function network_problem( WP_Error $error, $url ) {
		$message = $error->get_error_message();
		if ( false !== stripos( $message, 'timed out' ) ) {
			/* translators: %d: seconds. */
			return sprintf( __( 'The mirror did not answer within %d seconds.', 'contractor-pricing' ), self::TIMEOUT );
		}
		if ( 'http_request_not_executed' === $error->get_error_code() ) {
			return __( 'WordPress blocked the request: this site\'s wp-config.php sets WP_HTTP_BLOCK_EXTERNAL. Add the mirror\'s host to WP_ACCESSIBLE_HOSTS there.', 'contractor-pricing' );
		}
		/* translators: %s: the HTTP API's error message. */
		$said = self::sentence( sprintf( __( 'The mirror could not be reached: %s', 'contractor-pricing' ), $message ) );
		// wp_safe_remote_get's refusal of an address (core's own message, in the site's language).
		if ( __( 'A valid URL was not provided.' ) === $message ) { // phpcs:ignore WordPress.WP.I18n.MissingArgDomain -- core's string, to recognise core's message.
			$said .= ' ' . self::refusal( $url );
		}
		return $said;
	}

	/**
	 * Why WordPress refused a mirror address whose host and port the plugin allows.
	 *
	 * @param string $url The address asked.
	 * @return string
	 */
	private static function refusal( $url ) {
		$mirror = self::host_and_port( $url );
		$host   = null === $mirror ? '' : $mirror['host'];
		if ( false !== strpbrk( $host, ':[]' ) ) {
			return __( 'WordPress does not send requests to an IPv6 address written as numbers: enter the mirror\'s host name instead.', 'contractor-pricing' );
		}
		if ( '' !== $host && ! filter_var( $host, FILTER_VALIDATE_IP ) && gethostbyname( $host ) === $host ) {
			/* translators: %s: a host name. */
			return sprintf( __( 'The host name %s does not resolve from this server: check the address, or ask your host about the server\'s DNS.', 'contractor-pricing' ), $host );
		}
		return __( 'WordPress refused an address the mirror redirected to (another host, another port or a private address): enter the address the mirror answers on without redirecting.', 'contractor-pricing' );
	}

	/**
	 * A text ending as a sentence ends (a full stop added when it has none), so the next sentence is not run into it.
	 *
	 * @param string $text Some text.
	 * @return string
	 */
	public static function sentence( $text ) {
		$text = rtrim( (string) $text );
		return '' === $text || preg_match( '/[.!?…]$/u', $text ) ? $text : $text . '.';
	}
}
