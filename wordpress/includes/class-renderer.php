<?php
/**
 * The one renderer the block and the shortcode share: the stored pricing document as HTML, no JavaScript.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * Lays out what Contractor_Pricing_Content says. Every value goes through esc_html, esc_attr or
 * esc_url; contractor text (names, brands, the price description) sits in <bdi> so right-to-left text
 * cannot reorder the words around it.
 */
final class Contractor_Pricing_Renderer {

	const STYLE = 'contractor-pricing';

	/** @var array Sections rendered inside `the_content`, by placeholder. */
	private static $held = array();

	/** @var string This request's placeholder prefix, so page text can never forge one. */
	private static $nonce = '';

	/**
	 * The pricing section for the stored copy, or the unavailable notice when there is none.
	 *
	 * @return string
	 */
	public static function render() {
		wp_enqueue_style( self::STYLE );
		$document = Contractor_Pricing_Store::document();
		return null === $document ? self::unavailable() : self::pricing( Contractor_Pricing_Content::of( $document ) );
	}

	/**
	 * The block's render callback (it has no attributes).
	 *
	 * @return string
	 */
	public static function render_block() {
		return self::hold( self::render() );
	}

	/**
	 * The shortcode's callback (`[contractor_pricing]`, no attributes).
	 *
	 * @return string
	 */
	public static function render_shortcode() {
		return self::hold( self::render() );
	}

	/**
	 * Inside `the_content`, a placeholder the last content filter swaps back (release()).
	 *
	 * The filters after do_blocks and do_shortcode (wptexturize, convert_smilies, capital_P_dangit)
	 * would otherwise rewrite contractor text: curl its quotes, turn ":)" into an image. Held, the
	 * section reaches the page byte for byte as rendered.
	 *
	 * @param string $html The rendered section.
	 * @return string
	 */
	private static function hold( $html ) {
		if ( ! doing_filter( 'the_content' ) ) {
			return $html;
		}
		if ( '' === self::$nonce ) {
			self::$nonce = wp_generate_password( 16, false );
		}
		$token                = '<!--contractor-pricing:' . self::$nonce . ':' . count( self::$held ) . '-->';
		self::$held[ $token ] = $html;
		return $token;
	}

	/**
	 * The `the_content` filter that runs last: every placeholder becomes its section.
	 *
	 * @param string $content The filtered content.
	 * @return string
	 */
	public static function release( $content ) {
		return self::$held ? strtr( (string) $content, self::$held ) : $content;
	}

	/**
	 * What shows while no copy is stored (not polled yet, or withdrawn by a 404).
	 *
	 * @return string
	 */
	public static function unavailable() {
		return '<div class="contractor-pricing contractor-pricing--unavailable"><p class="contractor-pricing__unavailable">'
			. esc_html( Contractor_Pricing_Content::unavailable() ) . '</p></div>';
	}

	/**
	 * The whole section.
	 *
	 * @param array $content Contractor_Pricing_Content::of().
	 * @return string
	 */
	public static function pricing( array $content ) {
		$labels = $content['labels'];
		$html   = '<div class="contractor-pricing" data-content-version="' . esc_attr( $content['content_version'] ) . '">';
		$html  .= self::headlines( $content );
		$html  .= self::freshness( $content['freshness'] );
		if ( null !== $content['quote_url'] ) {
			$html .= '<p class="contractor-pricing__actions">' . self::quote_button( $content ) . '</p>';
		}
		if ( $content['systems'] ) {
			$html .= '<h2 class="contractor-pricing__section">' . esc_html( $labels['systems'] ) . '</h2>';
			$html .= '<div class="contractor-pricing__grid">';
			foreach ( $content['systems'] as $category ) {
				$html .= self::system( $category, $labels );
			}
			$html .= '</div>';
		}
		if ( $content['accessories'] ) {
			$html .= self::accessories( $content['accessories'], $labels );
		}
		if ( null !== $content['empty'] ) {
			$html .= '<p class="contractor-pricing__empty">' . esc_html( $content['empty'] ) . '</p>';
		}
		if ( null !== $content['price_description'] ) {
			$html .= '<section class="contractor-pricing__panel contractor-pricing__includes"><h2>' . esc_html( $labels['includes'] ) . '</h2>'
				. '<p><bdi class="contractor-pricing__price-description">' . esc_html( $content['price_description'] ) . '</bdi></p></section>';
		}
		if ( null !== $content['quote_url'] ) {
			$html .= self::call_to_action( $content );
		}
		$html .= self::footer( $content );
		return $html . '</div>';
	}

