"""The noise filter: which mentions are not terms, and why.

Reasons, checked in this order:
- `page_furniture`: inside a header or footer line repeated on the pages, or a page number;
- `number`, `unit`, `stopword`: numbers, units on their own, function words of either language;
- `single_letter`: one letter that is not the left side of a formula;
- `identifier`: codes such as document numbers;
- `structure`: names of document parts ("Purpose", "Tanggung Jawab", "Revisi Dokumen");
- `organisation`: the issuer and its units and roles: a name after a legal form ("PT …"),
  a phrase in the running header, a phrase headed by "Department", "Manager" …, and any
  short form paired with one of those;
- `boilerplate`: citation and enactment wording, every word of it from the language packs'
  list (`packs/<lang>/terms.json`): "Undang-Undang Nomor", "Tambahan Lembaran Negara
  Republik", "Menetapkan", "Section"; and the title of a cited instrument, opening with one
  of the packs' citation heads ("Peraturan Menteri Keuangan Nomor");
- `numeral`: a bare roman numeral ("II", "XIV"), and digits OCR read as letters ("OOO",
  "O2O", "l2l") count as `number`;
- `shouted`: words in capitals that are not acronyms: a run of them with a long word
  ("PENGAWAS TENAGA NUKLIR"), or a word the document also writes in lowercase ("NOMOR").

A name the document defines (a definition candidate's term, short form or other-language
name) is a term whatever it looks like; only page furniture drops it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import cache
from typing import Literal

from knowledge_assets.candidates.lexicon import LEGAL_FORMS, ORGANISATION_HEADS, STRUCTURE_WORDS, UNITS
from knowledge_assets.candidates.packs import cues
from knowledge_assets.contracts import Chunk, ParsedPage
from knowledge_assets.terms.discovery import Discovery
from knowledge_assets.terms.mentions import Mention
from knowledge_assets.terms.tokens import (
    ChunkWords,
    chunk_words,
    collapse,
    is_number,
    is_stopword,
    iter_lines,
    key_words,
    term_key,
    tokens,
    word_key,
)

NoiseReason = Literal[
    "page_furniture", "number", "unit", "stopword", "single_letter", "identifier", "structure", "organisation",
    "boilerplate", "numeral", "shouted",
]

# Lines within this many of a page's top or bottom are where headers and footers stand.
_EDGE_LINES = 2
# A line is furniture when it stands at the edge of at least half the pages (two at least).
_FURNITURE_SHARE = 0.5
_PAGE_NUMBER = re.compile(
    r"(?:(?:page|halaman|hal\.?|pg\.?)\s*)?#+(?:\s*(?:of|dari|/)\s*#+)?|-\s*#+\s*-", re.IGNORECASE
)
_DIGIT_RUN = re.compile(r"\d{2}")
_DIGITS = re.compile(r"\d+")
# Chapter and part numbers (BAB II, Part IV, Annex XII) stay below 40: numerals of I, V and X
# only, so acronyms spelt with L, C, D or M (CC, CLI, MD, DL) stay terms.
_ROMAN_NUMERAL = re.compile(r"(?=[XVI]{2})X{0,3}(?:IX|IV|V?I{0,3})")
# Digits as OCR reads them: O for 0, l or I for 1 ("OOO", "3O", "l2l"), with one digit or O at least.
_MISREAD_DIGITS = re.compile(r"(?=[\dOolI]*[\dO])[\dOolI]{2,}")
_SHOUTED_MIN_LETTERS = 5


def line_shape(line: str) -> str:
    """A line with its numbers blanked, so "Halaman 3 dari 9" repeats as "halaman # dari #"."""
    return _DIGITS.sub("#", collapse(line)).lower()


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


def screen(
    mentions: list[Mention],
    chunks: list[Chunk],
    pages: list[ParsedPage],
    found: Discovery,
    words_of: ChunkWords | None = None,
) -> list[Mention]:
    """Every mention, with `noise` set to the reason it is dropped, or None when it is kept.
    `words_of` are the chunks' tokens, if at hand."""
    furniture = page_furniture(pages)
    spans = {chunk.chunk_id: furniture_spans(chunk.text, furniture) for chunk in chunks}
    issuer = _issuer_keys(found, spans)
    words_of = chunk_words(chunks) if words_of is None else words_of
    spellings = {t.text for chunk in chunks for t in words_of[chunk.chunk_id]}
    lowercase = frozenset(word.lower() for word in spellings if not word.isupper())
    defined = found.defined_keys
    # Past page furniture the verdict depends on the surface alone, and a document repeats
    # its surfaces: each distinct surface is judged once.
    verdicts: dict[str, NoiseReason | None] = {}
    screened = []
    for m in mentions:
        furniture_here = spans[m.chunk_id]
        if furniture_here and _in_furniture(m, furniture_here):
            reason: NoiseReason | None = "page_furniture"
        elif m.surface in verdicts:
            reason = verdicts[m.surface]
        else:
            reason = verdicts[m.surface] = _surface_reason(m.surface, issuer, found.symbol_keys, defined, lowercase)
        screened.append(m.judged(reason))
    return screened


