<?php
/**
 * The poller's ETag handling: what each answer of the mirror does to the stored copy.
 *
 * @package ContractorPricing
 */

/**
 * One poll per step, the mirror's answers queued by the test.
 */
class PollerTest extends Contractor_Pricing_TestCase {

	public function test_the_first_poll_is_unconditional_and_stores_document_etag_version_and_first_seen() {
		$this->mirror_serves( self::document(), '"v1"' );
		$before = time();
		Contractor_Pricing_Poller::poll();

		$this->assertCount( 1, $this->requests );
		$this->assertSame( self::MIRROR . '/companies/tudi-test/pricing.json', $this->requests[0]['url'] );
		$this->assertArrayNotHasKey( 'If-None-Match', $this->requests[0]['args']['headers'] );
		$this->assertLessThanOrEqual( Contractor_Pricing_Mirror_Client::TIMEOUT, $this->requests[0]['args']['timeout'] );
		$this->assertTrue( $this->requests[0]['args']['reject_unsafe_urls'], 'pricing.json must be fetched with wp_safe_remote_get' );
		$this->assertSame( Contractor_Pricing_Mirror_Client::MAX_BODY_BYTES, $this->requests[0]['args']['limit_response_size'] );

		$copy = Contractor_Pricing_Store::copy();
		$body = (string) wp_json_encode( self::document(), JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE );
		$this->assertSame( Contractor_Pricing_Document::parse( $body ), $copy['document'], 'the document is stored as the poll decoded it, once' );
		$this->assertArrayNotHasKey( 'body', $copy );
		$this->assertSame( '"v1"', $copy['etag'] );
		$this->assertSame( '582cad72ff010ebc', $copy['content_version'] );
		$this->assertGreaterThanOrEqual( $before, $copy['first_seen_at'] );
		$this->assertSame( Contractor_Pricing_Fetch::CHANGED, Contractor_Pricing_Store::status()['outcome'] );
	}

	public function test_copy_and_status_are_options_that_are_not_autoloaded() {
		$this->store( self::document() );
		global $wpdb;
		$autoload = $wpdb->get_col(
			$wpdb->prepare( "SELECT autoload FROM {$wpdb->options} WHERE option_name IN (%s, %s)", Contractor_Pricing_Store::COPY, Contractor_Pricing_Store::STATUS )
		);
		$this->assertSame( array( 'no', 'no' ), $autoload );
	}

	public function test_the_next_poll_sends_the_etag_and_a_304_leaves_the_copy_as_it_was() {
		$this->mirror_serves( self::document(), '"v1"' );
		Contractor_Pricing_Poller::poll();
		$stored = get_option( Contractor_Pricing_Store::COPY );

		$this->mirror_answers( 304, '', array( 'ETag' => '"v1"', 'Cache-Control' => 'public, max-age=300' ) );
		Contractor_Pricing_Poller::poll();

		$this->assertSame( '"v1"', $this->requests[1]['args']['headers']['If-None-Match'] );
		$this->assertSame( $stored, get_option( Contractor_Pricing_Store::COPY ) );
		$status = Contractor_Pricing_Store::status();
		$this->assertSame( Contractor_Pricing_Fetch::NOT_MODIFIED, $status['outcome'] );
		$this->assertSame( $status['last_poll_at'], $status['last_success_at'] );
	}

	public function test_a_new_etag_with_the_same_content_version_keeps_the_first_seen_time() {
		$this->mirror_serves( self::document(), '"v1"' );
		Contractor_Pricing_Poller::poll();
		$first = Contractor_Pricing_Store::copy();
		$this->age_first_seen( 3600 );

		$this->mirror_serves( self::document( array( 'last_synced_at' => '2026-12-01T11:00:00Z' ) ), '"v2"' );
		Contractor_Pricing_Poller::poll();

		$copy = Contractor_Pricing_Store::copy();
		$this->assertSame( '"v2"', $copy['etag'] );
		$this->assertSame( '2026-12-01T11:00:00Z', $copy['document']['last_synced_at'] );
		$this->assertSame( $first['first_seen_at'] - 3600, $copy['first_seen_at'] );
	}

