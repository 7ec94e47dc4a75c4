"""Every answer sentence, written once: what each form says, and how sizes and contractor text are shown.

The functions take facts already read (names, cents, tiers, URLs) and return
text; they read nothing. Contractor text (a price note, a product's name or
description) is always quoted (“…”), cut to a readable length, and never
part of the sentence's own grammar: it is data to report. A business's name
is shown as it is published; money as mirror/values/money.py writes it everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from mirror.answers.products import LARGEST, SMALLEST, Substitute
from mirror.catalog.glossary import plain_name
from mirror.catalog.trades import TIERS_BY_SLUG, in_sentence
from mirror.catalog.units import BTU_PER_TON, CAPACITY, QUANTITIES, Size
from mirror.query.ranking import FEATURES_BY_SLUG
from mirror.query.understand import UnderstoodQuery
from mirror.values.money import format_cents
from mirror.values.storable import cut_at_word

QUOTE_CHARS = 240  # contractor text quoted in an answer is cut here, at a word boundary
SHOWN_POSTAL_CODES = 10  # a coverage answer lists at most this many of the ZIPs served
_SPACE = re.compile(r"\s+")


# --- pieces -----------------------------------------------------------------------


def price_range(low_cents: int, high_cents: int, currency: str) -> str:
    """$8,500 to $15,200, or one amount when both ends are the same."""
    low, high = format_cents(low_cents, currency), format_cents(high_cents, currency)
    return low if low_cents == high_cents else f"{low} to {high}"


def quoted(text: str, limit: int = QUOTE_CHARS) -> str:
    """Contractor text as a quotation: whitespace collapsed, cut at a word boundary, in curly quotes."""
    return f"“{cut_at_word(_SPACE.sub(' ', text).strip(), limit)}”"


def sentence_end(quotation: str) -> str:
    """A quotation closing a sentence: no second full stop after one inside the quotes."""
    return quotation if quotation[-2:-1] in (".", "!", "?") else quotation + "."


def article(phrase: str) -> str:
    """`a` or `an` before a noun phrase (by its first letter: "an air filter", "a 3-ton heat pump")."""
    return "an" if phrase[:1].lower() in "aeio" else "a"


def listing(items: Sequence[str], conjunction: str = "and") -> str:
    """A, B and C."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


def quoted_category(name: str) -> str:
    """A contractor's category name as written, quoted, with its plain words when it abbreviates what it is (the
    glossary the pages and the plugin read, mirror/catalog/glossary.py): “HP & Air Handler” (heat pump and air
    handler)."""
    plain = plain_name(name)
    return f"{quoted(name, 80)} ({plain[:1].lower()}{plain[1:]})" if plain else quoted(name, 80)


def named(names: Iterable[str]) -> str:
    """Contractor-written names (categories) in a list, each quoted (`quoted_category`): “A/C & Gas Furnace” (air
    conditioner and gas furnace), “Air Filters”."""
    return ", ".join(quoted_category(name) for name in names)


def possessive(name: str) -> str:
    """Tudi Mechanical Systems' / Prairie Heating & Cooling's."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def size_label(size: Size) -> str:
    """How an answer names a size: 3-ton, 2.5-ton, 24,000 BTU/h, MERV 13, 16x25x1, 50 gal."""
    if size.quantity == CAPACITY:
        tons = size.value / BTU_PER_TON
        if tons > 0 and (tons * 2) == (tons * 2).to_integral_value():
            return f"{format(tons.normalize(), 'f')}-ton"
    return size.label


def tier_title(tier: str) -> str:
    """Good, Better or Best."""
    return TIERS_BY_SLUG[tier].title


def quote_clause(quote_url: str | None) -> str:
    """Where to ask for a quote (nothing when quoting is switched off)."""
    return f" Quote: {quote_url}" if quote_url else ""


def not_understood(unrecognised: Iterable[str], unmatched: Iterable[str] = ()) -> str:
    """What the answer did not use: words nobody knows, and words no product here matched."""
    unknown = list(dict.fromkeys(unrecognised))
    missing = [word for word in dict.fromkeys(unmatched) if word not in unknown]
    parts = []
    if unknown:
        parts.append(f"Not understood: {', '.join(quoted(w, 40) for w in unknown)}.")
    if missing:
        parts.append(f"No product here matches {listing([quoted(w, 40) for w in missing], 'or')}.")
    return (" " + " ".join(parts)) if parts else ""


def price_note(business_name: str, price_description: str | None) -> str:
    """The contractor's own words on what its prices cover, quoted."""
    if not price_description:
        return ""
    return f" {possessive(business_name)} price note: {sentence_end(quoted(price_description))}"


# --- one contractor ----------------------------------------------------------------


def tier_prices(tiers: Sequence[tuple[str, int]], currency: str) -> str:
    """$9,400 (Good), $11,350 (Better), $15,200 (Best)."""
    return ", ".join(f"{format_cents(cents, currency)} ({tier_title(tier)})" for tier, cents in tiers)


