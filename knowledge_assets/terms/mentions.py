"""A mention is one occurrence of a candidate term: where it is and its exact surface.

Extractors find the candidates; `find_occurrences` then counts every occurrence of every
candidate surface across the document, so mention counts rank terms by how often the
document uses them, not by how often a pattern happened to fire.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from operator import attrgetter
from typing import Literal, get_args

from knowledge_assets.contracts import Chunk
from knowledge_assets.terms.tokens import ChunkWords, Token, is_acronym, tokens, word_key

MentionKind = Literal[
    "short_form",
    "long_form",
    "heading",
    "defined",
    "symbol",
    "phrase",
    "gloss",
    "classified",
    "acronym",
    "organisation",
    "occurrence",
]
# When two extractors find the same span, the more telling kind names it.
_KIND_PRIORITY: tuple[MentionKind, ...] = get_args(MentionKind)
_KIND_RANK: dict[MentionKind, int] = {kind: rank for rank, kind in enumerate(_KIND_PRIORITY)}


# Every offset below this is one shared int object: a mention's start and end are otherwise two
# ints of its own (32 bytes each, 61 MiB for the million mentions of a 50 MB text). A chunk is
# `DEFAULT_MAX_CHARS` (1,500) long; a longer one's offsets past this are ints of their own.
_SHARED_OFFSETS = tuple(range(1 << 16))


def _shared(offset: int) -> int:
    return _SHARED_OFFSETS[offset] if 0 <= offset < len(_SHARED_OFFSETS) else offset


# Slotted, and each surface interned: a long document holds millions of mentions of a few
# thousand surfaces, and a mention's own dict and copy of its surface were most of its size.
@dataclass(frozen=True, slots=True)
class Mention:
    chunk_id: str
    start: int
    end: int
    surface: str  # chunk.text[start:end], verbatim
    kind: MentionKind
    noise: str | None = None  # why the noise filter dropped it; None when kept
    term_id: str | None = None  # the cluster it joined

    @classmethod
    def at(cls, chunk: Chunk, start: int, end: int, kind: MentionKind) -> Mention:
        return cls(chunk.chunk_id, _shared(start), _shared(end), sys.intern(chunk.text[start:end]), kind)

    @classmethod
    def over(cls, chunk: Chunk, words: list[Token], kind: MentionKind) -> Mention:
        return cls.at(chunk, words[0].start, words[-1].end, kind)

    # `dataclasses.replace` at a third of its cost: the funnel stamps every mention twice.
    def judged(self, noise: str | None) -> Mention:
        """This mention with the noise filter's verdict."""
        return Mention(self.chunk_id, self.start, self.end, self.surface, self.kind, noise, self.term_id)

    def joined(self, term_id: str) -> Mention:
        """This mention stamped with the cluster it joined."""
        return Mention(self.chunk_id, self.start, self.end, self.surface, self.kind, self.noise, term_id)


def in_reading_order(mentions: Iterable[Mention], order: Mapping[str, int]) -> list[Mention]:
    """The mentions by their chunk's place (`order`: chunk_id → seq), then start, mentions at
    one place in the order given: what sorting by `(order[chunk_id], start)` gives, without a
    key tuple for each mention beside it (a 50 MB text has a million, 64 MiB of keys)."""
    by_chunk: dict[str, list[Mention]] = defaultdict(list)
    for mention in mentions:
        by_chunk[mention.chunk_id].append(mention)
    start = attrgetter("start")
    return [m for chunk_id in sorted(by_chunk, key=order.__getitem__) for m in sorted(by_chunk[chunk_id], key=start)]


def find_occurrences(
    chunks: list[Chunk], candidates: list[Mention], words_of: ChunkWords | None = None
) -> list[Mention]:
    """Every occurrence of every candidate surface, longest match first and never overlapping.

    Acronyms and other short forms match case-sensitively (`MA` is not `ma`); other surfaces
    match up to case and plural (`Delay`, `delays`). An occurrence that is exactly a
    candidate's span keeps the candidate's kind. `words_of` are the chunks' tokens, if at hand.
    """
    surfaces = _Gazetteer(candidates)
    by_chunk = _by_chunk(candidates)
    found: list[Mention] = []
    exact: dict[str, int] = {}  # a word's exact match, by spelling: a document repeats its words
    openers = surfaces.openers
    for chunk in chunks:
        words = tokens(chunk.text) if words_of is None else words_of[chunk.chunk_id]
        kinds = _kinds_by_span(by_chunk.pop(chunk.chunk_id, ()))
        keys = [word_key(w.text) for w in words]
        index, count = 0, len(words)
        while index < count:
            # Most words open no folded surface: then only the word itself can match, exactly.
            if keys[index] in openers:
                length = surfaces.longest_match(chunk.text, words, keys, index)
            elif (length := exact.get(words[index].text, -1)) < 0:
                length = exact[words[index].text] = int(surfaces.matches_exactly(words[index].text))
            if length:
                start, end = words[index].start, words[index + length - 1].end
                kind = kinds.get((start, end), "occurrence")
                found.append(Mention.at(chunk, start, end, kind))
                index += length
            else:
                index += 1
    return found


