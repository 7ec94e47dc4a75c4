/*
 * The block in the editor: the server's own rendering (ServerSideRender), so the editor shows exactly
 * what visitors get. Visitors never load this file: the block is rendered in PHP.
 */
( function ( wp ) {
	var el = wp.element.createElement;
	var blockProps = wp.blockEditor && wp.blockEditor.useBlockProps ? wp.blockEditor.useBlockProps : function () { return {}; };
	wp.blocks.registerBlockType( 'contractor-pricing/pricing', {
		edit: function () {
			return el( 'div', blockProps(), el( wp.serverSideRender, { block: 'contractor-pricing/pricing' } ) );
		},
		save: function () {
			return null;
		}
	} );
} )( window.wp );
