<?php
/**
 * What the page keeps of a category's options: per group, how many there are, the first ones and the last price.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * A category's `options`, grouped as the page lists them (a system's by tier: good, better, best, and ''
 * for those without one; an accessory's all in ''), each group bounded:
 *
 * - `count`: how many options the group has;
 * - `options`: its first LISTED options in the document's order (cheapest first), whole;
 * - `last_price`: the price of its last option (the top of the tier's own range).
 *
 * That is every fact the content rules read from `options` (docs/pricing-page.md, rules 2 and 3), so
 * the poll builds it once, one option at a time (add()), and the stored copy holds it in place of
 * `options`: a company of 100,000 products keeps a few hundred options, not 100,000.
 *
 * A listing is a plain array (it is stored in an option; no class is unserialized from the database).
 */
final class Contractor_Pricing_Option_Listing {

	/**
	 * The most options one group lists on the page: each tier's (and "Other options'") lowest-priced.
	 * A group with more says how many more there are and up to what price.
	 */
	const LISTED = 100;

	/**
	 * An empty listing.
	 *
	 * @return array Keys: count (all options), groups (by group key: count, options, last_price).
	 */
	public static function start() {
		return array(
			'count'  => 0,
			'groups' => array(),
		);
	}

	/**
	 * Add the next option (in the document's order).
	 *
	 * @param array $listing   start(), and what was added so far.
	 * @param array $option    A valid option.
	 * @param bool  $is_system Whether the category is an installed system (its options are grouped by tier).
	 * @return array The listing.
	 */
	public static function add( array $listing, array $option, $is_system ) {
		$key = self::group_key( $option, $is_system );
		if ( ! isset( $listing['groups'][ $key ] ) ) {
			$listing['groups'][ $key ] = array(
				'count'      => 0,
				'options'    => array(),
				'last_price' => null,
			);
		}
		$group = &$listing['groups'][ $key ];
		++$group['count'];
		if ( count( $group['options'] ) < self::LISTED ) {
			$group['options'][] = $option;
		}
		$group['last_price'] = $option['price'];
		unset( $group );
		++$listing['count'];
		return $listing;
	}

	/**
	 * The listing of a whole list of options (a decoded document that still has its `options`).
	 *
	 * @param array[] $options   The category's options.
	 * @param bool    $is_system Whether the category is an installed system.
	 * @return array
	 */
	public static function of( array $options, $is_system ) {
		$listing = self::start();
		foreach ( $options as $option ) {
			$listing = self::add( $listing, $option, $is_system );
		}
		return $listing;
	}

	/**
	 * One group of a listing; an empty group when it has no option.
	 *
	 * @param array  $listing A listing.
	 * @param string $key     good, better, best or ''.
	 * @return array Keys: count, options, last_price.
	 */
	public static function group( array $listing, $key ) {
		return isset( $listing['groups'][ $key ] ) ? $listing['groups'][ $key ] : array(
			'count'      => 0,
			'options'    => array(),
			'last_price' => null,
		);
	}

	/**
	 * Whether every option of every group is listed.
	 *
	 * @param array $listing A listing.
	 * @return bool
	 */
	public static function is_complete( array $listing ) {
		foreach ( $listing['groups'] as $group ) {
			if ( count( $group['options'] ) < $group['count'] ) {
				return false;
			}
		}
		return true;
	}

	/**
	 * How many options the listing names.
	 *
	 * @param array $listing A listing.
	 * @return int
	 */
	public static function listed( array $listing ) {
		$listed = 0;
		foreach ( $listing['groups'] as $group ) {
			$listed += count( $group['options'] );
		}
		return $listed;
	}

	private static function group_key( array $option, $is_system ) {
		return $is_system && isset( $option['tier'] ) ? $option['tier'] : '';
	}
}
