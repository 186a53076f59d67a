"""The span check: is a value a verbatim transcription of its source?

"Verbatim" here means: equal, character for character and case-sensitively, after
  1. Unicode NFKC (ligatures such as "ﬁ" become "fi", non-breaking spaces become spaces),
  2. dropping soft hyphens (U+00AD), and
  3. collapsing every run of whitespace, line breaks included, to one space.
A word hyphenated across a line break ("equip-\\nment") is found both as "equipment" and as
"equip- ment"/"equip-ment" would not be: the source is searched once as written and once with
such line-break hyphens removed. Nothing else is forgiven: no case folding, no quote or dash
substitution, no spelling repair — a value that fails is nulled and logged, never repaired.

A value may run from the end of one chunk into the start of the next (`crossing_pieces`, D56):
it is then checked against the two chunks' texts joined by one space, and it must hold a
character of each, so only what lies between the chunks (furniture, a page break) is skipped.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from knowledge_assets.crossing import JOIN, continues, joined, pieces

_LINE_BREAK_HYPHEN = re.compile(r"(?<=[^\W\d_])-[ \t]*\r?\n\s*(?=[^\W\d_])")


def normalise(text: str) -> str:
    # ASCII text is its own NFKC form and holds no soft hyphen: what is left is collapsing the
    # whitespace runs, which `str.split()` finds by the same `isspace` as the general loop (a
    # value is normalised on every check of it: tens of thousands of calls per document).
    if text.isascii():
        return " ".join(text.split())
    return _normalised_with_offsets(text)[0]


def _normalised_with_offsets(text: str, dehyphenate: bool = False) -> tuple[str, array[int]]:
    """The normalised text and, for each of its characters, the offset in `text` it came from:
    an array of C ints, not a list of int objects (a chunk's offsets are held by the cache of
    `_searchable_forms`, 256 chunks' worth, D106)."""
    joins = {m.start(): m.end() for m in _LINE_BREAK_HYPHEN.finditer(text)} if dehyphenate else {}
    if not joins and text.isascii():
        return _ascii_normalised_with_offsets(text)
    out: list[str] = []
    origin = array("i")
    skip_until = -1
    for index, char in enumerate(text):
        if index < skip_until:
            continue
        if index in joins:
            skip_until = joins[index]
            continue
        for piece in unicodedata.normalize("NFKC", char):
            if piece == "\u00ad":
                continue
            if piece.isspace():
                if out and out[-1] != " ":
                    out.append(" ")
                    origin.append(index)
                continue
            out.append(piece)
            origin.append(index)
    while out and out[-1] == " ":
        out.pop()
        origin.pop()
    return "".join(out), origin


_NON_SPACE = re.compile(r"\S+")


def _ascii_normalised_with_offsets(text: str) -> tuple[str, array[int]]:
    """`_normalised_with_offsets` of ASCII text with no line-break hyphen to join: ASCII is its
    own NFKC form and holds no soft hyphen, so what is left is the whitespace, each run between
    two words one space from the run's first character (`\\s` is `str.isspace`, as the general
    loop's test), the words' characters from where they stand. The same result, without a step
    per character: every chunk of every document is normalised for the verbatim checks."""
    out: list[str] = []
    origin = array("i")
    previous_end = None
    for word in _NON_SPACE.finditer(text):
        if previous_end is not None:
            out.append(" ")
            origin.append(previous_end)
        out.append(word.group())
        origin.extend(range(word.start(), word.end()))
        previous_end = word.end()
    return "".join(out), origin


@lru_cache(maxsize=256)
def _searchable_forms(source: str) -> tuple[tuple[str, array[int]], ...]:
    """The source as searched: as written, then with its line-break hyphens joined, when it has
    any (without, the two forms are one: it is searched, and held, once)."""
    written = _normalised_with_offsets(source)
    if _LINE_BREAK_HYPHEN.search(source) is None:
        return (written,)
    return written, _normalised_with_offsets(source, dehyphenate=True)


def locate_bounds(value: str | None, source: str) -> tuple[int, int] | None:
    """Where `value` starts and ends in `source` when it occurs there verbatim, else None."""
    needle = normalise(value or "")
    if not needle:
        return None
    for form, origin in _searchable_forms(source):
        position = form.find(needle)
        if position >= 0:
            return origin[position], origin[position + len(needle) - 1] + 1
    return None


def locate(value: str | None, source: str) -> int | None:
    """Where `value` starts in `source` when it occurs there verbatim, else None."""
    bounds = locate_bounds(value, source)
    return bounds[0] if bounds else None


def crossing_pieces(value: str | None, first: str, second: str) -> tuple[str, str] | None:
    """The two pieces of `value` when it runs verbatim from the end of chunk text `first` into
    the start of the next chunk's text `second` (D56): the first piece ends where `first` does
    and the second starts where `second` does (blanks aside), so nothing between the chunks is
    in it. None when `value` does not cross, or is not verbatim across the two."""
    bounds = locate_bounds(value, joined(first, second))
    split = pieces(first, second, *bounds) if bounds else None
    if split is None:
        return None
    (a_start, a_end), (b_start, b_end) = split
    return first[a_start:a_end], second[b_start:b_end]


_APART = "\x00"  # between two sources in an index: normalisation never makes one, so no match spans it


class VerbatimIndex:
    """Many sources searched at once: `holds(value)` is `any(is_verbatim(value, s) for s in
    sources)`, but each source is normalised once, not once per value, and the search is one
    `str.find` over all of them. A check against a whole document (a glossary definition may
    sit in any chunk) then costs the document's length once plus one search per value, not the
    document's length per value."""

    def __init__(self, sources: Iterable[str]):
        # A source without a hyphen at a line break has one form, indexed once.
        self._text = _APART.join(form for source in sources for form, _ in _searchable_forms.__wrapped__(source))

    def holds(self, value: str | None) -> bool:
        needle = normalise(value or "")
        return bool(needle) and _APART not in needle and needle in self._text


def pieces_problem(span: str, chunk_id: str | None, spans: Sequence[tuple[str, str]],
                   texts: Mapping[str, str], seq: Mapping[str, int]) -> str | None:
    """What is wrong with a span in pieces (`spans`: each piece's chunk id and text), None when
    nothing is (D56): the pieces' chunks follow each other in reading order (`seq`), starting
    at the provenance chunk, and the text runs on across each join (`crossing.runs_on`); each
    piece is verbatim in its chunk, every piece but the last ends at its chunk's end and every
    one but the first starts at its chunk's start; the span is the pieces joined by one space.
    The one check of a provenance in pieces, wherever it is re-checked."""
    ids = [piece_chunk for piece_chunk, _ in spans]
    if any(i not in texts or i not in seq for i in ids):
        return "names a chunk that is not a chunk of the document"
    if not ids or ids[0] != chunk_id or any(seq[b] != seq[a] + 1 for a, b in zip(ids, ids[1:])):
        return "pieces are not in consecutive chunks from the provenance chunk"
    if any(not continues(texts[a], texts[b]) for a, b in zip(ids, ids[1:])):
        return "the text does not run on across the chunks' join"
    if span != JOIN.join(text for _, text in spans):
        return "span is not its pieces joined by one space"
    for index, (piece_chunk, piece) in enumerate(spans):
        text, needle = normalise(texts[piece_chunk]), normalise(piece)
        if not needle or not is_verbatim(needle, text):
            return f"piece {index + 1} is not verbatim in its chunk"
        if (index < len(ids) - 1 and not text.endswith(needle)) or (index > 0 and not text.startswith(needle)):
            return f"piece {index + 1} does not reach its chunk's edge: a gap lies inside the span"
    return None


def is_verbatim(value: str | None, source: str) -> bool:
    """True when `value` occurs verbatim in `source` (in the sense of the module docstring)."""
    return locate(value, source) is not None
