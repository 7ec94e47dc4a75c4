<?php
/**
 * Settings → Contractor Pricing: the mirror's address, the key, the embed, "Check connection"
 * and what the last poll found.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * Only users who can `manage_options` see or change anything here. The form goes through options.php
 * (the Settings API's nonce, and Contractor_Pricing_Settings::sanitize); "Check connection" posts to
 * admin-post.php with a nonce of its own.
 */
final class Contractor_Pricing_Settings_Page {

	const SLUG         = 'contractor-pricing';
	const CHECK_ACTION = 'contractor_pricing_check';

	/**
	 * Hook the page, its fields and the check.
	 */
	public static function register() {
		add_action( 'admin_menu', array( __CLASS__, 'add_page' ) );
		add_action( 'admin_init', array( __CLASS__, 'add_fields' ) );
		add_action( 'admin_post_' . self::CHECK_ACTION, array( __CLASS__, 'check_connection' ) );
		add_filter( 'plugin_action_links_' . plugin_basename( CONTRACTOR_PRICING_FILE ), array( __CLASS__, 'action_links' ) );
	}

	/**
	 * The page under Settings.
	 */
	public static function add_page() {
		add_options_page(
			__( 'Contractor Pricing', 'contractor-pricing' ),
			__( 'Contractor Pricing', 'contractor-pricing' ),
			'manage_options',
			self::SLUG,
			array( __CLASS__, 'render' )
		);
	}

	/**
	 * A "Settings" link beside the plugin on the Plugins screen.
	 *
	 * @param string[] $links The plugin's action links.
	 * @return string[]
	 */
	public static function action_links( $links ) {
		array_unshift( $links, '<a href="' . esc_url( self::url() ) . '">' . esc_html__( 'Settings', 'contractor-pricing' ) . '</a>' );
		return $links;
	}

	/**
	 * The settings page's address.
	 *
	 * @param array $args Extra query arguments.
	 * @return string
	 */
	public static function url( array $args = array() ) {
		return add_query_arg( array_merge( array( 'page' => self::SLUG ), $args ), admin_url( 'options-general.php' ) );
	}

	/**
	 * The form's fields (Settings API).
	 */
	public static function add_fields() {
		add_settings_section( 'contractor_pricing_mirror', __( 'Your catalog', 'contractor-pricing' ), array( __CLASS__, 'section_intro' ), self::SLUG );
		$texts = array(
			'mirror_url'   => array( __( 'Mirror address', 'contractor-pricing' ), 'url', 'https://catalog.example.com', __( 'The address of the catalog mirror that publishes your pricing.json: its base URL, with its port if it has one (any port works), without /companies/....', 'contractor-pricing' ) ),
			'plugin_key'   => array( __( 'Plugin key', 'contractor-pricing' ), 'text', '', __( 'Your company\'s plugin key on the commerce platform (it is public: it appears in your pricing.json address).', 'contractor-pricing' ) ),
			'quote_source' => array(
				__( 'Quote link label', 'contractor-pricing' ),
				'text',
				Contractor_Pricing_Settings::QUOTE_SOURCE,
				/* translators: 1: the default label, 2: the most characters a label may have. */
				sprintf( __( 'The "Get a quote" button adds ?source=LABEL to its link, so the mirror\'s source report counts the quote requests that came from this site apart from the AI assistants\'. Leave it empty for "%1$s"; at most %2$d characters.', 'contractor-pricing' ), Contractor_Pricing_Settings::QUOTE_SOURCE, Contractor_Pricing_Settings::QUOTE_SOURCE_MAX ),
			),
		);
		foreach ( $texts as $field => list( $title, $type, $placeholder, $description ) ) {
			add_settings_field(
				'contractor_pricing_' . $field,
				$title,
				array( __CLASS__, 'field_text' ),
				self::SLUG,
				'contractor_pricing_mirror',
				array(
					'label_for'   => 'contractor_pricing_' . $field,
					'field'       => $field,
					'type'        => $type,
					'placeholder' => $placeholder,
					'description' => $description,
				)
			);
		}
		add_settings_field( 'contractor_pricing_webmcp_embed', __( 'In-browser agents', 'contractor-pricing' ), array( __CLASS__, 'field_webmcp_embed' ), self::SLUG, 'contractor_pricing_mirror' );
	}

