"""Query understanding: one step every search surface goes through (docs/search.md).

    from mirror.query import understand
    understood = understand("cheapest 3 ton heatpump")
    understood.concepts[0].slug, understood.sizes[0].label, understood.price.order
    # ('heat-pump', '3 ton (36,000 BTU/h)', 'price_low')

- `text`: the tokenizer and the spelling distances;
- `concepts`: what the vocabulary implies (the phrase table, the concept
  tree, how a catalog names a concept);
- `spelling`: corrections and splits against the vocabulary and a catalog's
  words (a `Lexicon`);
- `understand`: the step itself (`understand`, `UnderstoodQuery`);
- `ranking`: what a question asks to rank by beside price and tier
  (efficiency, features, each kind named: `RankIntent`), the rating each
  kind is judged by, and the features a catalog states (read by the sync);
- `views`: the published shape of what was understood (`UnderstoodView`; a
  search that found nothing is answered by mirror/answers/no_match.py).

The trade vocabulary it reads (concepts, trades, kinds, price, tier, coverage
and filler words) and the units of sizes and ratings are data of the catalog
(mirror/catalog/vocabulary.py, mirror/catalog/units.py). This package reads no
database: the catalog's words come in through a
`Lexicon` (mirror/read/words.py), and the searches that use the understood
query live in the read layer (mirror/read/catalog.py, mirror/read/businesses.py).
"""

from mirror.catalog.units import Size
from mirror.query.spelling import Lexicon, LexiconAnswer
from mirror.query.understand import Correction, PriceIntent, Recognised, UnderstoodQuery, understand

__all__ = [
    "Correction",
    "Lexicon",
    "LexiconAnswer",
    "PriceIntent",
    "Recognised",
    "Size",
    "UnderstoodQuery",
    "understand",
]
