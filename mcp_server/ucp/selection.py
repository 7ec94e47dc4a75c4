"""get_product's interactive variant narrowing (UCP catalog lookup, "Option Selection").

A product's option axes are Tier and Brand (mirror.render.ucp). Given the
requested selections, the effective selections are:

- for a variant id: that variant's own options (requested selections are ignored);
- with selections: the requested ones, relaxed until some variant matches by
  dropping the lowest-priority first (names in `preferences` rank by their
  order there, above names not listed; unknown option names are dropped);
- with none: the featured (cheapest) variant's options.

Option values then carry `exists` (a variant with this value and the other
effective selections exists) and `available` (it exists and can be bought
here: the buyer's postal code is served).
"""

from __future__ import annotations

from dataclasses import dataclass

from mirror.render.ucp import product_options, variant_options
from mirror.store.models import Product


@dataclass(frozen=True)
class Narrowed:
    """The outcome: effective selections, matching variants (featured first), options with signals."""

    selected: list[dict]
    variants: list[Product]
    options: list[dict]


def _options_of(product: Product) -> dict[str, str]:
    return {option["name"]: option["label"] for option in variant_options(product)}


def _matches(product: Product, selections: list[tuple[str, str]]) -> bool:
    options = _options_of(product)
    return all(options.get(name) == label for name, label in selections)


def _canonical(requested: list[tuple[str, str]], axes: list[dict]) -> list[tuple[str, str]]:
    """Requested selections on known axes, with the catalog's spelling; one per option name."""
    canonical: dict[str, tuple[str, str]] = {}
    for name, label in requested:
        axis = next((a for a in axes if a["name"].casefold() == name.casefold()), None)
        if axis is None or axis["name"] in canonical:
            continue
        value = next((v["label"] for v in axis["values"] if v["label"].casefold() == label.casefold()), label)
        canonical[axis["name"]] = (axis["name"], value)
    return list(canonical.values())


def _relax(wanted: list[tuple[str, str]], preferences: list[str], products: list[Product]) -> list[tuple[str, str]]:
    """Drop selections from the lowest priority until a variant matches what is left."""
    folded = [p.casefold() for p in preferences]
    rank = {
        name: folded.index(name.casefold()) if name.casefold() in folded else len(folded) + i
        for i, (name, _) in enumerate(wanted)
    }
    priority = sorted(wanted, key=lambda selection: rank[selection[0]])
    while priority and not any(_matches(p, priority) for p in products):
        priority.pop()
    return [selection for selection in wanted if selection in priority]


def narrow(
    products: list[Product],
    *,
    anchor: Product | None = None,
    requested: list[tuple[str, str]] = (),
    preferences: list[str] = (),
    available: bool = True,
) -> Narrowed:
    """Apply option selection to a product's variants (`products`: cheapest first)."""
    axes = product_options(products)
    if anchor is not None:
        own = _options_of(anchor)
        effective = [(axis["name"], own[axis["name"]]) for axis in axes if axis["name"] in own]
    else:
        wanted = _canonical(list(requested), axes)
        if wanted:
            effective = _relax(wanted, list(preferences), products)
        else:
            featured = _options_of(products[0])
            effective = [(axis["name"], featured[axis["name"]]) for axis in axes if axis["name"] in featured]
    matching = [p for p in products if _matches(p, effective)]
    if anchor is not None:
        matching = [anchor] + [p for p in matching if p.sku != anchor.sku]
    return Narrowed(
        selected=[{"name": name, "label": label} for name, label in effective],
        variants=matching,
        options=_signals(axes, effective, products, available),
    )


def _signals(
    axes: list[dict], effective: list[tuple[str, str]], products: list[Product], available: bool
) -> list[dict]:
    """Each option value with `exists` / `available` relative to the other effective selections."""
    detailed = []
    for axis in axes:
        others = [s for s in effective if s[0] != axis["name"]]
        values = []
        for value in axis["values"]:
            exists = any(_matches(p, [*others, (axis["name"], value["label"])]) for p in products)
            values.append({"label": value["label"], "available": exists and available, "exists": exists})
        detailed.append({"name": axis["name"], "values": values})
    return detailed
