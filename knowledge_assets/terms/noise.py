"""The noise filter: which mentions are not terms, and why.

Reasons, checked in this order:
- `page_furniture`: inside a header or footer line repeated on the pages, or a page number;
- `addresses_model`: inside a passage written for a language model rather than for the reader
  (a chat role's label "SYSTEM:", "ignore all previous instructions …"; `verify.instructions`):
  text that addresses a model is data, so no term comes from it;
- `number`, `unit`, `stopword`: numbers, digits or spelt out as Indonesian regulations repeat
  them in words ("(seratus dua puluh)", "lima belas persen"; the packs' `number_words`), units
  on their own (and money: "Rp", "USD2", "jam Rp"), function words of either language;
- `letter_spaced`: a word spaced out letter by letter for emphasis ("M E M U T U S K A N",
  "K e p a l a"), as decrees set their enacting formula and signatures;
- `single_letter`: one letter that is not the left side of a formula; and a phrase held
  together by a lone letter the document gives no meaning ("M Tahun" of "No 161/M Tahun 1998",
  "Ridwan M" of "Ridwan M.Sc."): a one-letter symbol is a term only as a formula's left side
  or in a name the document defines ("Radionuklida Golongan T: adalah …");
- `identifier`: codes such as document numbers, and the label of an identifier or of a form's
  field: an abbreviation followed by a long number or a blank to fill in ("NIP.196501011990",
  "NIP : ........"); the same abbreviation in prose ("diisi NIP pejabat") stays a term;
- `structure`: names of document parts ("Purpose", "Tanggung Jawab", "Revisi Dokumen");
- `organisation`: the issuer and its units and roles: a name after a legal form ("PT …"),
  a phrase in the running header, a phrase headed by "Department", "Manager" …, or, as
  Indonesian names a government body head first, opened by "Kementerian", "Direktorat" …, and
  any short form paired with one of those;
- `boilerplate`: citation and enactment wording, every word of it from the language packs'
  list (`packs/<lang>/terms.json`), numbers and numbering aside: "Undang-Undang Nomor",
  "Tambahan Lembaran Negara Republik", "Menetapkan", "Pasal 5", "Pasal I"; and the title of a
  cited instrument, opening with one of the packs' citation heads ("Peraturan Menteri Keuangan
  Nomor"), or the title of one cited by number and year, wherever it stands ("… Nomor 2 Tahun
  2014 tentang Perizinan Instalasi Nuklir"; the packs' `citation_*_words`); and a word in
  capitals that OCR misread from a boilerplate word ("FRESIDEN");
- `numeral`: a bare roman numeral ("II", "XIV"), and digits OCR read as letters ("OOO",
  "O2O", "l2l") count as `number`;
- `shouted`: words in capitals that are not acronyms: a run of them with a long word
  ("PENGAWAS TENAGA NUKLIR"), or a word the document also writes in lowercase ("NOMOR"; each
  part of a compound: "INSTRUKSI/KEGIATAN");
- `fragment`: a piece of a clause, not a name: it ends on a word that needs what follows
  ("pemecahan dan", "luka yang", "proses yang digunakan pada"), opens with a conjunction or a
  subordinator ("Apabila radiasi eksterna", "For the TCP-Only Case"), or holds a modal verb or
  a demonstrative ("tambang harus dilakukan", "Ketentuan ini"), or its last word points back
  at something named before ("turunannya": its derivatives); the words are the packs'
  (`dangling`, `clause_openers`, `clause_words`, `reference_suffixes`);
- `signatory`: on the line naming who signs: the line after a signature mark ("ttd.") or after
  the signing office in capitals ending in a comma ("MENTERI KEUANGAN REPUBLIK INDONESIA,"),
  and a short line with a personal title or degree ("Dr. … M.Sc."), the packs'
  `signature_marks` and `personal_titles`;
- `section_title`, judged after clustering (`terms/section_titles.py`): every mention of the
  cluster in its own section heading, and no definition naming it.

A name the document defines (a definition candidate's term, short form or other-language
name) is a term whatever it looks like; only page furniture and a passage addressing a model
drop it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import cache
from typing import Literal

from rapidfuzz import fuzz, process

from knowledge_assets.candidates.lexicon import (
    CURRENCIES,
    LEGAL_FORMS,
    ORGANISATION_HEADS,
    ORGANISATION_OPENERS,
    STRUCTURE_WORDS,
    UNITS,
)
from knowledge_assets.candidates.packs import cues
from knowledge_assets.contracts import Chunk, ParsedPage
from knowledge_assets.terms.discovery import Discovery
from knowledge_assets.terms.mentions import Mention
from knowledge_assets.terms.tokens import (
    ChunkWords,
    chunk_words,
    collapse,
    is_acronym,
    is_number,
    is_stopword,
    iter_lines,
    key_words,
    term_key,
    tokens,
    word_key,
)
from knowledge_assets.verify.instructions import addressed_passages

NoiseReason = Literal[
    "page_furniture", "addresses_model", "number", "unit", "stopword", "letter_spaced", "single_letter",
    "identifier", "structure", "organisation", "boilerplate", "numeral", "shouted", "fragment", "signatory",
    "section_title",
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
_MIN_SPACED_LETTERS = 3
_COMPOUND_JOINERS = re.compile(r"[/-]")
# A boilerplate word as OCR misreads it: long, and alike by rapidfuzz's ratio ("FRESIDEN").
_MISREAD_MIN_LETTERS = 6
_MISREAD_RATIO = 80
# A word long enough to carry a suffix rather than end in its letters ("tanya" is a word, "lainnya" is "lain" + "nya").
_MIN_SUFFIXED_LETTERS = 7
# A numbering after a document part's name: digits, as OCR reads them too, a roman numeral, a letter.
_NUMBERING = re.compile(r"[\dOolI]+|[IVXLC]+|[^\W\d_]")
# After an identifier's label: its number (six digits at least, unbroken, as no quantity is
# written) or a form's blank, with the label's own stop or colon between.
_IDENTIFIER_FOLLOWS = re.compile(r"[ \t]*[.:]?[ \t]*(?:\d{6,}|[.…_]{3,})")
# A signatory's name is short; with degrees and titles it runs longer ("Prof. Dr. Ir. … M.Sc.").
_MAX_NAME_WORDS = 6
_MAX_TITLED_NAME_WORDS = 10
_MAX_TITLE_CHARS = 160


def line_shape(line: str) -> str:
    """A line with its numbers blanked, so "Halaman 3 dari 9" repeats as "halaman # dari #"."""
    return _DIGITS.sub("#", collapse(line)).lower()


def page_furniture(pages: list[ParsedPage]) -> frozenset[str]:
    """The shapes of the lines the document repeats at the top or bottom of its pages."""
    counts: Counter[str] = Counter()
    for page in pages:
        counts.update({line_shape(line) for line in edge_lines(page.text)})
    threshold = max(2, math.ceil(len(pages) * _FURNITURE_SHARE))
    return frozenset(shape for shape, count in counts.items() if count >= threshold)


def edge_lines(text: str) -> list[str]:
    """The first and the last `_EDGE_LINES` non-blank lines of a page's text (they may be the
    same lines), found from each end rather than by splitting the page: a text file is one page."""
    head: list[str] = []
    start = 0
    while len(head) < _EDGE_LINES and start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if (line := text[start:end]).strip():
            head.append(line)
        start = end + 1
    tail: list[str] = []
    end = len(text)
    while len(tail) < _EDGE_LINES and end >= 0:
        start = text.rfind("\n", 0, end) + 1
        if (line := text[start:end]).strip():
            tail.append(line)
        end = start - 1
    return head + tail[::-1]


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
    addressed = {chunk.chunk_id: [(s, e) for s, e, _ in addressed_passages(chunk.text)] for chunk in chunks}
    texts = {chunk.chunk_id: chunk.text for chunk in chunks}
    names = {chunk.chunk_id: _signatory_lines(chunk.text) for chunk in chunks}
    cited = {chunk.chunk_id: _cited_titles(chunk.text) for chunk in chunks}
    issuer = _issuer_keys(found, spans)
    words_of = chunk_words(chunks) if words_of is None else words_of
    spellings = {t.text for chunk in chunks for t in words_of[chunk.chunk_id]}
    lowercase = frozenset(word.lower() for word in spellings if not word.isupper())
    defined = found.defined_keys
    # Past the context of a mention (furniture, a passage addressing a model, a signature, an
    # identifier's label) the verdict depends on the surface alone, and a document repeats its
    # surfaces: each distinct surface is judged once.
    verdicts: dict[str, NoiseReason | None] = {}
    screened = []
    for m in mentions:
        furniture_here = spans[m.chunk_id]
        if furniture_here and _within(m, furniture_here):
            reason: NoiseReason | None = "page_furniture"
        elif addressed[m.chunk_id] and _overlaps(m, addressed[m.chunk_id]):
            reason = "addresses_model"
        else:
            if m.surface not in verdicts:
                verdicts[m.surface] = _surface_reason(m.surface, issuer, found.symbol_keys, defined, lowercase)
            reason = verdicts[m.surface]
            if reason is None and term_key(m.surface) not in defined:
                reason = _context_reason(m, texts[m.chunk_id], names[m.chunk_id], cited[m.chunk_id])
        # A kept mention is itself again, not a copy: a long document's mentions are held once.
        screened.append(m if reason == m.noise else m.judged(reason))
    return screened


def _signatory_lines(text: str) -> list[tuple[int, int]]:
    """The lines of `text` that name a signatory: the short line after a signature mark
    ("ttd.") or after the signing office, in capitals and ending in a comma; and a short line
    with a personal title or degree ("Dr. Mohammad … M.Sc."). Decrees and letters of both
    languages sign so."""
    lines: list[tuple[int, int]] = []
    signing = False
    for start, line in iter_lines(text):
        stripped = line.strip()
        if not stripped:
            continue
        titled = _titles().search(stripped) is not None
        if signing or titled:
            count = len(tokens(stripped))
            if count <= (_MAX_TITLED_NAME_WORDS if titled else _MAX_NAME_WORDS):
                lines.append((start, start + len(line)))
        signing = stripped.lower() in _signature_marks() or _is_signing_office(stripped)
    return lines


def _is_signing_office(line: str) -> bool:
    if not line.endswith(","):
        return False
    letters = [c for c in line if c.isalpha()]
    return bool(letters) and all(c.isupper() for c in letters)


def _cited_titles(text: str) -> list[tuple[int, int]]:
    """The titles of the instruments a text cites by number and year: "Peraturan Pemerintah Nomor
    54 Tahun 2012 tentang Keselamatan dan Keamanan Instalasi Nuklir (Lembaran …" up to the
    bracket, comma, colon, semicolon or full stop that ends it."""
    return [match.span("title") for match in _citation().finditer(text)]


@cache
def _citation() -> re.Pattern[str]:
    pack = cues("terms")

    def words(name: str) -> str:
        return "(?:" + "|".join(re.escape(w) for w in sorted(pack.get(name, ()), key=len, reverse=True)) + ")"

    number = rf"(?<!\w){words('citation_number_words')}\s+[\w./-]+\s+{words('citation_year_words')}\s+\d{{4}}"
    title = rf"(?P<title>[^;:,()]{{1,{_MAX_TITLE_CHARS}}}?)(?=\s*(?:[;:,()]|\.\s|\n\s*\n|$))"
    return re.compile(rf"{number}\s*,?\s+{words('citation_subject_words')}\s+{title}", re.IGNORECASE)


def _context_reason(
    mention: Mention, text: str, names: list[tuple[int, int]], cited: list[tuple[int, int]]
) -> NoiseReason | None:
    if names and _within(mention, names):
        return "signatory"
    if cited and _within(mention, cited):
        return "boilerplate"
    if _IDENTIFIER_FOLLOWS.match(text, mention.end) and _is_abbreviation(mention.surface):
        return "identifier"
    return None


def _is_abbreviation(surface: str) -> bool:
    """An identifier's or a field's label is one abbreviation: "NIP", "NPWP", "NIK"."""
    words = tokens(surface)
    return len(words) == 1 and is_acronym(words[0].text)


def _within(mention: Mention, spans: list[tuple[int, int]]) -> bool:
    return any(start <= mention.start and mention.end <= end for start, end in spans)


def _overlaps(mention: Mention, spans: list[tuple[int, int]]) -> bool:
    return any(start < mention.end and mention.start < end for start, end in spans)


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
    if all(is_number(w) or _MISREAD_DIGITS.fullmatch(w) or _is_number_word(w) for w in words):
        return "number"
    if len(words) == 1 and _ROMAN_NUMERAL.fullmatch(words[0]):
        return "numeral"
    if _is_unit(surface):
        return "unit"
    if all(is_stopword(w) for w in words):
        return "stopword"
    if len(words) >= _MIN_SPACED_LETTERS and all(len(w) == 1 for w in words):
        return "letter_spaced"
    if _one_letter_without_meaning(surface, words, symbols):
        return "single_letter"
    if _DIGIT_RUN.search(surface):
        return "identifier"
    if keys[0] in STRUCTURE_WORDS or keys[-1] in STRUCTURE_WORDS:
        return "structure"
    if term_key(surface) in issuer or _names_organisation(keys):
        return "organisation"
    if _is_boilerplate(words, keys) or (len(keys) > 1 and keys[0] in _citation_heads()):
        return "boilerplate"
    if _is_misread_boilerplate(words):
        return "boilerplate"
    if _is_shouted(words, lowercase):
        return "shouted"
    if _is_fragment(words):
        return "fragment"
    return None


def _one_letter_without_meaning(surface: str, words: list[str], symbols: frozenset[str]) -> bool:
    """One letter alone, or a lone letter inside a phrase, that no formula gives a meaning."""
    if sum(c.isalnum() for c in surface) == 1:
        return term_key(surface) not in symbols
    return len(words) > 1 and any(
        len(w) == 1 and w.isalpha() and not is_stopword(w) and word_key(w) not in symbols for w in words
    )


def _is_boilerplate(words: list[str], keys: list[str]) -> bool:
    """Every word from the packs' boilerplate, but for the numbering of a part ("Pasal 5")."""
    boilerplate = _boilerplate()
    return any(key in boilerplate for key in keys) and all(
        key in boilerplate or _NUMBERING.fullmatch(word) for word, key in zip(words, keys)
    )


def _is_fragment(words: list[str]) -> bool:
    lowered = [w.lower() for w in words]
    if len(lowered[-1]) >= _MIN_SUFFIXED_LETTERS and lowered[-1].endswith(_reference_suffixes()):
        return True
    pack = _fragment_words()
    return len(words) > 1 and (
        lowered[-1] in pack["dangling"]
        or lowered[0] in pack["clause_openers"]
        or any(w in pack["clause_words"] for w in lowered)
        or _is_gerund_clause(lowered, pack)
    )


_MIN_GERUND_LETTERS = 6


def _is_gerund_clause(lowered: list[str], pack: dict[str, frozenset[str]]) -> bool:
    """`Building a health model`, `Recommendations for defining targets`: a verb's -ing form
    with its object's determiner after it, or a preposition before it, makes a clause (a task,
    a section's title), not a name; `Blasting pattern` and `Loading time` stay names."""
    gerunds = [i for i, w in enumerate(lowered) if len(w) >= _MIN_GERUND_LETTERS and w.endswith("ing")]
    return any((i + 1 < len(lowered) and lowered[i + 1] in pack["gerund_followers"])
               or (i > 0 and lowered[i - 1] in pack["gerund_leaders"]) for i in gerunds)


@cache
def _number_words() -> frozenset[str]:
    return frozenset(w.lower() for w in cues("terms").get("number_words", ()))


def _is_number_word(word: str) -> bool:
    """A number spelt out ("seratus dua puluh", "lima belas persen", "twenty"); an acronym that
    spells one ("TEN") is read as an acronym."""
    return not is_acronym(word) and word.lower() in _number_words()


@cache
def _fragment_words() -> dict[str, frozenset[str]]:
    terms = cues("terms")
    names = ("dangling", "clause_openers", "clause_words", "gerund_followers", "gerund_leaders")
    return {name: frozenset(w.lower() for w in terms.get(name, ())) for name in names}


@cache
def _reference_suffixes() -> tuple[str, ...]:
    """Endings that point back at something named before ("turunannya": "its derivatives")."""
    return cues("terms").get("reference_suffixes", ())


@cache
def _signature_marks() -> frozenset[str]:
    return frozenset(mark.lower() for mark in cues("terms").get("signature_marks", ()))


@cache
def _titles() -> re.Pattern[str]:
    titles = sorted(cues("terms").get("personal_titles", ()), key=len, reverse=True)
    return re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, titles)) + r")(?!\w)")


