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

	/**
	 * Each picture's box (docs/pricing-page.md, rule 8, as the hosted page draws it): its width and height
	 * attributes, and the same box in the stylesheet (object-fit: cover), so nothing moves when it arrives.
	 */
	const IMAGE_SIZES = array(
		'system'    => array( 96, 72 ),
		'accessory' => array( 64, 48 ),
		'option'    => array( 40, 40 ),
	);

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
		$words  = new Contractor_Pricing_Plain_Words( $content['glossary'] );
		$html   = '<div class="contractor-pricing" data-content-version="' . esc_attr( $content['content_version'] ) . '">';
		$html  .= self::headlines( $content );
		$html  .= self::freshness( $content['freshness'] );
		$html  .= self::actions( $content, 'p', 'contractor-pricing__actions' );
		if ( $content['systems'] ) {
			$html .= '<h2 class="contractor-pricing__section">' . esc_html( $labels['systems'] ) . '</h2>';
			$html .= '<div class="contractor-pricing__grid">';
			foreach ( $content['systems'] as $category ) {
				$html .= self::system( $category, $labels, $words );
			}
			$html .= '</div>';
		}
		if ( $content['accessories'] ) {
			$html .= self::accessories( $content['accessories'], $labels, $words );
		}
		if ( null !== $content['empty'] ) {
			$html .= '<p class="contractor-pricing__empty">' . esc_html( $content['empty'] ) . '</p>';
		}
		$html .= self::glossary( $content['glossary'], $labels );
		if ( null !== $content['price_description'] ) {
			$html .= '<section class="contractor-pricing__panel contractor-pricing__includes"><h2>' . esc_html( $labels['includes'] ) . '</h2>'
				. '<p><bdi class="contractor-pricing__price-description">' . esc_html( $content['price_description'] ) . '</bdi></p></section>';
		}
		if ( null !== $content['quote_url'] || null !== $content['phone'] ) {
			$html .= self::call_to_action( $content );
		}
		$html .= self::footer( $content );
		return $html . '</div>';
	}

	/**
	 * The quote button and, beside it, the phone (each when the document has it), in one element; '' with neither.
	 *
	 * @param array  $content Contractor_Pricing_Content::of().
	 * @param string $tag     The element holding them.
	 * @param string $class   Its class.
	 * @return string
	 */
	private static function actions( array $content, $tag, $class ) {
		$buttons = '';
		if ( null !== $content['quote_url'] ) {
			$buttons .= self::quote_button( $content );
		}
		if ( null !== $content['phone'] ) {
			/* translators: %s: the business's phone number. */
			$call     = sprintf( __( 'Call %s', 'contractor-pricing' ), $content['phone']['display'] );
			$buttons .= ' <a class="contractor-pricing__button contractor-pricing__button--ghost contractor-pricing__call" href="' . esc_url( $content['phone']['tel'], array( 'tel' ) ) . '">'
				. esc_html( $call ) . '</a>';
		}
		return '' === $buttons ? '' : '<' . $tag . ' class="' . esc_attr( $class ) . '">' . $buttons . '</' . $tag . '>';
	}

	/**
	 * A picture of a category or an option: lazy-loaded, its room kept by its width and height, its name as its alt text.
	 *
	 * @param array|null $image Contractor_Pricing_Content::image() (null: no picture, nothing rendered).
	 * @param string     $size  A key of IMAGE_SIZES.
	 * @return string
	 */
	private static function image( $image, $size ) {
		if ( null === $image ) {
			return '';
		}
		list( $width, $height ) = self::IMAGE_SIZES[ $size ];
		return '<img class="' . esc_attr( 'contractor-pricing__image contractor-pricing__image--' . $size ) . '" src="' . esc_url( $image['url'], array( 'http', 'https' ) ) . '"'
			. ' alt="' . esc_attr( $image['alt'] ) . '" width="' . (int) $width . '" height="' . (int) $height . '" loading="lazy" decoding="async">';
	}

	/**
	 * The plain words of the page, each with its one line, in a list that opens without JavaScript; '' without a glossary.
	 *
	 * @param array[] $glossary Contractor_Pricing_Content::glossary().
	 * @param array   $labels   The fixed texts.
	 * @return string
	 */
	private static function glossary( array $glossary, array $labels ) {
		if ( ! $glossary ) {
			return '';
		}
		// The summary names the terms, so a reader who cannot hover (a phone) knows what the list explains.
		$terms = implode( ', ', array_unique( array_column( $glossary, 'term' ) ) );
		$html  = '<details class="contractor-pricing__panel contractor-pricing__glossary"><summary>' . esc_html( $labels['glossary'] )
			. '<span class="contractor-pricing__glossary-terms">' . esc_html( $terms ) . '</span></summary><dl>';
		foreach ( $glossary as $entry ) {
			$html .= '<div><dt>' . esc_html( $entry['term'] ) . '</dt><dd>' . esc_html( $entry['meaning'] ) . '</dd></div>';
		}
		return $html . '</dl></details>';
	}

	/**
	 * A category's picture (when it has one) beside its name as the contractor wrote it (its plain words
	 * marked), and beneath the name, when it abbreviates its kind, the kind's plain name.
	 *
	 * @param array                          $category Contractor_Pricing_Content::category().
	 * @param string                         $size     A key of IMAGE_SIZES.
	 * @param Contractor_Pricing_Plain_Words $words    The page's plain words.
	 * @return string
	 */
	private static function category_heading( array $category, $size, Contractor_Pricing_Plain_Words $words ) {
		$html = '<div class="contractor-pricing__category-head">' . self::image( $category['image'], $size ) . '<div class="contractor-pricing__category-title">'
			. '<h3><bdi class="contractor-pricing__category-name">' . $words->mark( $category['name'] ) . '</bdi></h3>';
		if ( null !== $category['plain_name'] ) {
			$html .= '<p class="contractor-pricing__plain-name"><bdi>' . esc_html( $category['plain_name'] ) . '</bdi></p>';
		}
		return $html . '</div></div>';
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

	private static function system( array $category, array $labels, Contractor_Pricing_Plain_Words $words ) {
		$html  = '<section' . self::category_attributes( $category, 'contractor-pricing__system' ) . '>';
		$html .= self::category_heading( $category, 'system', $words );
		$html .= '<p class="contractor-pricing__range-label">' . esc_html( $category['range_label'] ) . '</p>';
		$html .= '<p class="contractor-pricing__range">' . esc_html( $category['price_range'] ) . '</p>';
		$html .= '<table class="contractor-pricing__tiers"><thead><tr><th scope="col">' . esc_html( $labels['tier'] ) . '</th>'
			. '<th scope="col" class="contractor-pricing__num">' . esc_html( $labels['starts_at'] ) . '</th></tr></thead><tbody>';
		foreach ( $category['tiers'] as $row ) {
			$html .= self::tier_row( $row, $labels, $words );
		}
		$html .= '</tbody></table>';
		if ( null !== $category['note'] ) {
			$html .= '<p class="contractor-pricing__note">' . esc_html( $category['note'] ) . '</p>';
		}
		return $html . self::all_options( $category, $words ) . '</section>';
	}

	/**
	 * One Good/Better/Best row: the tier, what its starting option is, its sizes or its range; its price.
	 *
	 * @param array                          $row    Contractor_Pricing_Content::tier_row().
	 * @param array                          $labels The fixed texts.
	 * @param Contractor_Pricing_Plain_Words $words  The page's plain words.
	 * @return string
	 */
	private static function tier_row( array $row, array $labels, Contractor_Pricing_Plain_Words $words ) {
		$html = '<tr class="contractor-pricing__tier-row" data-tier-row="' . esc_attr( $row['tier'] ) . '"><th scope="row" class="contractor-pricing__tier-cell">'
			. '<span class="' . esc_attr( 'contractor-pricing__tier contractor-pricing__tier--' . $row['tier'] ) . '">' . esc_html( $row['label'] ) . '</span>';
		$what = array();
		if ( null !== $row['brand'] ) {
			$what[] = '<bdi class="contractor-pricing__brand">' . esc_html( $row['brand'] ) . '</bdi>';
		}
		foreach ( $row['facts'] as $fact ) {
			$what[] = '<span class="contractor-pricing__fact">' . $words->mark( $fact ) . '</span>';
		}
		if ( null !== $row['name'] ) {
			$what[] = '<bdi class="contractor-pricing__option-name">' . $words->mark( $row['name'] ) . '</bdi>';
		}
		if ( $what ) {
			$html .= ' <span class="contractor-pricing__what">' . implode( esc_html( Contractor_Pricing_Content::SEPARATOR ), $what ) . '</span>';
		}
		if ( $row['sizes'] ) {
			$sizes = array();
			foreach ( $row['sizes'] as $choice ) {
				$sizes[] = '<span class="contractor-pricing__size-price"><span class="contractor-pricing__size">' . $words->mark( $choice['size'] ) . '</span> ' . esc_html( $choice['price'] ) . '</span>';
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
	 * @param array                          $category Contractor_Pricing_Content::category().
	 * @param Contractor_Pricing_Plain_Words $words    The page's plain words.
	 * @return string
	 */
	private static function all_options( array $category, Contractor_Pricing_Plain_Words $words ) {
		$html = '<details class="contractor-pricing__all-options"><summary>' . esc_html( $category['options_summary'] ) . '</summary>';
		foreach ( $category['option_groups'] as $group ) {
			if ( null !== $group['title'] ) {
				$html .= '<p class="contractor-pricing__group-title"><span class="' . esc_attr( 'contractor-pricing__tier contractor-pricing__tier--' . ( null === $group['tier'] ? 'other' : $group['tier'] ) ) . '">'
					. esc_html( $group['title'] ) . '</span></p>';
			}
			$html .= '<ul class="contractor-pricing__option-list">';
			foreach ( $group['options'] as $option ) {
				$html .= '<li class="contractor-pricing__option" data-sku="' . esc_attr( $option['sku'] ) . '"><span class="contractor-pricing__option-main">' . self::image( $option['image'], 'option' )
					. '<bdi class="contractor-pricing__option-name">' . $words->mark( $option['name'] ) . '</bdi></span>'
					. '<span class="contractor-pricing__option-price">' . esc_html( $option['price'] ) . '</span></li>';
			}
			$html .= '</ul>';
			if ( null !== $group['more'] ) {
				$html .= '<p class="contractor-pricing__more">' . esc_html( $group['more'] ) . '</p>';
			}
		}
		return $html . '</details>';
	}

	private static function accessories( array $accessories, array $labels, Contractor_Pricing_Plain_Words $words ) {
		$html = '<h2 class="contractor-pricing__section">' . esc_html( $labels['accessories'] ) . '</h2><div class="contractor-pricing__panel contractor-pricing__accessories">';
		foreach ( $accessories as $category ) {
			$html .= '<section' . self::category_attributes( $category, 'contractor-pricing__accessory' ) . '><div class="contractor-pricing__accessory-head">'
				. self::category_heading( $category, 'accessory', $words )
				. '<p class="contractor-pricing__range">' . esc_html( $category['price_range'] ) . '</p></div>'
				. self::all_options( $category, $words ) . '</section>';
		}
		return $html . '</div>';
	}

	private static function call_to_action( array $content ) {
		$labels = $content['labels'];
		$name   = '<bdi>' . esc_html( $content['business_name'] ) . '</bdi>';
		$text   = null === $content['quote_url'] ? $labels['cta_call_text'] : $labels['cta_text'];
		return '<section class="contractor-pricing__panel contractor-pricing__cta"><div><h2>' . esc_html( $labels['cta_title'] ) . '</h2>'
			. '<p>' . sprintf( esc_html( $text ), $name ) . '</p></div>' . self::actions( $content, 'div', 'contractor-pricing__cta-actions' ) . '</section>';
	}

	private static function footer( array $content ) {
		$html  = '<footer class="contractor-pricing__footer">';
		$html .= '<p class="contractor-pricing__provenance">' . esc_html( $content['provenance'] ) . '</p>';
		$html .= '<p class="contractor-pricing__business"><bdi class="contractor-pricing__business-name">' . esc_html( $content['business_name'] ) . '</bdi>';
		if ( null !== $content['address'] ) {
			$html .= ' · <bdi class="contractor-pricing__address">' . esc_html( $content['address'] ) . '</bdi>';
		}
		if ( null !== $content['phone'] ) {
			$html .= ' · <a class="contractor-pricing__phone" href="' . esc_url( $content['phone']['tel'], array( 'tel' ) ) . '">' . esc_html( $content['phone']['display'] ) . '</a>';
		}
		$html .= '</p>';
		if ( null !== $content['service_area'] ) {
			$html .= '<p class="contractor-pricing__service-area">' . esc_html( $content['service_area'] ) . '</p>';
		}
		return $html . '</footer>';
	}
}
