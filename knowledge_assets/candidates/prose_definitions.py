"""Definitions in the running prose of a specification: English sentences that say what a
term is without a glossary's layout or a statute's `X means …`. One finder per convention:

- variable: a pseudo-code variable glossed next to its code, `TotalNumberOfInserts is the
  total number of …`, `Here MaxEntries is the …`: a CamelCase or snake_case identifier that
  a code line of the document (a line with `=`) also holds, opening a sentence with
  `is/are` and an article;
- opening: a section's first sentence restating its heading as its subject, the way
  specifications open the section that introduces a concept: `3.1. Static Table` then
  `The static table consists of …`, `Dynamic Table Size` then `The size of the dynamic table
  is the …`;
- generic: a sentence `A/An X is a/an Y …`, the genus-and-difference form (`A hex digit is an
  element of …`, a list item `An encoder stream is a unidirectional stream …`);
- quoted: a sentence opening with the quoted term, `"SHA-512/t" is the general name for …`;
- appositive: a term introduced with an indefinite article and glossed in apposition,
  `… maintain a draining index, which is the smallest …`, or a capitalised term
  `… contains a Required Insert Count (Section 4.5.1), the lowest possible value …` (in a
  main clause only: `If it receives an Insert Count Increment, the encoder …` glosses
  nothing).

The definition is the whole sentence the term is defined in. Cue words are data
(`packs/<lang>/prose_definitions.json`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from knowledge_assets.candidates.lexicon import CONNECTORS, STOPWORDS
from knowledge_assets.candidates.model import Candidate, span, trim
from knowledge_assets.candidates.packs import cues
from knowledge_assets.candidates.source import SourceChunk

_MAX_SENTENCE_CHARS = 1000
_MAX_TERM_WORDS = 4
_MAX_OPENING_SUBJECT_WORDS = 6
_MIN_DEFINITION_WORDS = 3

_WORD = r"[^\W\d_][\w-]*"
_CAPITALISED = r"[A-Z][\w-]*"
# `MaxEntries`, `kInitialRtt`, `min_rtt`: a lowercase letter before a capital, or a joiner.
_IDENTIFIER = re.compile(r"(?<!\w)[A-Za-z][A-Za-z0-9]*(?:[a-z0-9][A-Z]|_[A-Za-z0-9])[A-Za-z0-9_]*(?!\w)")
# Where a sentence ends: a full stop before the end, or before whitespace and what is neither
# lowercase nor a digit (`i.e., …`, `Section 4.5.1` do not end one); a blank line.
_SENTENCE_END = re.compile(r"[.!?](?=\s*$|\s+[^\sa-z0-9])|\n[ \t]*\n")
# What a sentence may open after: a sentence's end, a blank line, a list marker.
_SENTENCE_BOUNDARY = re.compile(
    r"[.!?:][\"”’)\]]?\s+|\n[ \t]*\n\s*|(?m:^[ \t]*(?:[-*•+]|\d{1,3}[.)]|\(?[a-z]\))[ \t]+)"
)
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n[ \t]*$")
_LIST_MARKER_LINE = re.compile(r"[ \t]*(?:[-*•+]|\d{1,3}[.)]|\(?[a-z]\))[ \t]+")


def code_names(chunks: Sequence[SourceChunk]) -> frozenset[str]:
    """The identifiers the document's code lines (lines with `=`) hold, read from the chunks'
    own text: the variables its prose may gloss."""
    return frozenset(m.group() for chunk in chunks for line in chunk.text.splitlines() if "=" in line
                     for m in _IDENTIFIER.finditer(line))


def prose_definitions(chunk: SourceChunk, text: str, heading_end: int = 0,
                      variables: frozenset[str] = frozenset()) -> list[Candidate]:
    """The chunk's prose definitions, never two over one stretch of text, in document order.
    `text` is the chunk's text with code blanked (same offsets); `variables` are the
    document's `code_names`."""
    found: list[Candidate] = []
    # In this order where two overlap: the surer convention first.
    for candidate in (*_variables(chunk.chunk_id, text, variables, heading_end),
                      *_opening(chunk.chunk_id, text, heading_end),
                      *_generic(chunk.chunk_id, text, heading_end),
                      *_quoted(chunk.chunk_id, text, heading_end),
                      *_appositives(chunk.chunk_id, text, heading_end)):
        if not any(candidate.start < other.end and other.start < candidate.end for other in found):
            found.append(candidate)
    return sorted(found, key=lambda c: c.start)