@cache
def _boilerplate() -> frozenset[str]:
    return frozenset(word_key(w) for w in cues("terms").get("boilerplate", ()))


@cache
def _citation_heads() -> frozenset[str]:
    """Words a cited instrument's title opens with: "Peraturan Menteri Keuangan Nomor …"."""
    return frozenset(word_key(w) for w in cues("terms").get("citation_heads", ()))


def _is_shouted(words: list[str], lowercase: frozenset[str]) -> bool:
    """Capitals typed for emphasis, not an acronym: several with a long word among them, or
    one the document also writes in lowercase, a compound's parts each ("INSTRUKSI/KEGIATAN")."""
    if not words or not all(w.isupper() for w in words):
        return False
    if len(words) > 1:
        return any(len(w) >= _SHOUTED_MIN_LETTERS for w in words)
    word = words[0].lower()
    if len(word) >= _SHOUTED_MIN_LETTERS and word in lowercase:
        return True
    parts = _COMPOUND_JOINERS.split(word)
    return len(parts) > 1 and all(len(part) >= _SHOUTED_MIN_LETTERS and part in lowercase for part in parts)


def _is_misread_boilerplate(words: list[str]) -> bool:
    """A word in capitals that OCR misread from a boilerplate word: "FRESIDEN", "REPUELIK"."""
    if len(words) != 1 or not words[0].isupper() or len(words[0]) < _MISREAD_MIN_LETTERS:
        return False
    return process.extractOne(words[0].lower(), _boilerplate(), scorer=fuzz.ratio,
                              score_cutoff=_MISREAD_RATIO) is not None


