"""Definitions laid out in columns: a short term at the start of a line, the definition beside
it, the lines that continue the definition indented under it. Two conventions:

- hanging: the plain-text RFC list `Term:  definition` whose entry is one paragraph, every line
  after the first indented deeper than the label (xml2rfc's hanging list). The whole paragraph
  is the entry: a definition of several sentences is cut nowhere inside.
- column: the two-column glossary or list of parameters and symbols of a standard
  (`Bit        A binary digit …`, `ROTR n(x)   The rotate right … operation`), under a
  heading that names it a glossary (`Glossary`, `Symbols`, `Parameters`, …). A PDF's text layer
  may keep the column gap as a run of spaces or lose it to one space; with one space, the term
  ends before the capitalised word that opens the definition (`Kt Constant value …`). An
  acronym list's row (`NIST   National Institute of …`) spells out a short name and defines
  nothing: it is left to the abbreviation finders.

Both read paragraphs, runs of lines between blank lines, so an entry ends at a blank line (or
at a line that opens the next entry after a finished sentence). Cue words are data
(`packs/<lang>/column_definitions.json`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from knowledge_assets.candidates.lexicon import STOPWORDS
from knowledge_assets.candidates.model import Candidate, span, trim
from knowledge_assets.candidates.packs import cues
from knowledge_assets.candidates.source import SourceChunk

_MAX_LABEL_WORDS = 5
_MAX_COLUMN_TERM_TOKENS = 3
_MAX_ENTRY_CHARS = 1500
_MIN_BODY_WORDS = 2

Line = tuple[int, int]

# `Insert Count:  The total …` at a paragraph's first line; the body opens on the same line.
_HANGING_LABEL = re.compile(r"(?P<indent>[ \t]*)(?P<label>[^\W_](?:[^:\n]{0,60}\S)?):[ \t]+(?=\S)")
# A term, then the column gap (two spaces or more, or a tab), then the definition.
_GAP_ENTRY = re.compile(r"(?P<indent>[ \t]*)(?P<term>\S+(?: \S+){0,2}?)(?: {2,}|\t)[ \t]*(?=\S)")
_LABEL_WORD = re.compile(r"[^\W_][\w'’/-]*")
_TERM_TOKEN = re.compile(r"[^\W\d_][\w()\[\]{}/'’.+-]*|\d[\w()\[\]{}/'’.+-]*[^\W\d_][\w()\[\]{}/'’.+-]*")
# A definition opens with a capitalised word (`A`, `The`, `Number`), or a quote or parenthesis.
_BODY_OPENING = re.compile(r"[\"“'(]?[A-Z]")
_CAPITALISED_WORD = re.compile(r"[A-Z][a-z-]*")
_SHORT_NAME = re.compile(r"(?P<name>.+?)[ \t]*\((?P<short>[A-Z][\w/-]{0,9})\)")


def column_definitions(chunk: SourceChunk, text: str, heading_end: int = 0) -> list[Candidate]:
    """The chunk's hanging entries and, under a glossary heading, its two-column entries, in
    document order. `text` is the chunk's text with code blanked (same offsets)."""
    found = []
    in_glossary = bool(chunk.heading_path) and _names_a_glossary(chunk.heading_path[-1])
    for paragraph in _paragraphs(text, heading_end):
        entry = _hanging_entry(chunk.chunk_id, text, paragraph)
        if entry is not None:
            found.append(entry)
        elif in_glossary:
            found += _column_entries(chunk.chunk_id, text, paragraph)
    return found


# ---------------------------------------------------------------------------------- cue words


@cache
def _cue_words(key: str) -> frozenset[str]:
    return frozenset(w.lower() for w in cues("column_definitions").get(key, ()))


@cache
def _not_terms() -> frozenset[str]:
    """Words that name a part of a document or a remark (`Note`, `Figure`), never a term."""
    return frozenset(w.lower() for w in cues("definitions").get("not_terms", ()))


def _names_a_glossary(heading: str) -> bool:
    return any(word in _cue_words("glossary_headings") for word in re.findall(r"[^\W\d_]+", heading.lower()))


# ---------------------------------------------------------------------------------- paragraphs