def _one_line_break_at_most(gap: str) -> bool:
    # A known surface is recognised across any single line break ("Equipment\nCapacity
    # Analysis" in a title block); extractors, which guess, are stricter.
    return not gap.strip() and gap.count("\n") <= 1


def _by_chunk(candidates: Iterable[Mention]) -> dict[str, list[Mention]]:
    """The candidates of each chunk: each chunk's spans are looked up in a table of its own, built
    as the chunk is read, not in one of the whole document's (490,000 spans at 50 MB)."""
    by_chunk: dict[str, list[Mention]] = defaultdict(list)
    for m in candidates:
        by_chunk[m.chunk_id].append(m)
    return by_chunk


def _kinds_by_span(candidates: Iterable[Mention]) -> dict[tuple[int, int], MentionKind]:
    """The kind of each candidate span of one chunk."""
    kinds: dict[tuple[int, int], MentionKind] = {}
    for m in sorted(candidates, key=lambda m: _KIND_RANK[m.kind], reverse=True):
        kinds[(m.start, m.end)] = m.kind
    return kinds


def _exact_key(word: str) -> str:
    return word[:-1] if is_acronym(word) and word.endswith("s") else word


class _Gazetteer:
    """Candidate surfaces as word-tuple keys: a lookup per word n-gram, linear in the text."""

    def __init__(self, candidates: list[Mention]):
        self.exact: set[tuple[str, ...]] = set()
        self.folded: set[tuple[str, ...]] = set()
        self.longest = 1
        # A surface's entry depends on its words and on whether it is a short form; a
        # document names its candidates many times over, so each is read once.
        for surface, short_form in dict.fromkeys((m.surface, m.kind == "short_form") for m in candidates):
            words = [t.text for t in tokens(surface)]
            if not words:
                continue
            self.longest = max(self.longest, len(words))
            if len(words) == 1 and _is_case_sensitive(words[0], short_form):
                self.exact.add((_exact_key(words[0]),))
            else:
                self.folded.add(tuple(word_key(w) for w in words))
        # Every opening of a folded surface, so a match grows word by word and stops as soon
        # as no surface goes on that way; and the first words alone: a word that opens none
        # can only match exactly, on its own.
        self.prefixes = frozenset(surface[:n] for surface in self.folded for n in range(1, len(surface) + 1))
        self.openers = frozenset(surface[0] for surface in self.folded)

    def matches_exactly(self, word: str) -> bool:
        return (_exact_key(word),) in self.exact

    def longest_match(self, text: str, words: list[Token], keys: list[str], index: int) -> int:
        """The most words from `index` on, joined by no more than one line break, that are a
        folded surface; a lone word that is an exact surface counts as one."""
        best, length, prefix = 0, 1, (keys[index],)
        while True:
            if prefix in self.folded:
                best = length
            if length == self.longest or index + length == len(words):
                break
            if not _one_line_break_at_most(text[words[index + length - 1].end : words[index + length].start]):
                break
            prefix += (keys[index + length],)
            if prefix not in self.prefixes:
                break
            length += 1
        if best < 2 and self.matches_exactly(words[index].text):
            return 1
        return best


def _is_case_sensitive(word: str, short_form: bool) -> bool:
    return is_acronym(word) or short_form or len(word) <= 3


def with_defined_names(occurrences: list[Mention], defined: list[Mention]) -> list[Mention]:
    """The occurrences, with each name a definition gives counted where it gives it: the
    gazetteer cannot match a name written with markup (`*W<sub>max</sub>*`) or across a PDF's
    one-word lines, so a defined name replaces whatever occurrences overlap it."""
    # Only the defined names' spans are held, not a set of every occurrence's (a million at 50 MB).
    named = {(m.chunk_id, m.start, m.end): m for m in defined}
    found = {span for m in occurrences if (span := (m.chunk_id, m.start, m.end)) in named}
    added = {span: m for span, m in named.items() if span not in found}
    by_chunk: dict[str, list[Mention]] = {}
    for mention in added.values():
        by_chunk.setdefault(mention.chunk_id, []).append(mention)
    kept = [
        m for m in occurrences
        if not any(m.start < d.end and d.start < m.end for d in by_chunk.get(m.chunk_id, ()))
    ]
    return kept + list(added.values())
