"""Words a question holds that neither the vocabulary nor the catalog knows: a misspelling corrected, two words run together split.

The catalog's side is a `Lexicon`: the distinct words of the public products'
names, brands and categories, which the database keeps beside its full-text
index (a pg_trgm GiST index; mirror/read/words.py). One lookup asks, for all the words at once, which of
them (and of the pieces they could be split into) the catalog holds, and
which catalog words look like each of them.

A word is then, in this order:
1. known: a vocabulary word, or a word (or its singular) the catalog holds;
2. split: two known words run together ("heatpump", "waterheater"), the split
   that makes a vocabulary phrase first;
3. corrected: the nearest known word within one edit (two from seven letters
   on; a swap of two letters is one edit), vocabulary words and catalog
   words alike, never to a filler, price or tier word ("goodman" is not
   "good");
4. unknown: reported as such, never guessed.

A question spends splits and corrections on its first `MAX_CORRECTED` words
that are not vocabulary words; the rest are only looked up as typed (known or
unknown). So the cost of a question is bounded whatever it holds: a hundred
random words cost the lookups of eight, and each lookup is an index probe
with a LIMIT (mirror/read/words.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Protocol

from mirror.query.concepts import CORRECTION_TARGETS, PHRASES, VOCABULARY_KEYS
from mirror.query.text import edit_distance, key, similarity, trigrams

KNOWN, SPLIT, CORRECTED, UNKNOWN = "known", "split", "corrected", "unknown"
MIN_CORRECTED = 4  # shorter words are left as typed
MIN_SPLIT = 5
SIMILAR_PER_WORD = 30  # nearest words of the spelling list a lexicon considers per asked word
MAX_CORRECTED = 8  # words of one question that may be split or corrected (the rest are read as typed)


@dataclass(frozen=True)
class LexiconAnswer:
    """What the catalog knows about some words: those it holds, and the ones it holds that look alike."""

    known: frozenset[str] = frozenset()
    similar: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


class Lexicon(Protocol):
    """The catalog's words (mirror/read/words.py is the database's)."""

    def lookup(self, words: Sequence[str], pieces: Sequence[str]) -> LexiconAnswer:
        """Which of `words` and `pieces` the catalog holds, and its words most like each of `words`."""
        ...


@dataclass(frozen=True)
class Resolution:
    """How one word of a question was read."""

    word: str
    how: str  # KNOWN, SPLIT, CORRECTED or UNKNOWN
    meant: tuple[str, ...]  # the words it stands for (itself when known or unknown)


@lru_cache(maxsize=16384)
def is_vocabulary_word(word: str) -> bool:
    """Whether the vocabulary holds a word (in any phrase, as any plural).

    Cached: a question's spelling step asks it of every candidate correction (about 400 words for a
    200-character question, mostly the same catalog and vocabulary words from one question to the next).
    """
    return key(word) in VOCABULARY_KEYS


def resolve(words: Iterable[str], lexicon: Lexicon | None) -> dict[str, Resolution]:
    """How each word reads (see the module docstring); one lexicon lookup for them all."""
    asked = [w for w in dict.fromkeys(words) if w.isalpha()]
    found = {w: Resolution(w, KNOWN, (w,)) for w in asked if is_vocabulary_word(w)}
    pending = [w for w in asked if w not in found]
    if not pending:
        return found
    spent = pending[:MAX_CORRECTED]
    pieces = {p for w in spent for split in _splits(w) for p in split} | {key(w) for w in pending} | set(pending)
    looked_up = sorted(p for p in pieces if not is_vocabulary_word(p))
    answer = lexicon.lookup(spent, looked_up) if lexicon else LexiconAnswer()
    for position, word in enumerate(pending):
        found[word] = _resolve_one(word, answer, correct=position < MAX_CORRECTED)
    return found


def _resolve_one(word: str, answer: LexiconAnswer, *, correct: bool) -> Resolution:
    def known(piece: str) -> bool:
        return is_vocabulary_word(piece) or piece in answer.known or key(piece) in answer.known

    if known(word):
        return Resolution(word, KNOWN, (word,))
    if not correct:
        return Resolution(word, UNKNOWN, (word,))
    splits = [split for split in _splits(word) if all(known(p) for p in split)]
    if splits:
        best = min(splits, key=lambda s: (tuple(map(key, s)) not in PHRASES, min(map(len, s)) < 3, -min(map(len, s))))
        return Resolution(word, SPLIT, best)
    nearest = _nearest(word, (*_vocabulary_candidates(word), *answer.similar.get(word, ())))
    if nearest is not None:
        return Resolution(word, CORRECTED, (nearest,))
    return Resolution(word, UNKNOWN, (word,))


def _splits(word: str) -> list[tuple[str, str]]:
    if len(word) < MIN_SPLIT or not word.isalpha():
        return []
    return [(word[:i], word[i:]) for i in range(2, len(word) - 1)]


def allowed_edits(word: str) -> int:
    """How far a correction may be from the typed word."""
    return 1 if len(word) < 7 else 2


def _nearest(word: str, candidates: Iterable[str]) -> str | None:
    if len(word) < MIN_CORRECTED:
        return None
    limit = allowed_edits(word)
    scored = []
    for candidate in dict.fromkeys(candidates):
        if candidate == word or len(candidate) < 3 or (is_vocabulary_word(candidate) and candidate not in _TARGETS):
            continue
        distance = edit_distance(word, candidate, limit)
        if distance <= limit:
            scored.append((distance, -similarity(word, candidate), candidate))
    return min(scored)[2] if scored else None


_TARGETS = CORRECTION_TARGETS


@cache
def _trigram_index() -> dict[str, tuple[str, ...]]:
    index: dict[str, list[str]] = {}
    for target in sorted(_TARGETS):
        for gram in trigrams(target):
            index.setdefault(gram, []).append(target)
    return {gram: tuple(words) for gram, words in index.items()}


def _vocabulary_candidates(word: str) -> list[str]:
    """Vocabulary words sharing a trigram with `word` (the index holds a few hundred words)."""
    index = _trigram_index()
    return sorted({t for gram in trigrams(word) for t in index.get(gram, ())})
