<?php
/**
 * PHPUnit bootstrap: load the local site named by WORDPRESS_CONFIG (scripts/wordpress_site.sh install)
 * with the plugin active. PHPUnit includes this file inside a method, so WordPress's globals are
 * declared global here first.
 *
 * @package ContractorPricing
 */

// phpcs:ignore WordPress.WP.GlobalVariablesOverride.Prohibited
global $wpdb, $table_prefix, $wp_rewrite, $wp, $wp_query, $wp_the_query, $wp_roles, $wp_locale, $wp_embed,
	$wp_widget_factory, $shortcode_tags, $wp_filter, $wp_actions, $wp_current_filter, $wp_object_cache,
	$current_user, $wp_theme_directories, $wp_post_types, $wp_taxonomies, $wp_scripts, $wp_styles,
	$wp_plugin_paths, $pagenow, $blog_id, $wp_version, $wp_db_version, $wp_textdomain_registry, $wp_sitemaps,
	$allowedposttags, $allowedtags, $allowedentitynames, $wp_block_type_registry, $post, $wp_meta_boxes;

require dirname( __DIR__, 2 ) . '/scripts/wordpress/load.php';

if ( ! class_exists( 'Contractor_Pricing_Plugin' ) ) {
	fwrite( STDERR, "bootstrap: the site does not run the Contractor Pricing plugin\n" );
	exit( 1 );
}
require_once __DIR__ . '/TestCase.php';