# ---------------------------------------------------------------------------------- cue words


def _alternatives(key: str) -> str:
    words = sorted(cues("prose_definitions").get(key, ()), key=len, reverse=True)
    return "|".join(r"\s+".join(map(re.escape, w.split())) for w in words) or "(?!)"


@cache
def _patterns() -> dict[str, re.Pattern[str]]:
    copula = _alternatives("copulas")
    article = f"(?:{_alternatives('indefinite_articles')}|{_alternatives('definite_articles')})"
    indefinite = f"(?:{_alternatives('indefinite_articles')})"
    return {
        "variable": re.compile(
            rf"(?:(?:{_alternatives('sentence_adverbs')}),?\s+)?(?P<term>(?-i:{_IDENTIFIER.pattern}))"
            rf"\s+(?:{copula})\s+{article}\s+\w",
            re.IGNORECASE,
        ),
        "opening": re.compile(
            rf"{article}\s+(?P<term>{_WORD}(?:\s+{_WORD}){{0,{_MAX_OPENING_SUBJECT_WORDS - 1}}}?)"
            rf"\s+(?:(?:{copula})\s+{article}|{_alternatives('composition_copulas')})\s+\w",
            re.IGNORECASE,
        ),
        "generic": re.compile(
            rf"{indefinite}\s+(?P<term>{_WORD}(?:\s+{_WORD}){{0,{_MAX_TERM_WORDS - 1}}}?)"
            rf"\s+(?:{copula})\s+{indefinite}\s+\w",
            re.IGNORECASE,
        ),
        "quoted": re.compile(
            rf"[\"“](?P<term>[^\s\"“”][^\"“”\n]{{0,40}})[\"”]\s+(?:{copula})\s+{article}\s+\w", re.IGNORECASE
        ),
        "relative": re.compile(
            rf"\b{indefinite}\s+(?P<term>{_WORD}(?:\s+{_WORD}){{0,{_MAX_TERM_WORDS - 1}}}),\s+"
            rf"(?:{_alternatives('relatives')})\s+{article}\s+\w",
            re.IGNORECASE,
        ),
        "apposed": re.compile(
            rf"\b(?-i:{indefinite})\s+(?P<term>(?-i:{_CAPITALISED}(?:\s+{_CAPITALISED}){{1,{_MAX_TERM_WORDS - 1}}}))"
            rf"(?:\s*\([^()\n]{{1,40}}\))?,\s+(?-i:{_alternatives('definite_articles')})\s+\w",
            re.IGNORECASE,
        ),
    }


@cache
def _subordinators() -> frozenset[str]:
    return frozenset(w.lower() for w in cues("prose_definitions").get("subordinators", ()))


@cache
def _articles() -> frozenset[str]:
    pack = cues("prose_definitions")
    return frozenset(w.lower() for w in (*pack.get("indefinite_articles", ()), *pack.get("definite_articles", ())))


# ---------------------------------------------------------------------------------- sentences


def _opens_sentence(text: str, position: int, floor: int) -> bool:
    """Whether a sentence opens at `position`: the chunk's start (past its heading), after a
    finished sentence, a blank line or a list marker."""
    before = text[floor:position]
    if not before.strip() or before.rstrip()[-1] in ".!?:" or _PARAGRAPH_BREAK.search(before):
        return True
    line_start = text.rfind("\n", floor, position) + 1
    return bool(_LIST_MARKER_LINE.fullmatch(text, max(line_start, floor), position))


def _sentence_start(text: str, position: int, floor: int) -> int:
    """Where the sentence holding `position` opens, or -1 when that is too far back."""
    window = max(floor, position - _MAX_SENTENCE_CHARS)
    starts = [m.end() for m in _SENTENCE_BOUNDARY.finditer(text, window, position) if m.end() <= position]
    if starts:
        return starts[-1]
    return floor if window == floor else -1


def _sentence_end(text: str, position: int) -> int:
    """Where the sentence going on at `position` ends (its full stop included), or -1."""
    stop = _SENTENCE_END.search(text, position, min(len(text), position + _MAX_SENTENCE_CHARS))
    if stop is None:
        return -1
    return stop.end() if stop.group()[0] in ".!?" else stop.start()