def _in_furniture(mention: Mention, furniture: list[tuple[int, int]]) -> bool:
    return any(start <= mention.start and mention.end <= end for start, end in furniture)


def _surface_reason(
    surface: str,
    issuer: frozenset[str],
    symbols: frozenset[str],
    defined: frozenset[str],
    lowercase: frozenset[str],
) -> NoiseReason | None:
    words = [t.text for t in tokens(surface)]
    keys = key_words(surface)
    if term_key(surface) in defined:
        return None
    if all(is_number(w) or _MISREAD_DIGITS.fullmatch(w) for w in words):
        return "number"
    if len(words) == 1 and _ROMAN_NUMERAL.fullmatch(words[0]):
        return "numeral"
    if _is_unit(surface):
        return "unit"
    if all(is_stopword(w) for w in words):
        return "stopword"
    if sum(c.isalnum() for c in surface) == 1 and term_key(surface) not in symbols:
        return "single_letter"
    if _DIGIT_RUN.search(surface):
        return "identifier"
    if keys[0] in STRUCTURE_WORDS or keys[-1] in STRUCTURE_WORDS:
        return "structure"
    if term_key(surface) in issuer or _names_organisation(keys):
        return "organisation"
    if all(key in _boilerplate() for key in keys) or (len(keys) > 1 and keys[0] in _citation_heads()):
        return "boilerplate"
    if _is_shouted(words, lowercase):
        return "shouted"
    return None


@cache
def _boilerplate() -> frozenset[str]:
    return frozenset(word_key(w) for w in cues("terms").get("boilerplate", ()))


@cache
def _citation_heads() -> frozenset[str]:
    """Words a cited instrument's title opens with: "Peraturan Menteri Keuangan Nomor …"."""
    return frozenset(word_key(w) for w in cues("terms").get("citation_heads", ()))


def _is_shouted(words: list[str], lowercase: frozenset[str]) -> bool:
    """Capitals typed for emphasis, not an acronym: several with a long word among them, or
    one the document also writes in lowercase."""
    if not words or not all(w.isupper() for w in words):
        return False
    if len(words) > 1:
        return any(len(w) >= _SHOUTED_MIN_LETTERS for w in words)
    return len(words[0]) >= _SHOUTED_MIN_LETTERS and words[0].lower() in lowercase


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
    surfaces = dict.fromkeys(m.surface for m in found.candidates)
    keys |= {term_key(surface) for surface in surfaces if _names_organisation(key_words(surface))}
    for a, b in found.pairs + found.aliases:
        if term_key(a) in keys or term_key(b) in keys:
            keys |= {term_key(a), term_key(b)}
    return frozenset(keys)