def _paragraphs(text: str, start: int) -> Iterator[list[Line]]:
    """The runs of non-blank lines from `start`, each as its lines' bounds."""
    paragraph: list[Line] = []
    position = start
    while position < len(text):
        line_end = text.find("\n", position)
        line_end = len(text) if line_end < 0 else line_end
        if text[position:line_end].strip():
            paragraph.append((position, line_end))
        elif paragraph:
            yield paragraph
            paragraph = []
        position = line_end + 1
    if paragraph:
        yield paragraph


def _indent(text: str, line: Line) -> int:
    content = text[line[0] : line[1]]
    return len(content) - len(content.lstrip(" \t"))


# ---------------------------------------------------------------------------------- hanging


def _hanging_entry(chunk_id: str, text: str, paragraph: list[Line]) -> Candidate | None:
    """`Label:  definition` whose paragraph hangs: two lines or more, every later line
    indented deeper than the label. A one-line entry is the `Term: definition` list's own."""
    first = paragraph[0]
    match = _HANGING_LABEL.match(text, first[0], first[1])
    if match is None or len(paragraph) < 2:
        return None
    label_indent = len(match.group("indent"))
    if any(_indent(text, line) <= label_indent for line in paragraph[1:]):
        return None
    if not _BODY_OPENING.match(text, match.end()) and not text[match.end()].isalpha():
        return None
    label_start, label_end = match.start("label"), match.end("label")
    label = text[label_start:label_end]
    short = None
    if named := _SHORT_NAME.fullmatch(label):
        short = (label_start + named.start("short"), label_start + named.end("short"))
        label_end = label_start + named.end("name")
    if not _names_a_label(text[label_start:label_end]):
        return None
    start, end = trim(text, label_start, _before_value_statement(text, match.end(), paragraph[-1][1]))
    if text[end - 1] not in _ENTRY_ENDS:
        # The chunk ends inside the entry: the entry is its finished sentences.
        breaks = [b.start() for b in _SENTENCE_BREAK.finditer(text, match.end(), end)]
        if not breaks:
            return None
        end = breaks[-1]
    if end - start > _MAX_ENTRY_CHARS or len(text[match.end() : end].split()) < _MIN_BODY_WORDS:
        return None
    parts = [("term", label_start, label_end, None), ("definition", start, end, None)]
    if short is not None:
        parts += [("abbreviation", *short, None), ("expansion", label_start, label_end, None)]
    return span("definition", chunk_id, text, start, end, "hanging", parts)


_ENTRY_ENDS = ".:;!?)]\"”"
# A sentence ends at a full stop before whitespace and a capital.
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“(\[])")


def _before_value_statement(text: str, body: int, end: int) -> int:
    """Where the entry's description ends: before a later sentence that gives the entry's
    recommended or default value (`The value recommended in Section 6 is 3.`), a constant's
    setting rather than what it is; else at `end`."""
    for sentence in _SENTENCE_BREAK.finditer(text, body, end):
        following = _SENTENCE_BREAK.search(text, sentence.end(), end)
        words = re.findall(r"[^\W\d_]+", text[sentence.end() : following.start() if following else end].lower())
        if any(w in _cue_words("value_statements") for w in words):
            return sentence.start()
    return end


def _names_a_label(label: str) -> bool:
    """A glossary label: a name of a few words (`Field section`, `kInitialRtt`, `time_sent`),
    connectors only inside it, never a remark (`Note`) or a sentence."""
    words = label.split()
    if not 1 <= len(words) <= _MAX_LABEL_WORDS or not all(_LABEL_WORD.fullmatch(w) for w in words):
        return False
    lowered = [w.lower() for w in words]
    if lowered[0] in _not_terms() or " ".join(lowered) in _not_terms():
        return False
    if lowered[0] in STOPWORDS or lowered[-1] in STOPWORDS:
        return False
    return all(w not in STOPWORDS or w in _cue_words("label_connectors") for w in lowered[1:-1])


# ---------------------------------------------------------------------------------- column


