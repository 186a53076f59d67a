"""Page furniture: the lines a page layout adds around the text — running headers and footers,
page numbers, catchwords — which belong to no sentence of the document.

Parsers end a paragraph at a furniture line and chunk around it, so no chunk, and so no rule
or definition found in one, starts with (or carries) furniture; the text itself is never
rewritten. Finders reading other text (a page, a span) can ask `is_page_furniture(line)`.

The conventions recognised:
- RFC / Internet-Draft plain text (RFC 7322, RFC 7990): the footer ends with `[Page N]`
  (`Iyengar & Swett   Standards Track   [Page 12]`); the header is `RFC nnnn` or
  `Internet-Draft`, the short title and the date, separated by runs of spaces
  (`RFC 9002   QUIC Loss Detection   May 2021`); pages are separated by form feeds;
- Indonesian statutory drafting (UU 12/2011, Lampiran II): the page number between dashes
  (`- 2 -`, `-2-`) and the catchword at the foot of a page, the first words of the next page
  followed by an ellipsis (`Pasal 2 ...`, `BAB I …`, or U+0085, which is how a cp1252 `…`
  comes out of many PDF text layers).
"""

from __future__ import annotations

import re

_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
_FURNITURE = (
    re.compile(r".*\S\s+\[Page \d+\]"),
    re.compile(rf"(?:RFC \d{{1,5}}|Internet-Draft)\s{{2,}}\S.*\S\s{{2,}}"
               rf"(?:\d{{1,2}} )?{_MONTH} (?:\d{{1,2}}, )?\d{{4}}"),
    re.compile(r"-\s?\d{1,4}\s?-"),
    # A catchword is at most four words: a sentence that ends in an ellipsis is longer.
    re.compile(r"(?:[A-Z(]|\d|[a-z]\.)\S*(?:\s+\S+){0,3}?\s*(?:(?<!\.)\.\.\.|…|\x85)"),
)


def is_page_furniture(line: str) -> bool:
    """Whether a whole line is page furniture (a header, a footer, a page number, a catchword,
    a form feed)."""
    # Not str.strip(): it would drop U+0085, the cp1252 ellipsis as PDF text layers decode it.
    text = line.strip(" \t\r\n\f\v")
    if not text:
        return "\f" in line
    return any(pattern.fullmatch(text) for pattern in _FURNITURE)