def price_sentence(
    business_name: str,
    subject: str,
    category_name: str,
    tiers: Sequence[tuple[str, int]],
    span: tuple[int, int, int],
    currency: str,
) -> str:
    """A price answer: the tier prices of a system, or the price range of an accessory's products.

    `subject` is what was asked ("3-ton heat pump"), `tiers` the lowest price
    of each tier that has one, `span` (lowest, highest, how many products).
    """
    owner = possessive(business_name)
    about = f"{article(subject)} {subject} ({quoted(category_name, 80)})" if subject else quoted_category(category_name)
    if tiers:
        return f"{owner} installed price for {about} starts at {tier_prices(tiers, currency)}."
    low, high, count = span
    products = "1 product" if count == 1 else f"{count} products"
    return f"{owner} price for {about}: {price_range(low, high, currency)} ({products})."


def company_lists_no(business_name: str) -> Callable[[str], str]:
    """How one contractor's answer says it lists no such thing: "Tudi Mechanical Systems lists no 5-ton ..."."""
    return lambda thing: f"{business_name} lists no {thing}"


def directory_lists_no(postal_code: str | None) -> Callable[[str], str]:
    """How the directory's answer says no business lists such a thing near a ZIP."""
    where = f" serving {postal_code}" if postal_code else ""
    return lambda thing: f"No business{where} lists {article(thing)} {thing}"


def absences(
    lists_no: Callable[[str], str],
    subject: str,
    *,
    kinds: Sequence[str] = (),
    brands: Sequence[str] = (),
    substitutes: Sequence[Substitute] = (),
    tiers: Sequence[str] = (),
    features: Sequence[str] = (),
) -> str:
    """What was asked and is not offered, each said absent, with what the answer gives in its place under that
    one's own label; "" when everything asked is offered. Each sentence ends with a space.

    `subject` names what was asked without its size ("air conditioner"); `kinds` are labels of kinds asked
    that none is, `brands` brand keywords as typed, `tiers` tier slugs, `features` mirror/query/ranking.py
    slugs.
    """
    thing = subject or "product"
    parts = [f"{lists_no(kind)}." for kind in kinds]
    parts += [f"{lists_no(f'{quoted(brand, 40)} {thing}')}." for brand in brands]
    for substitute in substitutes:
        asked = f"{size_label(substitute.asked)} {thing}"
        rating = QUANTITIES[substitute.asked.quantity].rating
        if substitute.offered is None:
            noun = "rating" if rating else "size"
            parts.append(f"{lists_no(asked)}: none states its {noun}, so these are the prices of every {noun} listed.")
            continue
        relation = substitute.relation
        if rating:
            relation = {LARGEST: "highest", SMALLEST: "lowest"}.get(relation, relation)
        parts.append(f"{lists_no(asked)}; the {relation} is {size_label(substitute.offered)}.")
    parts += [f"{lists_no(f'{tier_title(tier)}-tier {thing}')}." for tier in tiers]
    parts += [f"{lists_no(f'{FEATURES_BY_SLUG[feature].label} {thing}')}." for feature in features]
    return "".join(f"{part} " for part in parts)


def comparison_sentence(
    business_name: str,
    category_name: str,
    rows: Sequence[tuple[str, int | None, str | None]],
    currency: str,
) -> str:
    """Tiers side by side: each tier's lowest price and its product, then the difference between the ends."""
    parts = []
    for tier, cents, product in rows:
        if cents is None:
            parts.append(f"{tier_title(tier)}: none listed")
        else:
            parts.append(f"{tier_title(tier)} from {format_cents(cents, currency)} ({quoted(product or '', 120)})")
    priced = [(tier, cents) for tier, cents, _ in rows if cents is not None]
    sentence = f"{possessive(business_name)} {quoted_category(category_name)} tiers: {'; '.join(parts)}."
    if len(priced) >= 2:
        (low_tier, low), (high_tier, high) = priced[0], priced[-1]
        sentence += (
            f" {tier_title(high_tier)} costs {format_cents(abs(high - low), currency)} "
            f"{'more' if high >= low else 'less'} than {tier_title(low_tier)}."
        )
    return sentence


def no_tiers_sentence(business_name: str, category_name: str, span: tuple[int, int, int], currency: str) -> str:
    """A comparison asked of an accessory category, which has no tiers."""
    low, high, count = span
    return (
        f"{possessive(business_name)} {quoted_category(category_name)} has no Good/Better/Best tiers: "
        f"{count} product(s) from {price_range(low, high, currency)}."
    )


def included_sentence(
    business_name: str, price_description: str | None, listing_text: tuple[str, str, str | None] | None
) -> str:
    """What the prices include, in the contractor's own words: its price note, and a matching product's description.

    `listing_text` is (category name, product name, description) of the product the question named, if any.
    """
    parts = []
    if price_description:
        parts.append(f"{business_name} says its prices include: {sentence_end(quoted(price_description))}")
    if listing_text is not None:
        category, product, description = listing_text
        if description:
            parts.append(
                f"Its {quoted(category, 80)} listing {quoted(product, 120)} reads: {sentence_end(quoted(description))}"
            )
    if not parts:
        return f"{business_name} publishes no note on what its prices include; ask when you request a quote."
    return " ".join(parts)


