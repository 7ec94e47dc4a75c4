<?php
/**
 * Polling: a WP-Cron event that asks the mirror for pricing.json with If-None-Match, as often as the
 * answer's Cache-Control allows, and keeps the last good copy.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * The only writer of the stored copy. It runs from WP-Cron (or WP-CLI), never while a visitor waits.
 *
 * - 200: store the document (decoded once, here, in the form the page reads), its ETag and its content_version; the time this site first saw that
 *   content_version is kept while the version stays the same (the sitemap's lastmod rule).
 * - 304: the copy is current; nothing in it changes.
 * - 404: withdraw the copy (the page says pricing is unavailable; JSON-LD and sitemap entry go).
 * - anything else (timeout, refused, 5xx, 429, a body that is not pricing.json): keep the copy,
 *   record the problem for the admin notice.
 *
 * Each run schedules the next one `max-age` seconds later (clamped to a minute .. a day).
 */
final class Contractor_Pricing_Poller {

	const HOOK             = 'contractor_pricing_poll';
	const DEFAULT_INTERVAL = 300;
	const MIN_INTERVAL     = 60;
	const MAX_INTERVAL     = 86400;

	/**
	 * Hook the poll event, keep it scheduled and start afresh when the company changes.
	 */
	public static function register() {
		add_action( self::HOOK, array( __CLASS__, 'run' ) );
		add_action( 'admin_init', array( __CLASS__, 'ensure_scheduled' ) );
		if ( wp_doing_cron() ) {
			add_action( 'init', array( __CLASS__, 'ensure_scheduled' ) );
		}
		add_action( 'add_option_' . Contractor_Pricing_Settings::OPTION, array( __CLASS__, 'settings_added' ), 10, 2 );
		add_action( 'update_option_' . Contractor_Pricing_Settings::OPTION, array( __CLASS__, 'settings_changed' ), 10, 2 );
	}

	/**
	 * The cron event: poll once, then schedule the next poll (also when this one failed).
	 */
	public static function run() {
		$interval = self::DEFAULT_INTERVAL;
		try {
			$fetch = self::poll();
			if ( null !== $fetch ) {
				$interval = self::interval( $fetch );
			}
		} finally {
			if ( Contractor_Pricing_Settings::is_configured() ) {
				self::schedule( time() + $interval );
			}
		}
	}

	/**
	 * Ask the mirror once and apply the answer; null when the plugin is not configured.
	 *
	 * @param bool $conditional Whether to send the stored ETag (a poll does; "Check connection" asks for the whole document).
	 * @return Contractor_Pricing_Fetch|null
	 */
	public static function poll( $conditional = true ) {
		$url = Contractor_Pricing_Settings::pricing_json_url();
		if ( null === $url ) {
			return null;
		}
		$copy  = Contractor_Pricing_Store::copy();
		$etag  = $conditional && null !== $copy ? (string) $copy['etag'] : '';
		$fetch = Contractor_Pricing_Mirror_Client::fetch( $url, $etag );
		self::apply( $fetch, $url, $copy, time() );
		return $fetch;
	}

	/**
	 * "Check connection": an unconditional poll, applied as any poll's answer is (a 200 is stored by the
	 * same boundary rule, and the page shows it at once; the status, and so the admin notice, is this
	 * answer's), then the next poll scheduled from it. Null when the plugin is not configured.
	 *
	 * @return Contractor_Pricing_Fetch|null
	 */
	public static function check() {
		$fetch = self::poll( false );
		if ( null !== $fetch ) {
			self::schedule( time() + self::interval( $fetch ) );
		}
		return $fetch;
	}