	public function test_a_new_content_version_is_first_seen_now() {
		$this->mirror_serves( self::document(), '"v1"' );
		Contractor_Pricing_Poller::poll();
		$this->age_first_seen( 3600 );

		$this->mirror_serves( self::document( array( 'content_version' => 'f00dfeedf00dfeed' ) ), '"v3"' );
		$before = time();
		Contractor_Pricing_Poller::poll();

		$copy = Contractor_Pricing_Store::copy();
		$this->assertSame( 'f00dfeedf00dfeed', $copy['content_version'] );
		$this->assertGreaterThanOrEqual( $before, $copy['first_seen_at'] );
	}

	public function test_a_404_withdraws_the_copy() {
		$this->store( self::document() );
		$this->mirror_answers( 404, '{"error":"not_found","message":"No such company."}' );
		Contractor_Pricing_Poller::poll();

		$this->assertNull( Contractor_Pricing_Store::copy() );
		$this->assertSame( Contractor_Pricing_Fetch::NOT_FOUND, Contractor_Pricing_Store::status()['outcome'] );
	}

	/**
	 * @dataProvider failures
	 *
	 * @param string $answer What the mirror does.
	 */
	public function test_a_failed_poll_keeps_the_copy_and_says_why( $answer ) {
		$this->store( self::document() );
		$stored  = get_option( Contractor_Pricing_Store::COPY );
		$success = Contractor_Pricing_Store::status()['last_success_at'];
		if ( 'timeout' === $answer ) {
			$this->answers[] = new WP_Error( 'http_request_failed', 'cURL error 28: Operation timed out after 5001 milliseconds with 0 bytes received' );
		} elseif ( 'not json' === $answer ) {
			$this->mirror_answers( 200, '<html>Bad gateway</html>', array( 'Content-Type' => 'text/html' ) );
		} elseif ( 'not pricing.json' === $answer ) {
			$this->mirror_answers( 200, '{"categories": "none"}', array( 'Content-Type' => 'application/json' ) );
		} else {
			$this->mirror_answers( (int) $answer, 'Service Unavailable' );
		}
		Contractor_Pricing_Poller::poll();

		$this->assertSame( $stored, get_option( Contractor_Pricing_Store::COPY ) );
		$status = Contractor_Pricing_Store::status();
		$this->assertSame( Contractor_Pricing_Fetch::FAILED, $status['outcome'] );
		$this->assertSame( $success, $status['last_success_at'] );
		$this->assertNotSame( '', $status['problem'] );
		$notice = Contractor_Pricing_Admin_Notice::message( $status, true );
		$this->assertStringContainsString( gmdate( 'Y-m-d\TH:i:s\Z', $success ), $notice, 'the notice names the last successful poll' );
	}

	/**
	 * @return array[]
	 */
	public function failures() {
		return array(
			'503'              => array( '503' ),
			'500'              => array( '500' ),
			'429'              => array( '429' ),
			'timeout'          => array( 'timeout' ),
			'not json'         => array( 'not json' ),
			'not pricing.json' => array( 'not pricing.json' ),
		);
	}

	public function test_a_body_cut_at_the_size_cap_is_a_failed_poll_that_keeps_the_copy() {
		$this->store( self::document() );
		$stored = Contractor_Pricing_Store::copy();
		$this->mirror_answers( 200, str_repeat( ' ', Contractor_Pricing_Mirror_Client::MAX_BODY_BYTES ), array( 'ETag' => '"huge"' ) );
		Contractor_Pricing_Poller::poll();
		$status = Contractor_Pricing_Store::status();
		$this->assertSame( Contractor_Pricing_Fetch::FAILED, $status['outcome'] );
		$this->assertStringContainsString( 'larger than 32 MB', $status['problem'] );
		$this->assertSame( $stored, Contractor_Pricing_Store::copy() );
	}

