<?php
/**
 * The plugin's settings: what they are, their defaults, the one rule that checks them, and the mirror's URLs.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * One option (`contractor_pricing_settings`, autoloaded: every page may print the embed tag) holding
 * the mirror's address, the contractor's plugin key, the quote link's source label and the embed switch. (Version 1.0.0 also kept the
 * contractor's trades there; pricing.json carries them now, and upgrade() drops the old field.)
 */
final class Contractor_Pricing_Settings {

	const OPTION = 'contractor_pricing_settings';
	const GROUP  = 'contractor_pricing';

	/** The mirror's routes this plugin reads (the mirror's route table: `/companies/{key}/pricing.json`, `/webmcp.js`). */
	const PRICING_JSON_PATH = '/companies/{key}/pricing.json';
	const WEBMCP_JS_PATH    = '/webmcp.js';

	/**
	 * The `?source=` label the quote button carries when the contractor sets none, so the mirror's source
	 * tracking tells this site's visitors from the agents' clicks.
	 */
	const QUOTE_SOURCE = 'wordpress';

	/**
	 * The longest label the mirror records whole (web/sources.py LABEL_MAX: it keeps a label's first 64
	 * characters, NULs removed, and ignores a blank one). A longer label is refused here rather than cut there.
	 */
	const QUOTE_SOURCE_MAX = 64;

	/** The mirror's plugin keys: letters, digits, `-` and `_`, at most 128 characters. */
	const KEY_PATTERN = '/^[A-Za-z0-9_-]{1,128}$/';

	/**
	 * The settings before anything is saved.
	 *
	 * @return array
	 */
	public static function defaults() {
		return array(
			'mirror_url'   => '',
			'plugin_key'   => '',
			'quote_source' => '',
			'webmcp_embed' => false,
		);
	}

	/**
	 * The quote button's `?source=` label: the contractor's own, else "wordpress".
	 *
	 * @return string
	 */
	public static function quote_source() {
		$label = self::all()['quote_source'];
		return is_string( $label ) && '' !== $label ? $label : self::QUOTE_SOURCE;
	}

	/**
	 * A source label as the settings keep it: trimmed; '' for blank (the default, "wordpress"); null when
	 * it is longer than the mirror records whole or holds a control character.
	 *
	 * @param mixed $value The submitted label.
	 * @return string|null
	 */
	public static function normalise_quote_source( $value ) {
		if ( ! is_scalar( $value ) ) {
			return null;
		}
		$label = trim( (string) $value );
		if ( '' === $label ) {
			return '';
		}
		$length = preg_match_all( '/./us', $label );
		return false !== $length && $length <= self::QUOTE_SOURCE_MAX && ! preg_match( '/[\p{Cc}]/u', $label ) ? $label : null;
	}

	/**
	 * The saved settings, every field present.
	 *
	 * @return array
	 */
	public static function all() {
		$saved = get_option( self::OPTION, array() );
		return array_merge( self::defaults(), is_array( $saved ) ? array_intersect_key( $saved, self::defaults() ) : array() );
	}

	/**
	 * Drop the fields an earlier version saved that are settings no more (1.0.0's `trades`): runs on `init`,
	 * and writes the option only when it holds such a field.
	 */
	public static function upgrade() {
		$saved = get_option( self::OPTION, null );
		if ( is_array( $saved ) && array_diff_key( $saved, self::defaults() ) ) {
			update_option( self::OPTION, array_intersect_key( $saved, self::defaults() ) );
		}
	}

	/**
	 * Whether both the mirror's address and the key are set.
	 *
	 * @return bool
	 */
	public static function is_configured() {
		$settings = self::all();
		return '' !== $settings['mirror_url'] && '' !== $settings['plugin_key'];
	}

	/**
	 * The company's pricing.json URL, or null when the plugin is not configured.
	 *
	 * @return string|null
	 */
	public static function pricing_json_url() {
		return self::company_url( self::PRICING_JSON_PATH );
	}

	/**
	 * The mirror's webmcp.js URL, or null when the plugin is not configured.
	 *
	 * @return string|null
	 */
	public static function webmcp_script_url() {
		return self::is_configured() ? self::all()['mirror_url'] . self::WEBMCP_JS_PATH : null;
	}

	/**
	 * A mirror route with the company's key filled in (percent-encoded), or null when not configured.
	 *
	 * @param string $path A route with `{key}`.
	 * @return string|null
	 */
	private static function company_url( $path ) {
		if ( ! self::is_configured() ) {
			return null;
		}
		$settings = self::all();
		return $settings['mirror_url'] . str_replace( '{key}', rawurlencode( $settings['plugin_key'] ), $path );
	}

	/**
	 * Register the option with its sanitize callback (the settings page and any `update_option` go through it).
	 */
	public static function register() {
		register_setting(
			self::GROUP,
			self::OPTION,
			array(
				'type'              => 'object',
				'sanitize_callback' => array( __CLASS__, 'sanitize' ),
				'default'           => self::defaults(),
				'show_in_rest'      => false,
			)
		);
	}

