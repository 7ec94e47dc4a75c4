"""The judge: grades a search's ranking by the ground truth only, and sums the grades into the benchmark's figures.

A query's `want` (queries.py) says what the person asked in true facts,
never in catalog words:

- `kinds`: {kind: grade}; 3 what was meant, 2 a close substitute, 1 related;
  a product of any other kind grades 0 and, listed in the first five, is a
  false match;
- `size`: {attribute: value} (tons, btu, gallons, merv, filter_size); the
  exact size keeps the grade, the nearest size the catalog has (when it has
  not the one asked) loses 1, any other size loses 2;
- `tier`, `brand`, `fuel`, `feature`, `min` ({rating: lowest}): each missed
  loses 1;
- `order`: ("price", "asc") or (rating, "desc"): among the products graded
  highest, the first in true order keeps its grade, the next value loses 1,
  the rest lose 2; lower-graded products lose 1 (a substitute is only related
  to a "cheapest X" question);
- `each`: the kinds are asked each for itself ("furnace and heat pump"): in
  the first five, a kind counts for at most ceil(5 / kinds) products, so a
  list of one kind only cannot score 1.

Grades never fall below 1 for a product of a wanted kind. A query is
answerable at a catalog when some product grades 2 or more. Figures
(`Figures`): nDCG@5 (gain 2^grade - 1, the ideal order of the catalog's own
products, under the same per-kind cap), MRR (1/rank of the first product
graded as high as the best available, 0 past the tenth), zero results (an
answerable query with no result), false matches (of the queries answered
with any result, those whose first five hold a product of a kind not asked
for; for an unanswerable query, any result: so a search that answers
nothing makes no false match, and the zero-result rate shows it).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from bench.relevance.ground_truth import Truth

K = 5
ANSWERABLE = 2


def _size_penalty(want: dict, truth: Truth, catalog: list[Truth]) -> int:
    """0 for the size asked; 1 for the nearest size the catalog's wanted kind has, when it lacks the one asked; else 2."""
    ((attribute, value),) = want["size"].items()
    have = getattr(truth, attribute)
    if have == value:
        return 0
    offered = {getattr(t, attribute) for t in catalog if want["kinds"].get(t.kind, 0) == 3} - {None}
    if have is not None and value not in offered and offered and not isinstance(value, str):
        # the nearest real size; between two as near, the larger (a 5-ton question is better served by 4 than 3)
        nearest = min(offered, key=lambda size: (abs(size - value), -size))
        if have == nearest:
            return 1
    return 2


def _misses(want: dict, truth: Truth) -> int:
    """How many of the asked tier, brand, fuel, feature and lowest ratings the product misses."""
    missed = 0
    missed += "tier" in want and truth.tier != want["tier"]
    missed += "brand" in want and truth.brand.lower() != want["brand"].lower()
    missed += "fuel" in want and truth.fuel != want["fuel"]
    missed += "feature" in want and want["feature"] not in truth.features
    for rating, lowest in want.get("min", {}).items():
        missed += truth.ratings.get(rating, -1) < lowest
    return missed


def _order_key(order: tuple, truth: Truth) -> float | None:
    key, direction = order
    value = truth.price if key == "price" else truth.ratings.get(key)
    if value is None:
        return None
    return value if direction == "asc" else -value


def grades(want: dict, catalog: list[Truth]) -> dict[str, int]:
    """Each product's grade (0-3) for one query at one catalog (the products of one company)."""
    graded = {}
    for truth in catalog:
        base = want["kinds"].get(truth.kind, 0)
        if base == 0:
            graded[truth.sku] = 0
            continue
        loss = _misses(want, truth) + (_size_penalty(want, truth, catalog) if "size" in want else 0)
        graded[truth.sku] = max(1, base - loss)
    if "order" in want:
        graded = _by_order(want["order"], catalog, graded)
    return graded


def _by_order(order: tuple, catalog: list[Truth], graded: dict[str, int]) -> dict[str, int]:
    top = max(graded.values(), default=0)
    if top == 0:
        return graded
    leaders = [t for t in catalog if graded[t.sku] == top and _order_key(order, t) is not None]
    values = sorted({_order_key(order, t) for t in leaders})
    ordered = dict(graded)
    for truth in catalog:
        if graded[truth.sku] == 0:
            continue
        if truth in leaders:
            ordered[truth.sku] = max(1, top - min(2, values.index(_order_key(order, truth))))
        else:
            ordered[truth.sku] = max(1, graded[truth.sku] - 1)
    return ordered