	public function test_the_next_poll_comes_after_the_answers_max_age() {
		$this->mirror_serves( self::document(), '"v1"' );
		$before = time();
		Contractor_Pricing_Poller::run();
		$next = wp_next_scheduled( Contractor_Pricing_Poller::HOOK );
		$this->assertGreaterThanOrEqual( $before + 300, $next );
		$this->assertLessThanOrEqual( time() + 300, $next );

		$intervals = array();
		foreach ( array( 'public, max-age=900' => 900, 'max-age=5' => 60, 'public, max-age=999999' => 86400, 'no-cache' => 300 ) as $header => $expected ) {
			$fetch          = new Contractor_Pricing_Fetch( Contractor_Pricing_Fetch::NOT_MODIFIED );
			$fetch->max_age = Contractor_Pricing_Mirror_Client::max_age( $header );
			$intervals[]    = array( $header, Contractor_Pricing_Poller::interval( $fetch ), $expected );
		}
		foreach ( $intervals as list( $header, $interval, $expected ) ) {
			$this->assertSame( $expected, $interval, $header );
		}
	}

	public function test_a_failed_poll_still_schedules_the_next() {
		$this->answers[] = new WP_Error( 'http_request_failed', 'cURL error 7: Failed to connect' );
		Contractor_Pricing_Poller::run();
		$this->assertNotFalse( wp_next_scheduled( Contractor_Pricing_Poller::HOOK ) );
	}

	public function test_another_key_forgets_the_copy_and_polls_soon() {
		$this->store( self::document() );
		update_option( Contractor_Pricing_Settings::OPTION, array_merge( Contractor_Pricing_Settings::all(), array( 'plugin_key' => 'another-key' ) ) );

		$this->assertNull( Contractor_Pricing_Store::copy() );
		$this->assertSame( array(), Contractor_Pricing_Store::status() );
		$this->assertLessThanOrEqual( time(), wp_next_scheduled( Contractor_Pricing_Poller::HOOK ) );
	}

	public function test_a_copy_the_database_refuses_is_a_failed_poll_that_keeps_the_last_one() {
		$this->store( self::document() );
		$stored = Contractor_Pricing_Store::copy();
		// The database refuses the write, as MariaDB refuses a value larger than max_allowed_packet.
		$refuse = function ( $query ) {
			return false !== strpos( $query, Contractor_Pricing_Store::COPY ) && 0 === stripos( ltrim( $query ), 'UPDATE' ) ? '' : $query;
		};
		add_filter( 'query', $refuse );
		$this->mirror_serves( self::document( array( 'content_version' => 'f00dfeedf00dfeed' ) ), '"v2"' );
		Contractor_Pricing_Poller::poll();
		remove_filter( 'query', $refuse );

		$status = Contractor_Pricing_Store::status();
		$this->assertSame( Contractor_Pricing_Fetch::FAILED, $status['outcome'] );
		$this->assertStringContainsString( 'could not be stored', $status['problem'] );
		$this->assertSame( $stored, Contractor_Pricing_Store::copy() );
	}

	public function test_a_copy_stored_by_1_1_is_read_once_and_kept_in_the_stored_form() {
		$body = (string) wp_json_encode( self::document(), JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE );
		$old  = array(
			'url'             => self::MIRROR . '/companies/' . self::KEY . '/pricing.json',
			'body'            => $body,
			'etag'            => '"v1"',
			'content_version' => '582cad72ff010ebc',
			'first_seen_at'   => 1764500000,
			'received_at'     => 1764500000,
		);
		update_option( Contractor_Pricing_Store::COPY, $old, false );

		$this->assertSame( Contractor_Pricing_Document::parse( $body ), Contractor_Pricing_Store::document() );
		$stored = get_option( Contractor_Pricing_Store::COPY );
		$this->assertArrayNotHasKey( 'body', $stored );
		$this->assertSame( Contractor_Pricing_Document::parse( $body ), $stored['document'] );
		$this->assertSame( array( '"v1"', '582cad72ff010ebc', 1764500000 ), array( $stored['etag'], $stored['content_version'], $stored['first_seen_at'] ) );
		$this->assertStringContainsString( 'Carrier', Contractor_Pricing_Renderer::render() );
	}

	/**
	 * Move the stored first-seen time into the past, as if the copy had been received earlier.
	 *
	 * @param int $seconds How far back.
	 */
	private function age_first_seen( $seconds ) {
		$copy                   = get_option( Contractor_Pricing_Store::COPY );
		$copy['first_seen_at'] -= $seconds;
		update_option( Contractor_Pricing_Store::COPY, $copy, false );
	}
}
