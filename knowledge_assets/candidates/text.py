"""Lines and sentences of a chunk's text, as offsets into that text, so whatever is cut from
them is an exact substring of the input, as the span check requires. The candidate finders and
the offline extractor both read text this way; it lives here, below both.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from knowledge_assets.candidates.model import trim as _trim

Bounds = tuple[int, int]

_LINE = re.compile(r"[^\n]*")
# A line that stands alone: a numbered heading, a list item, an equation or a legend entry.
_STANDALONE = re.compile(r"^\s*(?:[-•*]\s|\d+(?:\.\d+)*\.\s|\S[^=\n]{0,60}\s=\s)")
_TERMINAL = (".", "!", "?", ":", ";")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])[ \t]+(?=[A-Z\"(])|(?<=[.!?])\n")


def lines(text: str) -> list[Bounds]:
    return [(m.start(), m.end()) for m in _LINE.finditer(text) if m.end() > m.start()]


def sentences(text: str) -> list[Bounds]:
    """Sentence bounds, where PDF line breaks inside a sentence are not sentence ends but a
    heading, list item or equation line is a unit of its own."""
    found: list[Bounds] = []
    paragraph: list[int] = []  # [start, end] of the lines gathered so far

    def close_paragraph() -> None:
        if paragraph:
            cut = paragraph[0]
            for match in _SENTENCE_BREAK.finditer(text, paragraph[0], paragraph[1]):
                found.append(_trim(text, cut, match.start()))
                cut = match.end()
            found.append(_trim(text, cut, paragraph[1]))
            paragraph.clear()

    for start, end in lines(text):
        line = text[start:end]
        if _STANDALONE.match(line):
            close_paragraph()
            found.append(_trim(text, start, end))
            continue
        if not line.strip():
            close_paragraph()
            continue
        paragraph[:] = [paragraph[0] if paragraph else start, end]
        if line.rstrip().endswith(_TERMINAL):
            close_paragraph()
    close_paragraph()
    return [bounds for bounds in found if bounds[1] > bounds[0]]


# ---------------------------------------------------------------------------------- fast scans
# A pattern tried at every character of a long document costs more than the rest of a finder;
# these yield exactly what `pattern.finditer(text)` yields, trying the pattern only where a
# match can start.


def matches_near(pattern: re.Pattern[str], anchor: re.Pattern[str], text: str,
                 lead: Callable[[str, int], int]) -> Iterator[re.Match[str]]:
    """What `pattern.finditer(text)` yields, when every match of `pattern` holds a match of
    `anchor` (its cue words) and starts at or after `lead(text, s)`, `s` where that anchor
    match starts (`lead` growing with `s`): the pattern is tried only at the few characters
    before each anchor, and a text without one costs one search for it. (`pattern.match` at a
    position sees the text around it as `finditer` does: word boundaries and lookbehinds hold.)"""
    position = anchor_from = 0
    while (cue := anchor.search(text, max(position, anchor_from))) is not None:
        for start in range(max(position, lead(text, cue.start())), cue.start()):
            if (match := pattern.match(text, start)) is not None:
                yield match
                position = match.end()
                break
        else:
            # No match starts before this anchor; one holding a later anchor may start at it.
            position, anchor_from = cue.start(), cue.start() + 1


def line_matches(pattern: re.Pattern[str], mark: str, text: str) -> Iterator[re.Match[str]]:
    """What `pattern.finditer(text)` yields for a pattern that matches only from a line's start
    (`(?m)^…`) within that line and only where the line holds `mark` (a label's colon, a
    formula's `=`): the pattern is tried once on each line holding the mark."""
    position = 0
    while (found := text.find(mark, position)) >= 0:
        line_start = text.rfind("\n", 0, found) + 1
        if (match := pattern.match(text, line_start)) is not None:
            yield match
        line_end = text.find("\n", found)
        if line_end < 0:
            return
        position = line_end + 1
