<?php
/**
 * Reaching the mirror: its own host and port allowed for the plugin's one request, each refusal named with
 * its fix, "Check connection" storing what it fetched, and the notice's sentences kept apart.
 *
 * @package ContractorPricing
 */

/**
 * The requests never leave the process (`pre_http_request`); what WordPress would have refused is asked of
 * WordPress's own rule, wp_http_validate_url(), while the plugin's request is under way and after it.
 */
class ConnectionTest extends Contractor_Pricing_TestCase {

	/** A staging mirror inside the contractor's network, on a port WordPress does not allow by default. */
	const STAGING = 'http://10.20.30.40:8001';

	/** @var array What wp_http_validate_url() said of each address, during the plugin's request. */
	private $verdicts = array();

	/**
	 * `pre_http_request` (before the test's answer): WordPress's verdict on the addresses around the mirror's.
	 *
	 * @param mixed $preempt Passed on.
	 * @return mixed
	 */
	public function judge( $preempt ) {
		foreach ( $this->around( self::STAGING ) as $what => $url ) {
			$this->verdicts[ $what ] = false !== wp_http_validate_url( $url );
		}
		return $preempt;
	}

	/**
	 * The mirror's pricing.json and its neighbours: the same host on another port, another private host on
	 * the same port, a public host on the same port.
	 *
	 * @param string $mirror The mirror's address.
	 * @return string[]
	 */
	private function around( $mirror ) {
		return array(
			'the mirror'                      => $mirror . '/companies/tudi-test/pricing.json',
			'its host on another port'        => 'http://10.20.30.40:22/',
			'another private host, same port' => 'http://10.20.30.41:8001/',
			'a public host on the same port'  => 'http://93.184.216.34:8001/',
			'its host, with credentials'       => 'http://user:secret@10.20.30.40:8001/',
			'its host over another scheme'    => 'ftp://10.20.30.40:8001/',
		);
	}

	public function test_the_mirrors_own_host_and_port_are_allowed_for_its_request_and_nothing_else() {
		update_option( Contractor_Pricing_Settings::OPTION, array_merge( Contractor_Pricing_Settings::all(), array( 'mirror_url' => self::STAGING ) ) );
		$outside = array();
		foreach ( $this->around( self::STAGING ) as $what => $url ) {
			$outside[ $what ] = false !== wp_http_validate_url( $url );
		}
		add_filter( 'pre_http_request', array( $this, 'judge' ), 5 );
		$this->mirror_serves( self::document(), '"v1"' );
		Contractor_Pricing_Poller::poll();
		remove_filter( 'pre_http_request', array( $this, 'judge' ), 5 );

		$this->assertSame( self::STAGING . '/companies/tudi-test/pricing.json', $this->requests[0]['url'] );
		$this->assertTrue( $this->requests[0]['args']['reject_unsafe_urls'], 'still a safe request' );
		$this->assertSame(
			array(
				'the mirror'                        => true,
				'its host on another port'          => false,
				'another private host, same port'   => false,
				'a public host on the same port'    => false,
				'its host, with credentials'       => false,
				'its host over another scheme'      => false,
			),
			$this->verdicts,
			'during the plugin\'s request, only the configured host and port are opened'
		);
		// Before and after it, WordPress's own rules alone: the mirror's address is refused like the rest.
		$this->assertSame( array_fill_keys( array_keys( $outside ), false ), $outside );
		$this->assertFalse( wp_http_validate_url( self::STAGING . '/companies/tudi-test/pricing.json' ) );
		$this->assertFalse( has_filter( 'http_allowed_safe_ports', array( 'Contractor_Pricing_Mirror_Client', 'allowed_ports' ) ) );
		$this->assertFalse( has_filter( 'http_request_host_is_external', array( 'Contractor_Pricing_Mirror_Client', 'host_is_external' ) ) );
		$this->assertNotNull( Contractor_Pricing_Store::copy() );
	}

	public function test_a_mirror_on_a_default_port_opens_no_port() {
		add_filter( 'pre_http_request', array( $this, 'judge_default_port' ), 5 );
		$this->mirror_serves( self::document(), '"v1"' );
		Contractor_Pricing_Poller::poll();
		remove_filter( 'pre_http_request', array( $this, 'judge_default_port' ), 5 );
		$this->assertSame( array( 80, 443, 8080 ), $this->verdicts['ports'] );
	}

	/**
	 * `pre_http_request`: the ports allowed for the mirror's host (https://mirror.example, no port named).
	 *
	 * @param mixed $preempt Passed on.
	 * @return mixed
	 */
	public function judge_default_port( $preempt ) {
		$this->verdicts['ports'] = apply_filters( 'http_allowed_safe_ports', array( 80, 443, 8080 ), 'mirror.example', self::MIRROR . '/' );
		return $preempt;
	}

	/**
	 * Each refusal WordPress gives, and what the admin reads (wordpress/README.md, "Troubleshooting").
	 *
	 * @return array[]
	 */
	public function refusals() {
		return array(
			'blocked by wp-config.php'     => array( 'http_request_not_executed', 'User has blocked requests through HTTP.', self::STAGING, 'WP_ACCESSIBLE_HOSTS' ),
			'an IPv6 address'              => array( 'http_request_failed', 'A valid URL was not provided.', 'http://[::1]:8001', 'host name instead' ),
			'a refused redirect'           => array( 'http_request_failed', 'A valid URL was not provided.', self::STAGING, 'redirected to' ),
			'no answer'                    => array( 'http_request_failed', 'cURL error 7: Failed to connect to 10.20.30.40 port 8001 after 3 ms: Couldn\'t connect to server', self::STAGING, 'Couldn\'t connect to server.' ),
			'a certificate it cannot trust' => array( 'http_request_failed', 'cURL error 60: SSL certificate problem: self-signed certificate', 'https://mirror.example', 'self-signed certificate.' ),
		);
	}