def coverage_sentence(business_name: str, postal_code: str, served: bool, postal_codes: Sequence[str]) -> str:
    """Whether a ZIP is served; when not, the ZIPs that are."""
    if served:
        return f"Yes: {business_name} serves {postal_code}."
    if not postal_codes:
        return f"No: {business_name} lists no service area."
    shown = list(postal_codes[:SHOWN_POSTAL_CODES])
    more = len(postal_codes) - len(shown)
    tail = f" and {more} more" if more > 0 else ""
    return f"No: {business_name} does not list {postal_code} in its service area; it serves {', '.join(shown)}{tail}."


def coverage_note(business_name: str, postal_code: str, served: bool) -> str:
    """A ZIP named beside a product question: one clause on coverage."""
    if served:
        return f" {business_name} serves {postal_code}."
    return f" Note: {business_name} does not list {postal_code} in its service area."


def nothing_asked(business_name: str, category_names: Sequence[str]) -> str:
    """A question naming nothing to look for ("hello?")."""
    carried = f" It publishes prices for: {named(category_names)}." if category_names else ""
    return f"Ask {business_name} about a kind of system, a size, a tier, a price or a ZIP code.{carried}"


def no_match_message(understood: UnderstoodQuery, business_name: str, category_names: Sequence[str]) -> str:
    """A search that found nothing: what was asked, what was not understood, and what the contractor does carry.

    Also the search's own `no_match.message` (mirror/query/views.py) and UCP's no_match note.
    """
    labels = [r.label for r in understood.concepts]
    labels += [in_sentence(t) for t in understood.trades]
    if labels:
        parts = [f"{business_name} publishes no {listing(list(dict.fromkeys(labels)), 'or')} prices."]
    else:
        parts = [f"{business_name} publishes nothing matching {quoted(understood.text, 80)}."]
    if understood.unrecognised:
        parts.append(f"Not understood: {', '.join(quoted(w, 40) for w in understood.unrecognised)}.")
    if category_names:
        parts.append(f"It publishes prices for: {named(category_names)}.")
    else:
        parts.append("It publishes no prices yet.")
    return " ".join(parts)


# --- across the directory ----------------------------------------------------------


def directory_price_sentence(
    subject: str,
    postal_code: str,
    spread: tuple[int, int, int],
    businesses: Sequence[tuple[str, int, int, str]],
    currency: str,
) -> str:
    """The published installed price range across the businesses serving a ZIP, each business's own beside it.

    `spread` is (lowest, highest, how many businesses); `businesses` the
    ones shown: (name, lowest, highest, quote URL). Never an average.
    """
    low, high, count = spread
    who = "1 business" if count == 1 else f"{count} businesses"
    each = "; ".join(
        f"{name}: {price_range(b_low, b_high, currency)}, quote: {url}" for name, b_low, b_high, url in businesses
    )
    more = f"; and {count - len(businesses)} more" if count > len(businesses) else ""
    return (
        f"Published installed prices for {article(subject)} {subject} near {postal_code}: {price_range(low, high, currency)} "
        f"across {who}. {each}{more}"  # no full stop after the last quote link: it is no part of the URL
    )


def directory_none_sentence(subject: str, postal_code: str | None) -> str:
    """No business of the feed publishes a price for what was asked there."""
    where = f" serving {postal_code}" if postal_code else ""
    return f"No business{where} publishes an installed price for {article(subject)} {subject}."


def directory_needs_zip(subject: str) -> str:
    """A price question without a ZIP: prices are compared among the businesses that serve one."""
    return f"Which ZIP code? Installed prices for {article(subject)} {subject} are compared among the businesses that serve it."


def directory_list_sentence(postal_code: str | None, names: Sequence[str], total: int) -> str:
    """The businesses found (no price asked)."""
    where = f" serving {postal_code}" if postal_code else ""
    if total == 0:
        return f"No business{where} matched; try fewer words or another ZIP code."
    shown = listing(list(names))
    more = f" and {total - len(names)} more" if total > len(names) else ""
    return f"{total} business(es){where} matched: {shown}{more}."


def category_spread_sentence(
    category: str,
    postal_code: str | None,
    spread: tuple[int, int, int] | None,
    currency: str | None,
    *,
    kind: bool = False,
) -> str:
    """search_businesses with a category: the published range across the businesses found (each is in the results).

    `kind`: `category` is the label of a kind of product ("a heat pump"), not a category's own name (quoted).
    """
    where = f" serving {postal_code}" if postal_code else ""
    named = f"{article(category)} {category}" if kind else quoted(category, 80)
    if spread is None:
        return f"No business{where} publishes prices for {named}."
    low, high, count = spread
    who = "1 business" if count == 1 else f"{count} businesses"
    if currency is None:
        return f"{who}{where} publish prices for {named}, in more than one currency."
    return (
        f"Published installed prices for {named}{where}: "
        f"{price_range(low, high, currency)} across {who}; each business's own range and quote link are below."
    )