	private static function headlines( array $content ) {
		if ( ! $content['headlines'] ) {
			$name = '<bdi class="contractor-pricing__business-name">' . esc_html( $content['business_name'] ) . '</bdi>';
			return '<p class="contractor-pricing__answer">' . sprintf( esc_html( $content['labels']['none_published'] ), $name ) . '</p>';
		}
		$html = '<div class="contractor-pricing__headlines">';
		foreach ( $content['headlines'] as $headline ) {
			$html .= '<p class="' . esc_attr( 'contractor-pricing__headline contractor-pricing__headline--' . $headline['kind'] ) . '">' . esc_html( $headline['text'] ) . '</p>';
		}
		return $html . '</div>';
	}

	private static function freshness( array $freshness ) {
		$class = 'contractor-pricing__freshness' . ( $freshness['stale'] ? ' contractor-pricing__freshness--stale' : '' );
		$html  = '<p class="' . esc_attr( $class ) . '">' . esc_html( $freshness['before'] );
		if ( null !== $freshness['when'] ) {
			$html .= ' <time datetime="' . esc_attr( $freshness['iso'] ) . '">' . esc_html( $freshness['when'] ) . '</time>' . esc_html( $freshness['after'] );
		}
		return $html . '</p>';
	}

	private static function quote_button( array $content ) {
		return '<a class="contractor-pricing__button contractor-pricing__quote" href="' . esc_url( $content['quote_url'] ) . '">'
			. esc_html( $content['labels']['cta_button'] ) . '</a>';
	}

	private static function category_attributes( array $category, $classes ) {
		return ' class="' . esc_attr( 'contractor-pricing__category ' . $classes ) . '" id="' . esc_attr( 'contractor-pricing-' . $category['slug'] ) . '" data-slug="' . esc_attr( $category['slug'] ) . '"';
	}

	private static function system( array $category, array $labels ) {
		$html  = '<section' . self::category_attributes( $category, 'contractor-pricing__system' ) . '>';
		$html .= '<h3><bdi class="contractor-pricing__category-name">' . esc_html( $category['name'] ) . '</bdi></h3>';
		$html .= '<p class="contractor-pricing__range-label">' . esc_html( $category['range_label'] ) . '</p>';
		$html .= '<p class="contractor-pricing__range">' . esc_html( $category['price_range'] ) . '</p>';
		$html .= '<table class="contractor-pricing__tiers"><thead><tr><th scope="col">' . esc_html( $labels['tier'] ) . '</th>'
			. '<th scope="col" class="contractor-pricing__num">' . esc_html( $labels['starts_at'] ) . '</th></tr></thead><tbody>';
		foreach ( $category['tiers'] as $row ) {
			$html .= self::tier_row( $row, $labels );
		}
		$html .= '</tbody></table>';
		if ( null !== $category['note'] ) {
			$html .= '<p class="contractor-pricing__note">' . esc_html( $category['note'] ) . '</p>';
		}
		return $html . self::all_options( $category ) . '</section>';
	}

	/**
	 * One Good/Better/Best row: the tier, what its starting option is, its sizes or its range; its price.
	 *
	 * @param array $row    Contractor_Pricing_Content::tier_row().
	 * @param array $labels The fixed texts.
	 * @return string
	 */
	private static function tier_row( array $row, array $labels ) {
		$html = '<tr class="contractor-pricing__tier-row" data-tier-row="' . esc_attr( $row['tier'] ) . '"><th scope="row" class="contractor-pricing__tier-cell">'
			. '<span class="' . esc_attr( 'contractor-pricing__tier contractor-pricing__tier--' . $row['tier'] ) . '">' . esc_html( $row['label'] ) . '</span>';
		$what = array();
		if ( null !== $row['brand'] ) {
			$what[] = '<bdi class="contractor-pricing__brand">' . esc_html( $row['brand'] ) . '</bdi>';
		}
		foreach ( $row['facts'] as $fact ) {
			$what[] = '<span class="contractor-pricing__fact">' . esc_html( $fact ) . '</span>';
		}
		if ( null !== $row['name'] ) {
			$what[] = '<bdi class="contractor-pricing__option-name">' . esc_html( $row['name'] ) . '</bdi>';
		}
		if ( $what ) {
			$html .= ' <span class="contractor-pricing__what">' . implode( esc_html( Contractor_Pricing_Content::SEPARATOR ), $what ) . '</span>';
		}
		if ( $row['sizes'] ) {
			$sizes = array();
			foreach ( $row['sizes'] as $choice ) {
				$sizes[] = '<span class="contractor-pricing__size-price"><span class="contractor-pricing__size">' . esc_html( $choice['size'] ) . '</span> ' . esc_html( $choice['price'] ) . '</span>';
			}
			$html .= ' <span class="contractor-pricing__sizes">' . implode( esc_html( Contractor_Pricing_Content::SEPARATOR ), $sizes ) . '</span>';
		}
		if ( null !== $row['span'] ) {
			$html .= ' <span class="contractor-pricing__span">' . esc_html( $row['span'] ) . '</span>';
		}
		$html .= '</th>';
		if ( null === $row['price'] ) {
			$html .= '<td class="contractor-pricing__num contractor-pricing__none">' . esc_html( $labels['not_offered'] ) . '</td>';
		} else {
			$html .= '<td class="contractor-pricing__num contractor-pricing__price" data-tier="' . esc_attr( $row['tier'] ) . '">' . esc_html( $row['price'] ) . '</td>';
		}
		return $html . '</tr>';
	}

