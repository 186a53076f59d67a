"""Lines and sentences of a chunk's text, as offsets into that text, so whatever is cut from
them is an exact substring of the input, as the span check requires. The candidate finders and
the offline extractor both read text this way; it lives here, below both.
"""

from __future__ import annotations

import re

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
