<?php
/**
 * The admin notice when the mirror did not answer, or answered 404.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * Shown to administrators on every admin page while the last poll failed (the page keeps showing
 * the last copy, and the notice says from when) or found no pricing (the page says it is unavailable).
 */
final class Contractor_Pricing_Admin_Notice {

	/**
	 * Hook the notice.
	 */
	public static function register() {
		add_action( 'admin_notices', array( __CLASS__, 'print_notice' ) );
	}

	/**
	 * The notice, when there is something to say.
	 */
	public static function print_notice() {
		if ( ! current_user_can( 'manage_options' ) || ! Contractor_Pricing_Settings::is_configured() ) {
			return;
		}
		$message = self::message( Contractor_Pricing_Store::status(), null !== Contractor_Pricing_Store::copy() );
		if ( '' !== $message ) {
			echo '<div class="notice notice-warning contractor-pricing-notice"><p>' . $message . '</p></div>'; // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- message() escapes its parts.
		}
	}

	/**
	 * The notice's HTML for a poll status ('' when the last poll went well).
	 *
	 * @param array $status   Contractor_Pricing_Store::status().
	 * @param bool  $has_copy Whether a copy is stored.
	 * @return string
	 */
	public static function message( array $status, $has_copy ) {
		$outcome = isset( $status['outcome'] ) ? $status['outcome'] : '';
		// A sentence of its own: a problem stored without a full stop ("… Couldn't connect to server") is not run into the next.
		$problem = Contractor_Pricing_Mirror_Client::sentence( isset( $status['problem'] ) ? (string) $status['problem'] : '' );
		$prefix  = '<strong>' . esc_html__( 'Contractor Pricing:', 'contractor-pricing' ) . '</strong> ';
		if ( Contractor_Pricing_Fetch::NOT_FOUND === $outcome ) {
			return $prefix . esc_html( $problem ) . ' ' . esc_html__( 'Your pricing page says pricing is not available, and its structured data and sitemap entry are withdrawn.', 'contractor-pricing' );
		}
		if ( Contractor_Pricing_Fetch::FAILED !== $outcome ) {
			return '';
		}
		$html = $prefix . esc_html( $problem ) . ' ';
		if ( $has_copy && ! empty( $status['last_success_at'] ) ) {
			/* translators: %s: the date and time of the last successful poll. */
			$html .= sprintf( esc_html__( 'Your pricing page keeps showing the prices from the last successful poll, %s.', 'contractor-pricing' ), self::time( (int) $status['last_success_at'] ) );
		} else {
			$html .= esc_html__( 'No prices have been received yet, so your pricing page says pricing is not available.', 'contractor-pricing' );
		}
		return $html;
	}

	/**
	 * A time in the site's format and timezone, with the instant in `datetime`.
	 *
	 * @param int $timestamp Unix seconds.
	 * @return string
	 */
	public static function time( $timestamp ) {
		$shown = wp_date( get_option( 'date_format' ) . ' ' . get_option( 'time_format' ), $timestamp );
		return '<time datetime="' . esc_attr( gmdate( 'Y-m-d\TH:i:s\Z', $timestamp ) ) . '">' . esc_html( $shown ) . '</time>';
	}
}