	/**
	 * @dataProvider refusals
	 *
	 * @param string $code    The WP_Error's code.
	 * @param string $message Its message, as WordPress gives it.
	 * @param string $mirror  The mirror's address.
	 * @param string $says    What the problem must say.
	 */
	public function test_each_refusal_is_named_with_its_fix_in_whole_sentences( $code, $message, $mirror, $says ) {
		$fetch = Contractor_Pricing_Mirror_Client::interpret( new WP_Error( $code, $message ), $mirror . '/companies/tudi-test/pricing.json' );
		$this->assertSame( Contractor_Pricing_Fetch::FAILED, $fetch->outcome );
		$this->assertStringContainsString( $says, $fetch->problem );
		$this->assertMatchesRegularExpression( '/[.!?]$/', $fetch->problem, 'the problem ends its sentence' );
	}

	public function test_the_notice_keeps_its_sentences_apart() {
		$this->store( self::document() );
		$this->answers[] = new WP_Error( 'http_request_failed', 'cURL error 7: Failed to connect to mirror.example port 443 after 0 ms: Couldn\'t connect to server' );
		Contractor_Pricing_Poller::poll();
		$notice = self::words( Contractor_Pricing_Admin_Notice::message( Contractor_Pricing_Store::status(), true ) );
		$this->assertStringContainsString( 'Couldn\'t connect to server. Your pricing page keeps showing the prices from the last successful poll', $notice );

		// A status a 1.2 poll stored, its problem without a full stop, reads the same.
		$status            = Contractor_Pricing_Store::status();
		$status['problem'] = 'The mirror could not be reached: Connection refused';
		$notice            = self::words( Contractor_Pricing_Admin_Notice::message( $status, false ) );
		$this->assertStringContainsString( 'Connection refused. No prices have been received yet', $notice );
		$this->assertStringContainsString( 'switched off. Your pricing page says', self::words( Contractor_Pricing_Admin_Notice::message( array( 'outcome' => Contractor_Pricing_Fetch::NOT_FOUND, 'problem' => 'The mirror answered 404: the plugin key is unknown, the company is not public, or its pricing is switched off' ), false ) ) );
	}

	/**
	 * The notice's HTML as a person reads it.
	 *
	 * @param string $html The notice's HTML.
	 * @return string
	 */
	private static function words( $html ) {
		return html_entity_decode( wp_strip_all_tags( $html ), ENT_QUOTES, 'UTF-8' );
	}

	public function test_check_connection_stores_what_it_fetched_clears_the_notice_and_the_page_shows_the_prices() {
		// The first poll failed: no prices, and the notice says so.
		$this->answers[] = new WP_Error( 'http_request_failed', 'A valid URL was not provided.' );
		Contractor_Pricing_Poller::poll();
		$this->assertNotSame( '', Contractor_Pricing_Admin_Notice::message( Contractor_Pricing_Store::status(), false ) );
		$this->assertStringContainsString( 'contractor-pricing--unavailable', Contractor_Pricing_Renderer::render() );

		$this->mirror_serves( self::document(), '"v1"' );
		$before = time();
		$fetch  = Contractor_Pricing_Poller::check();
		$said   = Contractor_Pricing_Settings_Page::describe( $fetch, self::MIRROR . '/companies/tudi-test/pricing.json' );

		$this->assertTrue( $said['ok'] );
		$this->assertStringStartsWith( 'Connected: Tudi Mechanical Systems publishes 3 categories', $said['text'] );
		$this->assertStringEndsWith( 'Your pricing page shows these prices now.', $said['text'] );
		$this->assertSame( '"v1"', Contractor_Pricing_Store::copy()['etag'] );
		$status = Contractor_Pricing_Store::status();
		$this->assertSame( Contractor_Pricing_Fetch::CHANGED, $status['outcome'] );
		$this->assertSame( '', Contractor_Pricing_Admin_Notice::message( $status, true ), 'the failure notice is gone' );
		$this->assertStringContainsString( 'Carrier', Contractor_Pricing_Renderer::render() );
		$next = wp_next_scheduled( Contractor_Pricing_Poller::HOOK );
		$this->assertGreaterThanOrEqual( $before + 300, $next, 'the next poll comes after the answer\'s max-age' );

		// A check always asks for the whole document (it says what the mirror publishes), and a body that is not
		// pricing.json is refused by the same boundary rule as a poll's: the copy stays.
		$this->mirror_answers( 200, '{"categories": "none"}', array( 'Content-Type' => 'application/json' ) );
		$said = Contractor_Pricing_Settings_Page::describe( Contractor_Pricing_Poller::check(), self::MIRROR . '/companies/tudi-test/pricing.json' );
		$this->assertArrayNotHasKey( 'If-None-Match', $this->requests[2]['args']['headers'] );
		$this->assertFalse( $said['ok'] );
		$this->assertStringContainsString( 'not pricing.json', $said['text'] );
		$this->assertSame( '"v1"', Contractor_Pricing_Store::copy()['etag'] );
		$this->assertSame( Contractor_Pricing_Fetch::FAILED, Contractor_Pricing_Store::status()['outcome'] );
	}
}
