<?php
/**
 * The one renderer the block and the shortcode share: the stored pricing document as HTML, no JavaScript.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * Lays out what Contractor_Pricing_Content says. Every value goes through esc_html, esc_attr or
 * esc_url; contractor text (names, the price description) sits in <bdi> so right-to-left text
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
		$html  .= '<p class="contractor-pricing__answer"><bdi>' . esc_html( $content['answer'] ) . '</bdi></p>';
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

	private static function system( array $category, array $labels ) {
		$html  = '<section class="contractor-pricing__category contractor-pricing__system" id="' . esc_attr( 'contractor-pricing-' . $category['slug'] ) . '" data-slug="' . esc_attr( $category['slug'] ) . '">';
		$html .= '<h3><bdi class="contractor-pricing__category-name">' . esc_html( $category['name'] ) . '</bdi></h3>';
		$html .= '<p class="contractor-pricing__range-label">' . esc_html( $category['range_label'] ) . '</p>';
		$html .= '<p class="contractor-pricing__range">' . esc_html( $category['price_range'] ) . '</p>';
		$html .= '<table class="contractor-pricing__tiers"><thead><tr><th scope="col">' . esc_html( $labels['option'] ) . '</th>'
			. '<th scope="col" class="contractor-pricing__num">' . esc_html( $labels['starts_at'] ) . '</th></tr></thead><tbody>';
		foreach ( $category['tiers'] as $row ) {
			$html .= '<tr><th scope="row"><span class="contractor-pricing__tier contractor-pricing__tier--' . esc_attr( $row['tier'] ) . '">' . esc_html( $row['label'] ) . '</span></th>';
			if ( null === $row['price'] ) {
				$html .= '<td class="contractor-pricing__num contractor-pricing__none">' . esc_html( $labels['not_offered'] ) . '</td>';
			} else {
				$html .= '<td class="contractor-pricing__num contractor-pricing__price" data-tier="' . esc_attr( $row['tier'] ) . '">' . esc_html( $row['price'] ) . '</td>';
			}
			$html .= '</tr>';
		}
		$html .= '</tbody></table>';
		if ( null !== $category['note'] ) {
			$html .= '<p class="contractor-pricing__note">' . esc_html( $category['note'] ) . '</p>';
		}
		return $html . '<p class="contractor-pricing__meta">' . esc_html( $category['options'] ) . '</p></section>';
	}

	private static function accessories( array $accessories, array $labels ) {
		$html  = '<h2 class="contractor-pricing__section">' . esc_html( $labels['accessories'] ) . '</h2>';
		$html .= '<div class="contractor-pricing__panel"><table class="contractor-pricing__accessories"><thead><tr><th scope="col">' . esc_html( $labels['item'] ) . '</th>'
			. '<th scope="col" class="contractor-pricing__num">' . esc_html( $labels['price'] ) . '</th></tr></thead><tbody>';
		foreach ( $accessories as $category ) {
			$html .= '<tr class="contractor-pricing__category contractor-pricing__accessory" id="' . esc_attr( 'contractor-pricing-' . $category['slug'] ) . '" data-slug="' . esc_attr( $category['slug'] ) . '">'
				. '<td><bdi class="contractor-pricing__category-name">' . esc_html( $category['name'] ) . '</bdi>'
				. '<span class="contractor-pricing__options">' . esc_html( $category['item_count'] ) . '</span></td>'
				. '<td class="contractor-pricing__num contractor-pricing__range">' . esc_html( $category['price_range'] ) . '</td></tr>';
		}
		return $html . '</tbody></table><p class="contractor-pricing__meta">' . esc_html( $labels['range_note'] ) . '</p></div>';
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
