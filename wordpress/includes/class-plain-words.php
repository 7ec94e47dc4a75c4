<?php
/**
 * The page's plain words: where a glossary term of pricing.json first appears, its one plain line.
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * One per rendered section. The renderer passes it the texts in the order the page shows them
 * (mark()); the first time a term of the document's `glossary` appears, as a whole word, it is wrapped
 * in `<abbr title="its meaning">`, and each later appearance is left as it is. The terms and their
 * meanings are the mirror's (pricing.json's `glossary`): this class knows none of its own.
 *
 * Everything it returns is escaped: the text around the terms with esc_html, the meaning with esc_attr.
 */
final class Contractor_Pricing_Plain_Words {

	/** @var array[] The glossary's entries not yet marked on the page: term, meaning. */
	private $waiting;

	/**
	 * @param array[] $glossary Contractor_Pricing_Content::glossary(): each term, meaning, and whether to mark it.
	 */
	public function __construct( array $glossary ) {
		$this->waiting = array_values(
			array_filter(
				$glossary,
				function ( $entry ) {
					return ! empty( $entry['mark'] );
				}
			)
		);
	}

	/**
	 * A text as HTML: escaped, each glossary term it holds that the page has not marked yet marked here.
	 *
	 * @param string $text Contractor or catalog text, as it is.
	 * @return string
	 */
	public function mark( $text ) {
		$text = (string) $text;
		$html = '';
		while ( $this->waiting ) {
			$found = $this->first_term( $text );
			if ( null === $found ) {
				break;
			}
			list( $at, $index ) = $found;
			$entry              = $this->waiting[ $index ];
			array_splice( $this->waiting, $index, 1 );
			$html .= esc_html( substr( $text, 0, $at ) )
				. '<abbr class="contractor-pricing__term" title="' . esc_attr( $entry['meaning'] ) . '">' . esc_html( $entry['term'] ) . '</abbr>';
			$text  = (string) substr( $text, $at + strlen( $entry['term'] ) );
		}
		return $html . esc_html( $text );
	}

	/**
	 * The waiting term that appears first in `$text` as a whole word (the longer one where two start at
	 * the same place), as its byte offset and its index; null when none does. A whole word as the mirror
	 * matches one (mirror/catalog/glossary.py): no letter right before it, no letter or digit right after it
	 * ("SEER" never inside "SEER2", "AC" never inside "ACC"; "3ton" is a number and its unit).
	 *
	 * @param string $text The text.
	 * @return array|null
	 */
	private function first_term( $text ) {
		$best = null;
		foreach ( $this->waiting as $index => $entry ) {
			$pattern = '/(?<!\p{L})' . preg_quote( $entry['term'], '/' ) . '(?![\p{L}\p{N}])/u';
			if ( ! preg_match( $pattern, $text, $match, PREG_OFFSET_CAPTURE ) ) {
				continue;
			}
			$at = $match[0][1];
			if ( null === $best || $at < $best[0] || ( $at === $best[0] && strlen( $entry['term'] ) > strlen( $this->waiting[ $best[1] ]['term'] ) ) ) {
				$best = array( $at, $index );
			}
		}
		return $best;
	}
}