	/**
	 * The section's introduction.
	 */
	public static function section_intro() {
		echo '<p>' . esc_html__( 'Add the "Contractor pricing" block, or the [contractor_pricing] shortcode, to the page that should show your installed prices. The plugin keeps a copy of your pricing.json, refreshed in the background, so your page never waits for the mirror.', 'contractor-pricing' ) . '</p>';
	}

	/**
	 * A text field of the settings (the mirror's address, the key).
	 *
	 * @param array $args field, type, placeholder and description, from add_fields().
	 */
	public static function field_text( array $args ) {
		printf(
			'<input type="%1$s" class="regular-text code" id="%2$s" name="%3$s[%4$s]" value="%5$s" placeholder="%6$s" autocomplete="off" spellcheck="false"><p class="description">%7$s</p>',
			esc_attr( $args['type'] ),
			esc_attr( $args['label_for'] ),
			esc_attr( Contractor_Pricing_Settings::OPTION ),
			esc_attr( $args['field'] ),
			esc_attr( Contractor_Pricing_Settings::all()[ $args['field'] ] ),
			esc_attr( $args['placeholder'] ),
			esc_html( $args['description'] )
		);
	}

	/**
	 * The embed switch.
	 */
	public static function field_webmcp_embed() {
		printf(
			'<label><input type="checkbox" name="%1$s[webmcp_embed]" value="1"%2$s> %3$s</label><p class="description">%4$s</p>',
			esc_attr( Contractor_Pricing_Settings::OPTION ),
			checked( Contractor_Pricing_Settings::all()['webmcp_embed'], true, false ),
			esc_html__( 'Add the webmcp.js tag to every page', 'contractor-pricing' ),
			esc_html__( 'AI agents running in a visitor\'s browser then find your catalog tools (prices, tiers, service area) on your own site.', 'contractor-pricing' )
		);
	}

	/**
	 * The page itself.
	 */
	public static function render() {
		if ( ! current_user_can( 'manage_options' ) ) {
			return;
		}
		// No settings_errors() here: a page under Settings gets them from WordPress (wp-admin/options-head.php),
		// and a second call showed each refused field twice.
		echo '<div class="wrap"><h1>' . esc_html( get_admin_page_title() ) . '</h1>';
		self::render_check_result();
		echo '<form method="post" action="' . esc_url( admin_url( 'options.php' ) ) . '">';
		settings_fields( Contractor_Pricing_Settings::GROUP );
		do_settings_sections( self::SLUG );
		submit_button();
		echo '</form>';
		self::render_status();
		echo '<form method="post" action="' . esc_url( admin_url( 'admin-post.php' ) ) . '">';
		echo '<input type="hidden" name="action" value="' . esc_attr( self::CHECK_ACTION ) . '">';
		wp_nonce_field( self::CHECK_ACTION );
		submit_button( __( 'Check connection', 'contractor-pricing' ), 'secondary', 'contractor-pricing-check', false );
		echo '</form></div>';
	}

	/**
	 * What the polls have done so far.
	 */
	private static function render_status() {
		$status = Contractor_Pricing_Store::status();
		$copy   = Contractor_Pricing_Store::copy();
		$next   = wp_next_scheduled( Contractor_Pricing_Poller::HOOK );
		$rows   = array(
			__( 'Last poll', 'contractor-pricing' )            => isset( $status['last_poll_at'] ) ? Contractor_Pricing_Admin_Notice::time( (int) $status['last_poll_at'] ) . ' (' . esc_html( self::outcome_label( $status ) ) . ')' : esc_html__( 'not yet', 'contractor-pricing' ),
			__( 'Last successful poll', 'contractor-pricing' ) => isset( $status['last_success_at'] ) ? Contractor_Pricing_Admin_Notice::time( (int) $status['last_success_at'] ) : esc_html__( 'not yet', 'contractor-pricing' ),
			__( 'Next poll', 'contractor-pricing' )            => false === $next ? esc_html__( 'not scheduled', 'contractor-pricing' ) : Contractor_Pricing_Admin_Notice::time( (int) $next ),
			__( 'Prices shown', 'contractor-pricing' )         => null === $copy ? esc_html__( 'none (the page says pricing is not available)', 'contractor-pricing' )
				/* translators: 1: a content version, 2: a date and time. */
				: sprintf( esc_html__( 'content version %1$s, first seen %2$s', 'contractor-pricing' ), '<code>' . esc_html( (string) $copy['content_version'] ) . '</code>', Contractor_Pricing_Admin_Notice::time( (int) $copy['first_seen_at'] ) ),
		);
		echo '<h2>' . esc_html__( 'Status', 'contractor-pricing' ) . '</h2><table class="form-table contractor-pricing-status" role="presentation"><tbody>';
		foreach ( $rows as $label => $value ) {
			echo '<tr><th scope="row">' . esc_html( $label ) . '</th><td>' . $value . '</td></tr>'; // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- each value is escaped above.
		}
		echo '</tbody></table>';
	}

