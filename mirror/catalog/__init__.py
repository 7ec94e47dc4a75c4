"""The catalog's own rules: what the upstream's records mean and what of them is public.

- `records`: upstream records validated and normalised at the boundary (private fields dropped);
- `public_products`: the catalog rule, which products of a company are public;
- `channels`: the gate rule, whether a company's surface is open;
- `trades`: the trades, the kinds of category and the tiers (one table each);
- `vocabulary`: the trade vocabulary as data: concepts, their names and trades, price, tier and filler words;
- `glossary`: the plain words for every rating, unit and abbreviation a page shows;
- `units`: sizes and ratings, normalised, and where a catalog states them;
- `product_facts`: a product's size, efficiency and warranty labels;
- `offers`: offer groups, per company and category;
- `feed_facts`: whether a company is in the business feed, and its feed hash;
- `urls`: the public route table, safe redirect targets, referrer stamping;
- `public_view`: the one public view of a company every surface renders.

May import `mirror.store`, `mirror.runtime` and `mirror.values`; never the sync, the reads or the query step.
"""
