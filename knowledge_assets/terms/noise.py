"""The noise filter: which mentions are not terms, and why.

Reasons, checked in this order:
- `page_furniture`: inside a header or footer line repeated on the pages, or a page number;
- `number`, `unit`, `stopword`: numbers, units on their own, function words of either language;
- `single_letter`: one letter that is not the left side of a formula;
- `identifier`: codes such as document numbers;
- `structure`: names of document parts ("Purpose", "Tanggung Jawab", "Revisi Dokumen");
- `organisation`: the issuer and its units and roles: a name after a legal form ("PT …"),
  a phrase in the running header, a phrase headed by "Department", "Manager" …, and any
  short form paired with one of those.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import replace
from typing import Literal

from knowledge_assets.contracts import Chunk, ParsedPage
from knowledge_assets.terms.discovery import Discovery
from knowledge_assets.terms.lexicon import LEGAL_FORMS, ORGANISATION_HEADS, STRUCTURE_WORDS, UNITS
from knowledge_assets.terms.mentions import Mention
from knowledge_assets.terms.tokens import collapse, is_number, is_stopword, iter_lines, key_words, term_key, tokens

NoiseReason = Literal[
    "page_furniture", "number", "unit", "stopword", "single_letter", "identifier", "structure", "organisation"
]

# Lines within this many of a page's top or bottom are where headers and footers stand.
_EDGE_LINES = 2
# A line is furniture when it stands at the edge of at least half the pages (two at least).
_FURNITURE_SHARE = 0.5
_PAGE_NUMBER = re.compile(
    r"(?:(?:page|halaman|hal\.?|pg\.?)\s*)?#+(?:\s*(?:of|dari|/)\s*#+)?|-\s*#+\s*-", re.IGNORECASE
)
_DIGIT_RUN = re.compile(r"\d{2}")


def line_shape(line: str) -> str:
    """A line with its numbers blanked, so "Halaman 3 dari 9" repeats as "halaman # dari #"."""
    return re.sub(r"\d+", "#", collapse(line)).lower()


def page_furniture(pages: list[ParsedPage]) -> frozenset[str]:
    """The shapes of the lines the document repeats at the top or bottom of its pages."""
    counts: Counter[str] = Counter()
    for page in pages:
        lines = [line for line in page.text.split("\n") if line.strip()]
        counts.update({line_shape(line) for line in lines[:_EDGE_LINES] + lines[-_EDGE_LINES:]})
    threshold = max(2, math.ceil(len(pages) * _FURNITURE_SHARE))
    return frozenset(shape for shape, count in counts.items() if count >= threshold)


def furniture_spans(text: str, furniture: frozenset[str]) -> list[tuple[int, int]]:
    spans = []
    for start, line in iter_lines(text):
        shape = line_shape(line)
        if shape and (shape in furniture or _PAGE_NUMBER.fullmatch(shape)):
            spans.append((start, start + len(line)))
    return spans


def screen(mentions: list[Mention], chunks: list[Chunk], pages: list[ParsedPage], found: Discovery) -> list[Mention]:
    """Every mention, with `noise` set to the reason it is dropped, or None when it is kept."""
    furniture = page_furniture(pages)
    spans = {chunk.chunk_id: furniture_spans(chunk.text, furniture) for chunk in chunks}
    issuer = _issuer_keys(found, spans)
    return [replace(m, noise=_reason(m, spans[m.chunk_id], issuer, found.symbol_keys)) for m in mentions]


def _reason(
    mention: Mention, furniture: list[tuple[int, int]], issuer: frozenset[str], symbols: frozenset[str]
) -> NoiseReason | None:
    words = [t.text for t in tokens(mention.surface)]
    keys = key_words(mention.surface)
    if any(start <= mention.start and mention.end <= end for start, end in furniture):
        return "page_furniture"
    if all(is_number(w) for w in words):
        return "number"
    if _is_unit(mention.surface):
        return "unit"
    if all(is_stopword(w) for w in words):
        return "stopword"
    if sum(c.isalnum() for c in mention.surface) == 1 and term_key(mention.surface) not in symbols:
        return "single_letter"
    if _DIGIT_RUN.search(mention.surface):
        return "identifier"
    if keys[0] in STRUCTURE_WORDS or keys[-1] in STRUCTURE_WORDS:
        return "structure"
    if term_key(mention.surface) in issuer or _names_organisation(keys):
        return "organisation"
    return None


def _is_unit(surface: str) -> bool:
    # "jam", and "BCM/jam": a quantity per unit of time is a unit too.
    parts = collapse(surface).lower().split("/")
    return len(parts) <= 2 and parts[-1] in UNITS


def _names_organisation(keys: list[str]) -> bool:
    return keys[-1] in ORGANISATION_HEADS or (len(keys) > 1 and keys[0] in LEGAL_FORMS)


def _issuer_keys(found: Discovery, furniture: dict[str, list[tuple[int, int]]]) -> frozenset[str]:
    """Names of the issuer: organisation candidates and the phrases of the running header,
    widened to every short form or alias tied to one of them."""
    keys = {term_key(m.surface) for m in found.candidates if m.kind == "organisation"}
    keys |= {
        term_key(m.surface)
        for m in found.candidates
        if m.kind == "phrase" and any(s <= m.start and m.end <= e for s, e in furniture[m.chunk_id])
    }
    keys |= {term_key(m.surface) for m in found.candidates if _names_organisation(key_words(m.surface))}
    for a, b in found.pairs + found.aliases:
        if term_key(a) in keys or term_key(b) in keys:
            keys |= {term_key(a), term_key(b)}
    return frozenset(keys)
