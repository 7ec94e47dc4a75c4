"""How a question is cut into tokens, and how two spellings of a word are compared.

One tokenizer reads the questions and the vocabulary's phrases alike, so
`A/C`, `a/c` and `A C` are the same phrase, and so are `t-stat` and `t stat`.
A whitespace chunk that mixes letters and digits is a model number
(`ML17XP1-036`, `XC25`) and stays whole, unless it is a size written without
a space (`2-ton`, `24k`, `16x25x1`, `96%`, `merv13`): those become a number
and its unit. Plural `s` does not matter when phrases are compared (`key`).

Spelling distance (`similarity`, `edit_distance`) is pg_trgm's trigram
similarity and the Damerau-Levenshtein distance, the same on both databases
(mirror/query/spelling.py uses them).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from rapidfuzz.distance import OSA

WORD, NUMBER, MONEY, DIMENSIONS, MODEL, POSTAL = "word", "number", "money", "dimensions", "model", "postal"

# Unit spellings a number may carry without a space ("2-ton", "36000btu", "96%", "24k").
GLUED_UNITS = frozenset(
    {
        "k",
        "ton",
        "tons",
        "t",
        "btu",
        "btus",
        "btuh",
        "mbh",
        "gal",
        "gals",
        "gallon",
        "gallons",
        "gpm",
        "hp",
        "seer",
        "seer2",
        "afue",
        "uef",
        "merv",
        "grain",
        "grains",
        "amp",
        "amps",
        "sqft",
        "%",
    }
)
# Words that are units though they hold a digit (they are not model numbers).
DIGIT_WORDS = frozenset({"seer2", "hspf2", "eer2", "r410a", "r22"})

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u00d7": "x", "\u2013": "-"})
_EDGE = re.compile(r"^[^\w$%]+|[^\w%]+$")
_MONEY = re.compile(r"^\$(\d[\d,]*(?:\.\d+)?)(k|m)?$")
_ZIP = re.compile(r"^(\d{5})(?:-\d{4})?$")
_DIMENSIONS = re.compile(r"^(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)(?:x(\d+(?:\.\d+)?))?$")
_NUMBER = re.compile(r"^(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$|^\d+/\d+$")
_GLUED = re.compile(r"^((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\d+/\d+)-?([a-z%]+2?)$")
_UNIT_FIRST = re.compile(r"^(merv)-?(\d+)$")
_PIECES = re.compile(r"[a-z]+|\d+(?:\.\d+)?|%")
_HAS_LETTER = re.compile(r"[a-z]")
_HAS_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class Token:
    """One piece of a question: a word, a number, an amount of money, a size, a model number or a ZIP."""

    kind: str
    text: str  # as typed, lower case
    value: Decimal | None = None  # numbers and money
    fraction: str | None = None  # "1/2" as typed

    @property
    def key(self) -> str:
        """The comparison form of a word (plural `s` dropped)."""
        return key(self.text) if self.kind == WORD else self.text


def key(word: str) -> str:
    """A word's comparison form: lower case, a plural `s`/`es`/`ies` dropped ("pumps" -> "pump")."""
    return _key(word.lower())


@lru_cache(maxsize=8192)
def _key(word: str) -> str:
    if len(word) < 4 or not word.isalpha() or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") else word


_POSSESSIVE = re.compile(r"(?<=[a-z])'s\b")
_INNER_APOSTROPHE = re.compile(r"(?<=[a-z])'(?=[a-z])")


def normalise(text: str) -> str:
    """Lower case, compatibility forms folded, curly quotes straight, a possessive 's and other inner apostrophes dropped."""
    # ASCII is its own compatibility form and holds no curly quote: most catalog text skips both steps (the sync
    # normalises every product's name and specs).
    folded = text.lower() if text.isascii() else unicodedata.normalize("NFKC", text).translate(_QUOTES).lower()
    if "'" not in folded:
        return folded
    return _INNER_APOSTROPHE.sub("", _POSSESSIVE.sub("", folded))


def number_value(text: str) -> Decimal | None:
    """`2`, `2.5`, `24,000` or `1/2` as a Decimal (None when it is none of those)."""
    try:
        if "/" in text:
            top, bottom = text.split("/", 1)
            return Decimal(top) / Decimal(bottom) if Decimal(bottom) else None
        return Decimal(text.replace(",", ""))
    except (InvalidOperation, ValueError):
        return None


def tokenize(text: str) -> list[Token]:
    """The tokens of a question, in order."""
    tokens: list[Token] = []
    for raw in normalise(text).split():
        chunk = _EDGE.sub("", raw)
        if chunk:
            tokens.extend(_chunk_tokens(chunk))
    return tokens


def phrase_words(phrase: str) -> tuple[str, ...]:
    """A vocabulary phrase as the words a question would hold ("A/C" -> ("a", "c"))."""
    return tuple(t.text for t in tokenize(phrase) if t.kind in (WORD, NUMBER, MODEL))


def _chunk_tokens(chunk: str) -> list[Token]:
    if chunk.isascii() and chunk.isalpha():  # a plain word, as most are: what the patterns below would make of it
        return [Token(WORD, chunk)]
    money = _MONEY.match(chunk)
    if money:
        value = number_value(money.group(1))
        scale = {"k": 1000, "m": 1_000_000}.get(money.group(2) or "", 1)
        return [Token(MONEY, chunk, value * scale)] if value is not None else []
    postal = _ZIP.match(chunk)
    if postal and "-" in chunk:
        return [Token(POSTAL, postal.group(1))]
    if _DIMENSIONS.match(chunk):
        return [Token(DIMENSIONS, chunk)]
    if _NUMBER.match(chunk):
        return [_number(chunk)]
    glued = _GLUED.match(chunk)
    if glued and glued.group(2) in GLUED_UNITS:
        number = _number(glued.group(1))
        if glued.group(2) == "k":
            return [Token(NUMBER, chunk, number.value * 1000)]
        return [number, Token(WORD, glued.group(2))]
    unit_first = _UNIT_FIRST.match(chunk)
    if unit_first:
        return [Token(WORD, unit_first.group(1)), _number(unit_first.group(2))]
    if chunk in DIGIT_WORDS:
        return [Token(WORD, chunk)]
    if _HAS_LETTER.search(chunk) and _HAS_DIGIT.search(chunk):
        return [Token(MODEL, chunk)]
    return [_number(p) if p[0].isdigit() else Token(WORD, p) for p in _PIECES.findall(chunk)]


def _number(text: str) -> Token:
    return Token(NUMBER, text, number_value(text), text if "/" in text else None)


# --- spelling distance -------------------------------------------------------------


@lru_cache(maxsize=8192)
def trigrams(word: str) -> frozenset[str]:
    """pg_trgm's trigrams of one word: padded with two spaces before and one after."""
    padded = f"  {word.lower()} "
    return frozenset(padded[i : i + 3] for i in range(len(padded) - 2))


def similarity(a: str, b: str) -> float:
    """pg_trgm's similarity(): shared trigrams over all trigrams of the two words."""
    left, right = trigrams(a), trigrams(b)
    shared = len(left & right)
    return shared / (len(left) + len(right) - shared) if left or right else 0.0


def edit_distance(a: str, b: str, limit: int = 3) -> int:
    """Damerau-Levenshtein distance (adjacent transpositions count once: the optimal string alignment), capped at
    `limit` + 1. RapidFuzz's, in C: a question's spelling step measures a few hundred candidates."""
    return OSA.distance(a, b, score_cutoff=limit)