	private static function outcome_label( array $status ) {
		$labels = array(
			Contractor_Pricing_Fetch::CHANGED      => __( 'new prices received', 'contractor-pricing' ),
			Contractor_Pricing_Fetch::NOT_MODIFIED => __( 'unchanged', 'contractor-pricing' ),
			Contractor_Pricing_Fetch::NOT_FOUND    => __( 'no pricing published', 'contractor-pricing' ),
			Contractor_Pricing_Fetch::FAILED       => __( 'failed', 'contractor-pricing' ),
		);
		$outcome = isset( $status['outcome'] ) ? $status['outcome'] : '';
		return isset( $labels[ $outcome ] ) ? $labels[ $outcome ] : $outcome;
	}

	/**
	 * admin-post.php: poll once, unconditionally (Contractor_Pricing_Poller::check(): what came back is applied
	 * as a poll's answer, so good prices are stored and shown at once), and say what came back.
	 */
	public static function check_connection() {
		if ( ! current_user_can( 'manage_options' ) ) {
			wp_die( esc_html__( 'You are not allowed to check the connection.', 'contractor-pricing' ), 403 );
		}
		check_admin_referer( self::CHECK_ACTION );
		$url    = Contractor_Pricing_Settings::pricing_json_url();
		$result = null === $url
			? array( 'ok' => false, 'text' => __( 'Set the mirror address and the plugin key first.', 'contractor-pricing' ) )
			: self::describe( Contractor_Pricing_Poller::check(), $url );
		set_transient( self::result_key(), $result, 5 * MINUTE_IN_SECONDS );
		wp_safe_redirect( self::url( array( 'checked' => '1' ) ) );
		exit;
	}

	/**
	 * What a check found, in one sentence.
	 *
	 * @param Contractor_Pricing_Fetch $fetch The answer.
	 * @param string                   $url   The address asked.
	 * @return array Keys: ok (bool), text.
	 */
	public static function describe( Contractor_Pricing_Fetch $fetch, $url ) {
		if ( Contractor_Pricing_Fetch::CHANGED !== $fetch->outcome ) {
			/* translators: 1: the pricing.json address, 2: what went wrong. */
			return array( 'ok' => false, 'text' => sprintf( __( 'Asked %1$s: %2$s', 'contractor-pricing' ), $url, $fetch->problem ) );
		}
		$document   = $fetch->document;
		$categories = array_column( $document['categories'], 'name' );
		$confirmed  = Contractor_Pricing_Document::timestamp( $document, 'last_synced_at' );
		return array(
			'ok'   => true,
			'text' => sprintf(
				/* translators: 1: business name, 2: number of categories, 3: their names, 4: fresh/stale/unavailable, 5: a date. */
				_n( 'Connected: %1$s publishes %2$d category (%3$s); freshness: %4$s; prices last confirmed %5$s. Your pricing page shows these prices now.', 'Connected: %1$s publishes %2$d categories (%3$s); freshness: %4$s; prices last confirmed %5$s. Your pricing page shows these prices now.', count( $categories ), 'contractor-pricing' ),
				$document['business']['name'],
				count( $categories ),
				implode( ', ', $categories ),
				$document['freshness_state'],
				null === $confirmed ? __( 'never', 'contractor-pricing' ) : gmdate( 'Y-m-d H:i', $confirmed ) . ' UTC'
			),
		);
	}

	/**
	 * The last check's result, once, after the redirect.
	 */
	private static function render_check_result() {
		if ( empty( $_GET['checked'] ) ) { // phpcs:ignore WordPress.Security.NonceVerification.Recommended -- only chooses whether to show a stored message.
			return;
		}
		$result = get_transient( self::result_key() );
		delete_transient( self::result_key() );
		if ( is_array( $result ) && isset( $result['text'] ) ) {
			$class = ! empty( $result['ok'] ) ? 'notice-success' : 'notice-error';
			echo '<div class="notice ' . esc_attr( $class ) . ' contractor-pricing-check"><p>' . esc_html( $result['text'] ) . '</p></div>';
		}
	}

	private static function result_key() {
		return 'contractor_pricing_check_' . get_current_user_id();
	}
}