def _is_unit(surface: str) -> bool:
    """ "jam", "BCM/jam" (a quantity per unit of time is a unit too), "jam Rp", and money:
    a currency alone or glued to its amount ("USD2")."""
    parts = collapse(surface).lower().split("/")
    if len(parts) <= 2 and parts[-1] in UNITS:
        return True
    words = collapse(surface).lower().split()
    return any(_money(word) for word in words) and all(word in UNITS or _money(word) for word in words)


def _money(word: str) -> bool:
    return word.rstrip("0123456789.,") in CURRENCIES


def _names_organisation(keys: list[str]) -> bool:
    return keys[-1] in ORGANISATION_HEADS or (len(keys) > 1 and (keys[0] in LEGAL_FORMS or
                                                                 keys[0] in _organisation_openers()))


@cache
def _organisation_openers() -> frozenset[str]:
    return frozenset(word_key(w) for w in ORGANISATION_OPENERS)


def read_candidates(candidates: list[Mention]) -> list[Mention]:
    """Of discovery's candidates, those `screen` reads (`_issuer_keys`): every organisation and
    phrase, and one of each other surface. Once the occurrences are found, the funnel holds these
    only, not the 490,000 candidates of a 50 MB text, and the verdicts are the same."""
    one_each = {m.surface: m for m in candidates}
    return [m for m in candidates if m.kind in ("organisation", "phrase")] + list(one_each.values())


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
