<?php
/**
 * Small commands on a local site (scripts/wordpress_site.sh), for trying the plugin and for its tests.
 *
 *   WORDPRESS_CONFIG=NAME WORDPRESS_HOST=127.0.0.1:PORT php cli.php COMMAND [ARGS]
 *
 *   configure FIELD=VALUE...   change plugin settings (through the plugin's sanitize rule)
 *   page TITLE CONTENT         publish a page; prints {"id":..,"url":..}
 *   poll                       run the poll event now (as WP-Cron would); prints the stored status
 *   due                        make the scheduled poll due now, so the next GET /wp-cron.php runs it
 *   option NAME                print an option as JSON
 *   next-poll                  print the scheduled poll's time (Unix seconds) or false
 *
 * @package ContractorPricing
 */

require __DIR__ . '/load.php';

$command = isset( $argv[1] ) ? $argv[1] : '';
$args    = array_slice( $argv, 2 );

/**
 * Print a value as one line of JSON.
 *
 * @param mixed $value The value.
 */
function contractor_pricing_cli_print( $value ) {
	echo wp_json_encode( $value, JSON_UNESCAPED_SLASHES ) . "\n";
}

switch ( $command ) {
	case 'configure':
		$settings = Contractor_Pricing_Settings::all();
		foreach ( $args as $pair ) {
			list( $field, $value ) = array_pad( explode( '=', $pair, 2 ), 2, '' );
			$settings[ $field ]    = $value;
		}
		update_option( Contractor_Pricing_Settings::OPTION, $settings );
		contractor_pricing_cli_print( Contractor_Pricing_Settings::all() );
		break;
	case 'page':
		if ( count( $args ) !== 2 ) {
			fwrite( STDERR, "usage: cli.php page TITLE CONTENT\n" );
			exit( 2 );
		}
		$id = wp_insert_post(
			array(
				'post_type'    => 'page',
				'post_status'  => 'publish',
				'post_title'   => $args[0],
				'post_content' => $args[1],
			),
			true
		);
		if ( is_wp_error( $id ) ) {
			fwrite( STDERR, 'cli.php: ' . $id->get_error_message() . "\n" );
			exit( 1 );
		}
		contractor_pricing_cli_print( array( 'id' => $id, 'url' => get_permalink( $id ) ) );
		break;
	case 'poll':
		do_action( Contractor_Pricing_Poller::HOOK );
		contractor_pricing_cli_print( Contractor_Pricing_Store::status() );
		break;
	case 'due':
		Contractor_Pricing_Poller::schedule( time() - 1 );
		contractor_pricing_cli_print( wp_next_scheduled( Contractor_Pricing_Poller::HOOK ) );
		break;
	case 'option':
		contractor_pricing_cli_print( get_option( isset( $args[0] ) ? $args[0] : '', null ) );
		break;
	case 'next-poll':
		contractor_pricing_cli_print( wp_next_scheduled( Contractor_Pricing_Poller::HOOK ) );
		break;
	default:
		fwrite( STDERR, "usage: cli.php configure|page|poll|due|option|next-poll ... (see the comment at the top)\n" );
		exit( 2 );
}