	/**
	 * Every published option of a category (each group's lowest-priced, when it has more than the page lists), in a list that opens without JavaScript.
	 *
	 * @param array $category Contractor_Pricing_Content::category().
	 * @return string
	 */
	private static function all_options( array $category ) {
		$html = '<details class="contractor-pricing__all-options"><summary>' . esc_html( $category['options_summary'] ) . '</summary>';
		foreach ( $category['option_groups'] as $group ) {
			if ( null !== $group['title'] ) {
				$html .= '<p class="contractor-pricing__group-title"><span class="' . esc_attr( 'contractor-pricing__tier contractor-pricing__tier--' . ( null === $group['tier'] ? 'other' : $group['tier'] ) ) . '">'
					. esc_html( $group['title'] ) . '</span></p>';
			}
			$html .= '<ul class="contractor-pricing__option-list">';
			foreach ( $group['options'] as $option ) {
				$html .= '<li class="contractor-pricing__option" data-sku="' . esc_attr( $option['sku'] ) . '"><bdi class="contractor-pricing__option-name">' . esc_html( $option['name'] ) . '</bdi>'
					. '<span class="contractor-pricing__option-price">' . esc_html( $option['price'] ) . '</span></li>';
			}
			$html .= '</ul>';
			if ( null !== $group['more'] ) {
				$html .= '<p class="contractor-pricing__more">' . esc_html( $group['more'] ) . '</p>';
			}
		}
		return $html . '</details>';
	}

	private static function accessories( array $accessories, array $labels ) {
		$html = '<h2 class="contractor-pricing__section">' . esc_html( $labels['accessories'] ) . '</h2><div class="contractor-pricing__panel contractor-pricing__accessories">';
		foreach ( $accessories as $category ) {
			$html .= '<section' . self::category_attributes( $category, 'contractor-pricing__accessory' ) . '><div class="contractor-pricing__accessory-head">'
				. '<h3><bdi class="contractor-pricing__category-name">' . esc_html( $category['name'] ) . '</bdi></h3>'
				. '<p class="contractor-pricing__range">' . esc_html( $category['price_range'] ) . '</p></div>'
				. self::all_options( $category ) . '</section>';
		}
		return $html . '</div>';
	}

	private static function call_to_action( array $content ) {
		$labels = $content['labels'];
		$name   = '<bdi>' . esc_html( $content['business_name'] ) . '</bdi>';
		return '<section class="contractor-pricing__panel contractor-pricing__cta"><div><h2>' . esc_html( $labels['cta_title'] ) . '</h2>'
			. '<p>' . sprintf( esc_html( $labels['cta_text'] ), $name ) . '</p></div>' . self::quote_button( $content ) . '</section>';
	}

	private static function footer( array $content ) {
		$html  = '<footer class="contractor-pricing__footer">';
		$html .= '<p class="contractor-pricing__provenance">' . esc_html( $content['provenance'] ) . '</p>';
		$html .= '<p class="contractor-pricing__business"><bdi class="contractor-pricing__business-name">' . esc_html( $content['business_name'] ) . '</bdi>';
		if ( null !== $content['address'] ) {
			$html .= ' · <bdi class="contractor-pricing__address">' . esc_html( $content['address'] ) . '</bdi>';
		}
		$html .= '</p>';
		if ( null !== $content['service_area'] ) {
			$html .= '<p class="contractor-pricing__service-area">' . esc_html( $content['service_area'] ) . '</p>';
		}
		return $html . '</footer>';
	}
}