	/**
	 * The one rule for every settings field: the whole submitted option, as the settings form sends it
	 * (an unticked box is absent). A bad address or key keeps the saved one and says why; a company's own
	 * address (its pricing.json's) is cut to the mirror's, and says so.
	 *
	 * @param mixed $input The submitted settings.
	 * @return array
	 */
	public static function sanitize( $input ) {
		$current = self::all();
		$input   = is_array( $input ) ? $input : array();
		$clean   = self::defaults();

		$url = self::normalise_mirror_url( isset( $input['mirror_url'] ) ? $input['mirror_url'] : '' );
		if ( null === $url ) {
			$url = $current['mirror_url'];
			self::tell( 'mirror_url', __( 'The mirror address must be an http:// or https:// address with a host, such as https://catalog.example.com; the saved address is kept.', 'contractor-pricing' ) );
		}
		$key = isset( $input['plugin_key'] ) && is_scalar( $input['plugin_key'] ) ? trim( (string) $input['plugin_key'] ) : '';

		// A company's own address pasted whole (its pricing.json, its hosted page): the mirror is what comes before
		// `/companies/`, and the key after it serves when the key field is empty.
		$company = '' === (string) $url ? null : self::split_company_address( $url );
		if ( null !== $company ) {
			$url = $company[0];
			if ( '' === $key ) {
				$key = $company[1];
			}
			self::tell(
				'mirror_url',
				/* translators: 1: the mirror's address as saved, 2: the route the plugin adds to it. */
				sprintf( __( 'The mirror address is saved as %1$s: the plugin adds %2$s to it itself.', 'contractor-pricing' ), esc_html( $url ), esc_html( str_replace( '{key}', 'KEY', self::PRICING_JSON_PATH ) ) ),
				'success'
			);
		}
		$clean['mirror_url'] = $url;

		if ( '' !== $key && ! preg_match( self::KEY_PATTERN, $key ) ) {
			$key = $current['plugin_key'];
			self::tell( 'plugin_key', __( 'The plugin key has letters, digits, "-" and "_" only (at most 128); the saved key is kept.', 'contractor-pricing' ) );
		}
		$clean['plugin_key'] = $key;

		$label = self::normalise_quote_source( isset( $input['quote_source'] ) ? $input['quote_source'] : '' );
		if ( null === $label ) {
			$label = $current['quote_source'];
			/* translators: %d: the most characters a label may have. */
			self::tell( 'quote_source', sprintf( __( 'The quote link\'s source label has at most %d characters and no control characters; the saved label is kept.', 'contractor-pricing' ), self::QUOTE_SOURCE_MAX ) );
		}
		$clean['quote_source'] = $label;

		$clean['webmcp_embed'] = ! empty( $input['webmcp_embed'] );
		return $clean;
	}

	/**
	 * `https://host[:port][/path]` without a trailing slash, query or fragment; '' for empty; null when unusable.
	 *
	 * @param mixed $value The submitted address.
	 * @return string|null
	 */
	public static function normalise_mirror_url( $value ) {
		if ( ! is_scalar( $value ) ) {
			return null;
		}
		$value = trim( (string) $value );
		if ( '' === $value ) {
			return '';
		}
		$parts = wp_parse_url( $value );
		if ( ! is_array( $parts ) || empty( $parts['host'] ) || empty( $parts['scheme'] )
			|| ! in_array( strtolower( $parts['scheme'] ), array( 'http', 'https' ), true )
			|| isset( $parts['user'] ) || isset( $parts['pass'] ) || isset( $parts['query'] ) || isset( $parts['fragment'] ) ) {
			return null;
		}
		$url = strtolower( $parts['scheme'] ) . '://' . strtolower( $parts['host'] );
		if ( isset( $parts['port'] ) ) {
			$url .= ':' . (int) $parts['port'];
		}
		$url .= isset( $parts['path'] ) ? rtrim( $parts['path'], '/' ) : '';
		return esc_url_raw( $url, array( 'http', 'https' ) ) === $url ? $url : null;
	}

	/**
	 * A mirror address that names a company's route (`https://host/companies/KEY/pricing.json`, the hosted page,
	 * or `/companies` alone): the mirror's own address before it and the key after it ('' when it names none,
	 * or nothing a key can be); null for a mirror's own address.
	 *
	 * @param string $url A normalised mirror address (normalise_mirror_url()).
	 * @return array|null [ mirror address, key ]
	 */
	public static function split_company_address( $url ) {
		$companies = rtrim( strstr( self::PRICING_JSON_PATH, '{key}', true ), '/' );
		if ( ! preg_match( '#^(https?://[^/]+.*?)' . preg_quote( $companies, '#' ) . '(?:/([^/]*).*)?$#', (string) $url, $found ) ) {
			return null;
		}
		$key = isset( $found[2] ) ? rawurldecode( $found[2] ) : '';
		return array( $found[1], preg_match( self::KEY_PATTERN, $key ) ? $key : '' );
	}

	/**
	 * Tell the settings page why a field was not saved, or how it was (outside the admin, nobody is listening).
	 * WordPress prints these messages as HTML: escape what the contractor typed.
	 *
	 * @param string $field   The field's name.
	 * @param string $message What to fix, or what was done.
	 * @param string $type    'error', or 'success' for a value saved in another form.
	 */
	private static function tell( $field, $message, $type = 'error' ) {
		if ( function_exists( 'add_settings_error' ) ) {
			add_settings_error( self::OPTION, 'contractor-pricing-' . $field, $message, $type );
		}
	}
}