def _sentence(chunk_id: str, text: str, start: int, after: int, cue: str, term: tuple[int, int]) -> Candidate | None:
    """The candidate for the sentence from `start`, the defining words running on from `after`."""
    end = _sentence_end(text, after)
    if end < 0:
        return None
    start, end = trim(text, start, end)
    if len(re.findall(r"\w+", text[after:end])) < _MIN_DEFINITION_WORDS:
        return None
    parts = [("term", *term, None), ("definition", start, end, None)]
    return span("definition", chunk_id, text, start, end, cue, parts)


def _plain_term(words: list[str]) -> bool:
    """A name of a few content words: no function word (`the value of 0` is not one)."""
    return bool(words) and all(w.lower() not in STOPWORDS for w in words)


# ---------------------------------------------------------------------------------- finders


def _variables(chunk_id: str, text: str, code: frozenset[str], floor: int) -> list[Candidate]:
    """`Ident is the/a …` opening a sentence, the identifier also in a code line."""
    found = []
    for match in _patterns()["variable"].finditer(text, floor):
        term = match.group("term")
        line = text[text.rfind("\n", 0, match.start()) + 1 : match.end()]
        if term not in code or "=" in line or not _opens_sentence(text, match.start(), floor):
            continue
        if (candidate := _sentence(chunk_id, text, match.start(), match.end("term"), "variable", match.span("term"))):
            found.append(candidate)
    return found


def _opening(chunk_id: str, text: str, heading_end: int) -> list[Candidate]:
    """The first sentence under the chunk's heading, its subject the heading's name."""
    if not heading_end:
        return []
    heading = text[text.rfind("\n", 0, heading_end) + 1 : heading_end]
    body = re.compile(r"\s*").match(text, heading_end).end()
    match = _patterns()["opening"].match(text, body)
    if match is None or _content_words(match.group("term")) != _content_words(heading):
        return []
    candidate = _sentence(chunk_id, text, match.start(), match.end("term"), "opening", match.span("term"))
    return [candidate] if candidate else []


def _content_words(phrase: str) -> frozenset[str]:
    """The words of a name, numbering, articles and connectors left out, each singular."""
    words = [w.lower() for w in re.findall(_WORD, phrase)]
    return frozenset(w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words
                     if w not in _articles() and w not in CONNECTORS)


def _generic(chunk_id: str, text: str, floor: int) -> list[Candidate]:
    """`A/An X is a/an Y …` opening a sentence: the genus-and-difference definition."""
    found = []
    for match in _patterns()["generic"].finditer(text, floor):
        if not _plain_term(match.group("term").split()) or not _opens_sentence(text, match.start(), floor):
            continue
        if (candidate := _sentence(chunk_id, text, match.start(), match.end("term"), "generic", match.span("term"))):
            found.append(candidate)
    return found


def _quoted(chunk_id: str, text: str, floor: int) -> list[Candidate]:
    """`"X" is the/a …` opening a sentence: the term named in quotation marks."""
    found = []
    for match in _patterns()["quoted"].finditer(text, floor):
        term = match.group("term")
        if term != term.strip() or re.search(r"[.,;:!?]\s", term) or not _opens_sentence(text, match.start(), floor):
            continue
        if (candidate := _sentence(chunk_id, text, match.start(), match.end("term"), "quoted", match.span("term"))):
            found.append(candidate)
    return found


def _appositives(chunk_id: str, text: str, floor: int) -> list[Candidate]:
    """`a X, which is the …` and, in a main clause, `a Capitalised Term (ref), the …`: the
    sentence holding the apposition."""
    found = []
    patterns = _patterns()
    matches = [(m, False) for m in patterns["relative"].finditer(text, floor)]
    matches += [(m, True) for m in patterns["apposed"].finditer(text, floor)]
    for match, bare in sorted(matches, key=lambda pair: pair[0].start()):
        if not _plain_term(match.group("term").split()):
            continue
        start = _sentence_start(text, match.start(), floor)
        if start < 0:
            continue
        if bare:
            lead = text[start : match.start()]
            first_word = lead.split()[0].lower() if lead.split() else ""
            if "," in lead or first_word in _subordinators():
                continue  # `If it receives a Section Acknowledgment, the encoder …`
        if (candidate := _sentence(chunk_id, text, start, match.end("term"), "appositive", match.span("term"))):
            found.append(candidate)
    return found
