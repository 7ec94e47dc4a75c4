<?php
/**
 * What one request to pricing.json came back with (Contractor_Pricing_Mirror_Client makes it).
 *
 * @package ContractorPricing
 */

defined( 'ABSPATH' ) || exit;

/**
 * What one request to pricing.json came back with.
 */
final class Contractor_Pricing_Fetch {

	/** 200 with a pricing document. */
	const CHANGED = 'changed';
	/** 304: the stored copy is current. */
	const NOT_MODIFIED = 'not_modified';
	/** 404: unknown key, company not public, or its pricing switched off. */
	const NOT_FOUND = 'not_found';
	/** Anything else (timeout, refused, 5xx, 429, not pricing.json): keep what we have. */
	const FAILED = 'failed';

	/** @var string One of the constants above. */
	public $outcome;
	/** @var int|null The HTTP status; null when no answer came. */
	public $status;
	/** @var array|null A 200's document in the form stored (Contractor_Pricing_Document::parse()). */
	public $document;
	/** @var string The response's ETag ('' when none). */
	public $etag = '';
	/** @var int|null The response's Cache-Control max-age, in seconds. */
	public $max_age;
	/** @var string What went wrong, for the admin ('' when nothing did). */
	public $problem = '';

	/**
	 * @param string $outcome One of the outcome constants.
	 */
	public function __construct( $outcome ) {
		$this->outcome = $outcome;
	}
}