def _capped_gains(ranked: list[str], graded: dict[str, int], want: dict, kind_of: dict[str, str]) -> list[int]:
    """The grades of the first K results, a kind's surplus zeroed when the query asks each kind for itself."""
    if not want.get("each"):
        return [graded.get(sku, 0) for sku in ranked[:K]]
    cap = math.ceil(K / len(want["each"]))
    seen: dict[str, int] = {}
    gains = []
    for sku in ranked[:K]:
        kind = kind_of.get(sku)
        seen[kind] = seen.get(kind, 0) + 1
        gains.append(graded.get(sku, 0) if seen[kind] <= cap else 0)
    return gains


def _dcg(gains: list[int]) -> float:
    return sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(gains[:K]))


def ndcg(ranked: list[str], graded: dict[str, int], want: dict, kind_of: dict[str, str]) -> float:
    """nDCG@5 of a ranking against the ideal order of the same catalog's products."""
    ideal_order = sorted(graded, key=lambda sku: -graded[sku])
    if want.get("each"):  # the ideal answers each kind: its best products, round robin over the kinds
        queues = [[s for s in ideal_order if kind_of[s] == kind and graded[s]] for kind in want["each"]]
        ideal_order = [q[i] for i in range(K) for q in queues if i < len(q)]
    ideal = _dcg(_capped_gains(ideal_order, graded, want, kind_of))
    return _dcg(_capped_gains(ranked, graded, want, kind_of)) / ideal if ideal else 0.0


def reciprocal_rank(ranked: list[str], graded: dict[str, int]) -> float:
    """1/rank of the first result graded as high as the catalog's best product (0 when none is listed)."""
    best = max(graded.values(), default=0)
    return next((1 / (i + 1) for i, sku in enumerate(ranked) if graded.get(sku, 0) == best), 0.0)


def false_match(ranked: list[str], want: dict, kind_of: dict[str, str]) -> bool:
    """A product of a kind the query does not want among the first five (an unknown SKU counts as wrong)."""
    return any(want["kinds"].get(kind_of.get(sku), 0) == 0 for sku in ranked[:K])


@dataclass
class Outcome:
    """One (query wording, catalog) pair, judged."""

    query: str
    style: str
    held_out: bool
    answerable: bool
    ndcg: float | None
    rr: float | None
    zero: bool
    false_match: bool
    shown: int  # how many results came back (at most the search's limit)
    first: str | None  # the name of what came first, as the catalog wrote it


def judge(
    query: str, style: str, held_out: bool, want: dict, ranked: list[str], first: str | None, catalog: list[Truth]
) -> Outcome:
    """Grade one ranking (SKUs, best first) of one query at one catalog."""
    graded = grades(want, catalog)
    kind_of = {t.sku: t.kind for t in catalog}
    answerable = max(graded.values(), default=0) >= ANSWERABLE
    return Outcome(
        query=query,
        style=style,
        held_out=held_out,
        answerable=answerable,
        ndcg=ndcg(ranked, graded, want, kind_of) if answerable else None,
        rr=reciprocal_rank(ranked, graded) if answerable else None,
        zero=answerable and not ranked,
        false_match=false_match(ranked, want, kind_of),
        shown=len(ranked),
        first=first,
    )


@dataclass
class Figures:
    """The figures of a set of outcomes."""

    outcomes: list[Outcome] = field(default_factory=list)

    def summary(self) -> dict:
        answered = [o for o in self.outcomes if o.answerable]
        shown = [o for o in self.outcomes if o.shown]
        return {
            "queries": len(self.outcomes),
            "answerable": len(answered),
            "ndcg5": round(statistics.fmean(o.ndcg for o in answered), 3) if answered else None,
            "mrr": round(statistics.fmean(o.rr for o in answered), 3) if answered else None,
            "zero_results": round(sum(o.zero for o in answered) / len(answered), 4) if answered else None,
            "false_matches": round(sum(o.false_match for o in shown) / len(shown), 4) if shown else None,
        }

    def worst(self, count: int = 10) -> list[Outcome]:
        """The answerable outcomes with the lowest nDCG@5 (then the false matches), worst first."""
        return sorted(self.outcomes, key=lambda o: (o.ndcg if o.ndcg is not None else 1.0, not o.false_match, o.query))[
            :count
        ]