	/**
	 * Apply one answer to the stored copy and status.
	 *
	 * @param Contractor_Pricing_Fetch $fetch The answer.
	 * @param string                   $url   The URL asked.
	 * @param array|null               $copy  The copy stored before the request.
	 * @param int                      $now   The time of the poll.
	 */
	public static function apply( Contractor_Pricing_Fetch $fetch, $url, $copy, $now ) {
		$status = array_merge(
			Contractor_Pricing_Store::status(),
			array(
				'last_poll_at' => $now,
				'outcome'      => $fetch->outcome,
				'http_status'  => $fetch->status,
				'problem'      => $fetch->problem,
			)
		);
		if ( Contractor_Pricing_Fetch::CHANGED === $fetch->outcome && ! Contractor_Pricing_Store::save_copy( self::new_copy( $fetch, $url, $copy, $now ) ) ) {
			// What happened is a failure: the status says so, and so does the answer to whoever asked (Check connection).
			$fetch->outcome    = Contractor_Pricing_Fetch::FAILED;
			$fetch->problem    = __( 'The new prices could not be stored: the database refused them. The page keeps the last copy.', 'contractor-pricing' );
			$status['outcome'] = $fetch->outcome;
			$status['problem'] = $fetch->problem;
		} elseif ( Contractor_Pricing_Fetch::CHANGED === $fetch->outcome ) {
			$status['last_success_at'] = $now;
		} elseif ( Contractor_Pricing_Fetch::NOT_MODIFIED === $fetch->outcome && null !== $copy ) {
			$status['last_success_at'] = $now;
		} elseif ( Contractor_Pricing_Fetch::NOT_FOUND === $fetch->outcome ) {
			Contractor_Pricing_Store::forget_copy();
		}
		Contractor_Pricing_Store::save_status( $status );
	}

	/**
	 * The copy a 200 makes: its first-seen time moves only with content_version.
	 *
	 * @param Contractor_Pricing_Fetch $fetch A 200.
	 * @param string                   $url   The URL asked.
	 * @param array|null               $copy  The copy stored before.
	 * @param int                      $now   The time of the poll.
	 * @return array
	 */
	private static function new_copy( Contractor_Pricing_Fetch $fetch, $url, $copy, $now ) {
		$version    = isset( $fetch->document['content_version'] ) ? $fetch->document['content_version'] : null;
		$same       = null !== $copy && array_key_exists( 'content_version', $copy ) && $copy['content_version'] === $version;
		$first_seen = $same && isset( $copy['first_seen_at'] ) ? (int) $copy['first_seen_at'] : $now;
		return array(
			'url'             => $url,
			'document'        => $fetch->document,
			'etag'            => $fetch->etag,
			'content_version' => $version,
			'first_seen_at'   => $first_seen,
			'received_at'     => $now,
		);
	}

	/**
	 * Seconds until the next poll: the answer's max-age, else the default, within a minute .. a day.
	 *
	 * @param Contractor_Pricing_Fetch $fetch The last answer.
	 * @return int
	 */
	public static function interval( Contractor_Pricing_Fetch $fetch ) {
		$seconds = null === $fetch->max_age ? self::DEFAULT_INTERVAL : $fetch->max_age;
		return max( self::MIN_INTERVAL, min( self::MAX_INTERVAL, $seconds ) );
	}

	/**
	 * The one scheduled poll, at `$timestamp`.
	 *
	 * @param int $timestamp When.
	 */
	public static function schedule( $timestamp ) {
		wp_clear_scheduled_hook( self::HOOK );
		wp_schedule_single_event( $timestamp, self::HOOK );
	}

	/**
	 * Schedule a poll when none is (after activation, or if the chain was ever broken).
	 */
	public static function ensure_scheduled() {
		if ( Contractor_Pricing_Settings::is_configured() && false === wp_next_scheduled( self::HOOK ) ) {
			self::schedule( time() );
		}
	}

	/**
	 * No more polls (deactivation, uninstall).
	 */
	public static function unschedule() {
		wp_clear_scheduled_hook( self::HOOK );
	}

	/**
	 * The first save of the settings: poll as soon as WP-Cron runs.
	 *
	 * @param string $option The option's name.
	 * @param mixed  $value  The settings.
	 */
	public static function settings_added( $option, $value ) {
		self::ensure_scheduled();
	}

	/**
	 * Another mirror or key: the stored copy is another company's, so it goes, and a poll comes soon.
	 *
	 * @param mixed $old The settings before.
	 * @param mixed $new The settings after.
	 */
	public static function settings_changed( $old, $new ) {
		$fields = array( 'mirror_url', 'plugin_key' );
		foreach ( $fields as $field ) {
			$before = is_array( $old ) && isset( $old[ $field ] ) ? $old[ $field ] : '';
			$after  = is_array( $new ) && isset( $new[ $field ] ) ? $new[ $field ] : '';
			if ( $before !== $after ) {
				Contractor_Pricing_Store::forget();
				if ( Contractor_Pricing_Settings::is_configured() ) {
					self::schedule( time() );
				}
				return;
			}
		}
	}
}