def _column_entries(chunk_id: str, text: str, paragraph: list[Line]) -> list[Candidate]:
    """The two-column entries of one paragraph: usually one, more when the list has no blank
    lines between its entries. A later line opens an entry only after a finished sentence;
    otherwise it goes on with the entry above."""
    opened: list[tuple[int, tuple[int, int]]] = []
    for i, line in enumerate(paragraph):
        after_sentence = i == 0 or text[paragraph[i - 1][0] : paragraph[i - 1][1]].rstrip().endswith(".")
        if after_sentence and (term := _column_term(text, line)) is not None:
            opened.append((i, term))
    found = []
    for (_, term), (next_line, _) in zip(opened, [*opened[1:], (len(paragraph), None)]):
        start, end = trim(text, term[0], paragraph[next_line - 1][1])
        if end - start <= _MAX_ENTRY_CHARS:
            parts = [("term", *term, None), ("definition", start, end, None)]
            found.append(span("definition", chunk_id, text, start, end, "column", parts))
    return found


def _column_term(text: str, line: Line) -> tuple[int, int] | None:
    """The bounds of the term a line opens a two-column entry with, if it does: before the
    column gap, or, where one space is left of it, before the word that opens the definition."""
    gap = _GAP_ENTRY.match(text, line[0], line[1])
    if gap is not None and _is_column_term(gap.group("term")):
        body = gap.end()
        if _is_definition(text[gap.start("term") : gap.end("term")], text[body : line[1]]):
            return gap.start("term"), gap.end("term")
        return None
    tokens = [(m.start(), m.end()) for m in re.finditer(r"\S+", text[line[0] : line[1]])]
    tokens = [(line[0] + s, line[0] + e) for s, e in tokens]
    for k in range(1, min(_MAX_COLUMN_TERM_TOKENS, len(tokens) - 1) + 1):
        if _opens_definition(text, tokens, k):
            term = text[tokens[0][0] : tokens[k - 1][1]]
            # Without the gap a name's next capitalised word (`Dana Cadangan Desa …`) looks
            # like the definition's first: a term of words goes on only with a symbol (`n(x)`).
            if any(_CAPITALISED_WORD.fullmatch(word) for word in term.split()[1:]):
                return None
            if _is_column_term(term) and _is_definition(term, text[tokens[k][0] : line[1]]):
                return tokens[0][0], tokens[k - 1][1]
            return None
    return None


def _opens_definition(text: str, tokens: list[Line], k: int) -> bool:
    """Whether token `k` opens a definition: a capitalised word that is an article, or one
    the next word goes on from in lowercase (`Number of`, `Constant value`), never a name's
    next capitalised word (`Secure Hash Algorithm`)."""
    word = text[tokens[k][0] : tokens[k][1]]
    if not _CAPITALISED_WORD.fullmatch(word):
        return False
    if word.lower() in _cue_words("articles"):
        return True
    if k + 1 >= len(tokens):
        return False
    return not text[tokens[k + 1][0]].isupper()


def _is_column_term(term: str) -> bool:
    """`Bit`, `Kt`, `M(i)`, `ROTR n(x)`, `Degree of freedom`: tokens that open with a letter,
    parentheses balanced, no sentence punctuation at the end, no function word."""
    tokens = term.split()
    if not tokens or not all(_TERM_TOKEN.fullmatch(t) for t in tokens) or not term[0].isalpha():
        return False
    if term.count("(") != term.count(")") or term[-1] in ".,;:":
        return False
    lowered = [t.lower() for t in tokens]
    if lowered[0] in _not_terms() or lowered[0] in STOPWORDS or lowered[-1] in STOPWORDS:
        return False
    return all(t not in STOPWORDS or t in _cue_words("label_connectors") for t in lowered[1:-1])


def _is_definition(term: str, body: str) -> bool:
    """A definition opens capitalised and says something in words; an acronym's spelled-out
    name (`SHA   Secure Hash Algorithm.`) and a cross-reference (`See digest.`) are not one."""
    words = re.findall(r"[^\W\d_][\w'’-]*", body)
    if not _BODY_OPENING.match(body) or len(words) < _MIN_BODY_WORDS:
        return False
    if re.match(rf"(?:{'|'.join(map(re.escape, _cue_words('references')))})\b", body.lower()):
        return False  # `hash value   See digest.`: a cross-reference to another entry
    return not _spells_out(term, words)


def _spells_out(term: str, words: list[str]) -> bool:
    if not (term.isalpha() and term.isupper() and len(term) >= 2):
        return False
    initials = "".join(w[0] for w in words if w[0].isupper())
    return initials.upper().startswith(term)
