"""Definition candidates of web Markdown: reliability and KPI guides, operations handbooks and
blog posts mark the term they define with markup (a table column, bold, italics, a heading)
rather than with a defining verb; `X is a …` in plain prose would say nothing sure, so it
counts only where such a mark names X. One finder per convention:

- glossary table: a table whose header row names a term column and a definition column
  (`| Term | Definition |`); each row defines its term cell (`**Blast radius**`,
  `Service-level objective (SLO)`), from the term to the end of the definition cell, or to
  where that cell goes on to define another term (`… *Composite SLO* represents …`);
- markup label: a bulleted `- **Term**: definition` / `- **Term:** definition` item, the
  label and the item's first sentence, and the same label opening a paragraph under a
  glossary heading (`## Terminology`); an ordered list's bold labels name the steps of a
  procedure, not terms;
- heading label: a heading naming the term (`### 2. MTTD (Mean Time To Detection)`) over a
  paragraph opened by a definition label (`**Definition**: …`, `**What is it?** …`): the
  definition is the text after the label;
- emphasised subject: a sentence whose subject is an emphasised term, `*Composite SLO*
  represents …`, `An *incident* is an unplanned event …`, `A **green** state indicates …`;
  a bare `is`/`are` counts only before a determiner (`is a`, `are the`);
- heading subject: the same English `X is a …` as a section's first sentence whose subject is
  the term its heading names (`2.1.4. Known Received Count` then `The Known Received Count is
  the total number …`).

Every part is a verbatim slice: a term's bounds sit inside its markup, and a parenthesis gives
its short form (`(SLO)`), its long form (`MTTR (Mean Time To Recovery)`) or a second name
(`(hot fix)`). Cue words are data (`packs/<lang>/markup_definitions.json`). The finders share
the signature of those of `definitions.py`, which registers them (`MARKUP_FINDERS`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache

from knowledge_assets.candidates.lexicon import CONJUNCTIONS, CONNECTORS, STOPWORDS, STRUCTURE_WORDS
from knowledge_assets.candidates.model import Candidate, span, trim
from knowledge_assets.candidates.packs import cues
from knowledge_assets.candidates.text import line_matches, lines

Bounds = tuple[int, int]
Parts = list[tuple[str, int, int, None]]

_MAX_NAME_WORDS = 8
_MAX_SHORT_NAME_CHARS = 10
_MIN_DEFINITION_WORDS = 2


def _emphasis(before_close: str = "") -> str:
    """Emphasis as CommonMark reads it: `**bold**`, `*italic*`, `__bold__`, `_italic_`, never
    inside a word for underscores (`time_sent`) nor after a backslash; `before_close` may
    stand between the emphasised words and the closing marks (a label's colon)."""
    return (
        rf"(?<![\w*\\])(?P<open>\*\*|\*)(?P<inner>[^\s*](?:[^*\n]{{0,78}}?[^\s*])?){before_close}(?P=open)(?![\w*])"
        rf"|(?<![\w\\])(?P<uopen>__|_)(?P<uinner>[^\s_](?:[^_\n]{{0,78}}?[^\s_])?)(?P=uopen)(?!\w)"
    )


_EMPHASIS_SPAN = re.compile(_emphasis())
_MARKUP_PAIRS = ("**", "__", "*", "_", "`")
_PARENTHESIS = re.compile(r"(?P<name>[^()]+?)[ \t]*\((?P<inside>[^()]{1,60})\)")
_PIPE = re.compile(r"(?<!\\)\|")
_SEPARATOR_ROW = re.compile(r"[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*")
_SECTION_NUMBER = re.compile(r"[ \t]*(?:\d+(?:\.\d+)*\.?|[A-Z]\.|[IVXLC]+\.)[ \t]+")
# What may stand before a sentence at a line start: indentation, bullets, numbers, quote marks.
_LINE_LEAD = re.compile(r"[ \t]*(?:(?:[-*+•>]|\d{1,3}[.)])[ \t]+)*")
_ITEM_OPENS = r"\n(?=[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t])"
_ITEM_END = re.compile(r"\n[ \t]*\n|" + _ITEM_OPENS)
_PARAGRAPH_END = re.compile(r"\n[ \t]*\n|" + _ITEM_OPENS + r"|\n(?=[ \t]*(?:\||#|>|```|~~~))")
# A sentence ends at `.`, `!` or `?` before a line end, a table cell's end, or a capital.
_SENTENCE_END = re.compile(r"[.!?](?=[ \t]*(?:\n|$|\|)|[ \t]+[*_\"“'(\[]*[A-Z])")
_NOT_SENTENCE_ENDS = frozenset({"e.g", "i.e", "vs", "cf", "approx", "fig", "no"})
_BODY_OPENING = re.compile(r"[^\W\d_]|[\"“'(*_]")
# A run of four digits marks an identifier (a ticket, an advisory, a date), not a term.
_IDENTIFIER = re.compile(r"\d{4}")


def glossary_table_rows(chunk_id: str, text: str, heading_end: int = 0) -> list[Candidate]:
    """A table whose header names a term column and, after it, a definition column
    (`| Term | Definition |`, `|Istilah |Definisi |`): each row is a definition, from its
    term cell to the end of its definition cell, or to where that cell goes on to define
    another term. A table whose header names anything else (`| Role | Responsibility |`,
    `| SLA | Downtime per week |`) is not a glossary."""
    found = []
    rows = lines(text)
    for number, ((start, end), separator) in enumerate(zip(rows, rows[1:])):
        if "|" not in text[start:end] or separator[0] != end + 1 or not _SEPARATOR_ROW.fullmatch(text, *separator):
            continue
        columns = _glossary_columns([text[s:e] for s, e in _cells(text, start, end)])
        if columns is None:
            continue
        term_column, definition_column = columns
        previous_end = separator[1]
        for row_start, row_end in rows[number + 2 :]:
            if row_start != previous_end + 1 or "|" not in text[row_start:row_end]:
                break  # a table ends at a blank line or a line without a pipe
            previous_end = row_end
            cells = _cells(text, row_start, row_end)
            if len(cells) <= definition_column:
                continue
            term_start, term_end = cells[term_column]
            definition_start, definition_end = cells[definition_column]
            name = _name_parts(text, term_start, term_end)
            if name is None or not _defines(text, definition_start, definition_end):
                continue
            end = _before_next_definition(text, definition_start, definition_end)
            # The definition is its cell's text: the term cell and the pipe are table syntax.
            found.append(_candidate(chunk_id, text, (term_start, end), (definition_start, end), "glossary_table", name))
    return found


def markup_labels(chunk_id: str, text: str, heading_end: int = 0) -> list[Candidate]:
    """`- **Term**: definition`, `- **Term (ABBR):** definition`, `- *Term*: definition`: a
    bulleted item opened by an emphasised label, the definition the label and the item's first
    sentence; without a bullet only under a glossary heading. The label is a name as a
    glossary writes it, capitalised; a number opens a step of a procedure (`1. **Detection:**
    The team notices …`), an admonition a note (`**Risk:**`)."""
    found = []
    under_glossary = _is_glossary_heading(text[:heading_end])
    for match in line_matches(_markup_label(), ":", text):
        if bool(match.group("colon_in")) == bool(match.group("colon_out")):
            continue  # `**Term**:` or `**Term:**`, one colon
        if not (match.group("bullet") or under_glossary) or match.start() < heading_end:
            continue
        label_start, label_end = _inner(match)
        name = _name_parts(text, label_start, label_end) if _is_label(text[label_start:label_end]) else None
        body = match.end()
        item_end = _end_of(_ITEM_END, text, body)
        if name is None or not _defines(text, body, item_end):
            continue
        end = _sentence_end(text, body, item_end)
        # The definition is the text after the label: `**Term**:` is markup around the name.
        found.append(_candidate(chunk_id, text, (match.start("emphasis"), end), (body, end), "markup_label", name))
    return found


def heading_labels(chunk_id: str, text: str, heading_end: int = 0) -> list[Candidate]:
    """A heading naming a term (`### 1. MTTR (Mean Time To Recovery)`, `### Blast Radius`) over
    a paragraph opened by a definition label (`**Definition**: …`, `**What is it?** …`,
    `Definisi: …`): the term from the heading, the definition the text after the label, up
    to the paragraph's end."""
    if not heading_end:
        return []
    line_start = text.rfind("\n", 0, heading_end) + 1
    number = _SECTION_NUMBER.match(text, line_start)
    name = _name_parts(text, number.end() if number else line_start, heading_end)
    label = _definition_label().match(text, heading_end)
    if name is None or label is None or not re.search(r"[:?]", label.group("label")):
        return []
    body = label.end()
    end = _end_of(_PARAGRAPH_END, text, body)
    if not _defines(text, body, end):
        return []
    return [_candidate(chunk_id, text, (label.start("label"), end), (body, end), "heading_label", name)]


def emphasised_subjects(chunk_id: str, text: str, heading_end: int = 0) -> list[Candidate]:
    """A sentence whose subject is an emphasised term, an article and one head noun allowed
    around it: `*Composite SLO* represents …`, `An *incident* is an unplanned event …`,
    `A **green or healthy** state indicates …`, `*N* is the composite SLA …`. A bare `is` or
    `are` defines only before a determiner (`*X* is a …`), never `*X* is useful`."""
    found = []
    for emphasis in _EMPHASIS_SPAN.finditer(text, heading_end):
        copula = _subject_copula().match(text, emphasis.end())
        if copula is None or copula.group("head") and copula.group("head").lower() in STOPWORDS:
            continue
        if not _defining(copula):
            continue
        article = _article_before(text, emphasis.start())
        start = emphasis.start() if article is None else article
        name = _name_parts(text, *_inner(emphasis))
        if name is None or not _opens_sentence(text, start):
            continue
        limit = _sentence_limit(text, start)
        if not _defines(text, copula.start("next"), limit):
            continue
        end = _sentence_end(text, copula.start("next"), limit)
        found.append(_candidate(chunk_id, text, (start, end), (start, end), "emphasised_subject", name))
    return found


def heading_subjects(chunk_id: str, text: str, heading_end: int = 0) -> list[Candidate]:
    """A section whose first sentence has the term its heading names for subject, an article
    allowed before it: `2.1.4. Known Received Count` then `The Known Received Count is the
    total number …`, `Estimating min_rtt` then `min_rtt is the sender's estimate …`. A bare
    `is`/`are` defines there too, before a determiner, as under an emphasised subject; a
    statutory copula (`X means …`) is the statutory finder's, wherever it stands."""
    if not heading_end:
        return []
    line_start = text.rfind("\n", 0, heading_end) + 1
    number = _SECTION_NUMBER.match(text, line_start)
    heading_words = text[number.end() if number else line_start : heading_end].split()
    body = re.compile(r"\s*").match(text, heading_end).end()
    article = re.match(rf"(?i:{_alternatives(sorted(_words_of('articles')))})[ \t]+", text[body:])
    subject_start = body + (article.end() if article else 0)
    for first in range(len(heading_words)):
        tail = r"\s+".join(map(re.escape, heading_words[first:]))
        subject = re.compile(tail, re.IGNORECASE).match(text, subject_start)
        if subject is None or not _is_name(subject.group()):
            continue
        copula = _subject_copula().match(text, subject.end())
        if copula is None or copula.group("head") or not _defining(copula) or _is_statutory(copula):
            return []
        limit = _end_of(_PARAGRAPH_END, text, body)
        end = _sentence_end(text, copula.start("next"), limit)
        term: Parts = [("term", *subject.span(), None)]
        return [_candidate(chunk_id, text, (body, end), (body, end), "heading_subject", term)]
    return []


# The order they claim a span in: a table row before the emphasised subject its cell holds.
MARKUP_FINDERS: tuple[Callable[[str, str, int], list[Candidate]], ...] = (
    glossary_table_rows, heading_labels, markup_labels, emphasised_subjects, heading_subjects,
)
# The cues of a glossary's own entries (`defining_first` ranks them first).
MARKUP_GLOSSARY_CUES = frozenset({"glossary_table", "heading_label", "markup_label"})


# ---------------------------------------------------------------------------------- names


def _name_parts(text: str, start: int, end: int) -> Parts | None:
    """The term a cell, label or heading names, inside its markup, with the short form, long
    form or second name its parenthesis gives: `Service-level objective (SLO)`,
    `MTTR (Mean Time To Recovery/Repair)`, `Emergency deployment (hot fix)`."""
    start, end = _unwrapped(text, start, end)
    parenthesis = _PARENTHESIS.fullmatch(text, start, end)
    if parenthesis is None:
        return [("term", start, end, None)] if _is_name(text[start:end]) else None
    name = _unwrapped(text, *parenthesis.span("name"))
    inside = _unwrapped(text, *parenthesis.span("inside"))
    if not (_is_name(text[slice(*name)]) and _is_name(text[slice(*inside)])):
        return None
    name_is_short, inside_is_short = _is_short_name(text[slice(*name)]), _is_short_name(text[slice(*inside)])
    if inside_is_short and not name_is_short:
        return [("term", *name, None), ("abbreviation", *inside, None), ("expansion", *name, None)]
    if name_is_short and len(text[slice(*inside)].split()) > 1:
        return [("term", *inside, None), ("abbreviation", *name, None), ("expansion", *inside, None)]
    return [("term", *name, None), ("alias", *inside, None)]


def _is_name(name: str) -> bool:
    """A name of a few words (`Blast radius`, `Mean time between failure`, `green or
    healthy`, `N`): letters, digits and joiners, a preposition or conjunction only between its
    words, never an article, pronoun or auxiliary (`Bypass the offending function` is an
    instruction), a document part (`Definition`) or an admonition (`Note`, `Risk`)."""
    words = name.split()
    if not words or len(words) > _MAX_NAME_WORDS or not words[0][0].isalnum():
        return False
    if name.lower() in _not_names() or any(not all(c.isalnum() or c in "-–/_'’&%" for c in w) for w in words):
        return False
    if len(words) == 1:
        return words[0].lower() not in STOPWORDS or words[0].isupper()  # `A` is a symbol, `is` no name
    lowered = [w.lower() for w in words]
    return (not _words_of("sentence_words") & set(lowered)
            and not {lowered[0], lowered[-1]} & (STOPWORDS | CONNECTORS | CONJUNCTIONS))


def _is_label(label: str) -> bool:
    """A glossary label writes its name capitalised (`**Blast radius**:`, `**2FA**:`); a
    lowercase one is a changelog's scope (`- **http**: fix …`) or an identifier (`**onData**:`),
    one with a run of digits an advisory or ticket (`**CVE-2021-3450**:`)."""
    return (label[:1].isupper() or label[:1].isdigit()) and not _IDENTIFIER.search(label)


def _is_short_name(name: str) -> bool:
    """`SLO`, `IcM`, `SLIs`, `N`: an abbreviation or symbol, not a word (`Definition`)."""
    return (len(name) <= _MAX_SHORT_NAME_CHARS and " " not in name and name[:1].isupper()
            and (sum(c.isupper() for c in name) >= 2 or len(name) <= 2))


def _unwrapped(text: str, start: int, end: int) -> Bounds:
    """The bounds inside one pair of markup around `text[start:end]` (`**Blast radius**`)."""
    start, end = trim(text, start, end)
    for mark in _MARKUP_PAIRS:
        if end - start > 2 * len(mark) and text.startswith(mark, start) and text.endswith(mark, start, end):
            return trim(text, start + len(mark), end - len(mark))
    return start, end


def _inner(emphasis: re.Match[str]) -> Bounds:
    return emphasis.span("inner") if emphasis.group("inner") is not None else emphasis.span("uinner")


# ---------------------------------------------------------------------------------- bounds


def _cells(text: str, start: int, end: int) -> list[Bounds]:
    """The trimmed bounds of a table row's cells, the outer pipes dropped."""
    bounds, cell_start = [], start
    for pipe in _PIPE.finditer(text, start, end):
        bounds.append((cell_start, pipe.start()))
        cell_start = pipe.end()
    bounds.append((cell_start, end))
    row = text[start:end].strip()
    if row.startswith("|"):
        bounds = bounds[1:]
    if row.endswith("|") and bounds:
        bounds = bounds[:-1]
    return [trim(text, s, e) for s, e in bounds]


def _glossary_columns(header: list[str]) -> tuple[int, int] | None:
    """The term column and the definition column after it, when the header names both."""
    plain = [cell.strip(" *_`").lower() for cell in header]
    terms = [i for i, cell in enumerate(plain) if cell in _words_of("term_headers")]
    if not terms:
        return None
    definitions = [i for i, cell in enumerate(plain) if i > terms[0] and cell in _words_of("definition_headers")]
    return (terms[0], definitions[0]) if definitions else None


def _before_next_definition(text: str, start: int, end: int) -> int:
    """Where a definition cell stops defining its row's term: before a sentence of the cell
    that defines another, emphasised term (`… *Composite SLO* represents …`), else its end."""
    nested = [c.start for c in emphasised_subjects("", text[:end], start) if c.start > start]
    return trim(text, start, nested[0])[1] if nested else end


def _end_of(pattern: re.Pattern[str], text: str, start: int) -> int:
    stop = pattern.search(text, start)
    return trim(text, start, stop.start() if stop else len(text))[1]


def _sentence_limit(text: str, start: int) -> int:
    """How far a sentence from `start` may run: its table cell, or its paragraph or item."""
    line_end = text.find("\n", start)
    line_end = len(text) if line_end < 0 else line_end
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:line_end].lstrip().startswith("|"):
        pipe = _PIPE.search(text, start, line_end)
        return trim(text, start, pipe.start() if pipe else line_end)[1]
    return _end_of(_PARAGRAPH_END, text, start)


def _sentence_end(text: str, start: int, limit: int) -> int:
    """The end of the sentence running from `start`, within `limit` (which ends one)."""
    for stop in _SENTENCE_END.finditer(text, start, limit):
        word = text[:stop.start()].rsplit(None, 1)[-1].lower()
        if word not in _NOT_SENTENCE_ENDS:
            return stop.end()
    return limit


def _defines(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` opens with a word and says at least two, as a definition
    does (`**File**: report.pdf`, `**Pages**: 18` are metadata)."""
    return bool(_BODY_OPENING.match(text, start)) and len(text[start:end].split()) >= _MIN_DEFINITION_WORDS


def _defining(copula: re.Match[str]) -> bool:
    """Whether a copula match defines: a defining verb, or `is`/`are` before a determiner."""
    verb = " ".join(copula.group("copula").lower().split())
    return verb not in _words_of("article_copulas") or copula.group("next").lower() in _words_of("determiners")


def _is_statutory(copula: re.Match[str]) -> bool:
    verb = " ".join(copula.group("copula").lower().split())
    return verb in frozenset(w.lower() for w in cues("definitions")["copulas"])


def _opens_sentence(text: str, position: int) -> bool:
    """Whether a sentence starts at `position`: after a finished sentence or a table pipe on
    its line, or at a line start (past bullets) whose previous line ends a sentence or a
    paragraph (a wrapped line goes on the sentence above)."""
    line_start = text.rfind("\n", 0, position) + 1
    before = text[line_start:position]
    if not _LINE_LEAD.fullmatch(before):
        return bool(re.search(r"(?:[.!?]|\|)[ \t]+$", before))
    if before.strip() or line_start == 0:
        return True
    previous = text[text.rfind("\n", 0, line_start - 1) + 1 : line_start - 1].strip()
    return not previous or previous[-1] in ".!?:|"


def _article_before(text: str, position: int) -> int | None:
    """Where an article just before `position` begins (`An *incident*`), if one does."""
    line_start = text.rfind("\n", 0, position) + 1
    word = re.search(r"(\w+)[ \t]+$", text[line_start:position])
    if word is None or word.group(1).lower() not in _words_of("articles"):
        return None
    return line_start + word.start(1)


def _is_glossary_heading(heading: str) -> bool:
    number = _SECTION_NUMBER.match(heading)
    plain = heading[number.end() if number else 0 :].strip(" #*_:").lower()
    return plain in _words_of("glossary_headings")


def _candidate(chunk_id: str, text: str, bounds: Bounds, definition: Bounds, cue: str, name: Parts) -> Candidate:
    return span("definition", chunk_id, text, *bounds, cue, [*name[:1], ("definition", *definition, None), *name[1:]])


# ---------------------------------------------------------------------------------- cue words


@cache
def _words_of(key: str) -> frozenset[str]:
    return frozenset(w.lower() for w in cues("markup_definitions").get(key, ()))


@cache
def _not_names() -> frozenset[str]:
    return _words_of("admonitions") | STRUCTURE_WORDS | frozenset(cues("definitions").get("not_terms", ()))


def _alternatives(words: Sequence[str]) -> str:
    return "|".join(r"\s+".join(map(re.escape, w.split())) for w in sorted(words, key=len, reverse=True))


@cache
def _subject_copula() -> re.Pattern[str]:
    """After an emphasised subject: a head noun perhaps, the copula, and the next word."""
    pack = cues("markup_definitions")
    verbs = _alternatives([*pack["subject_copulas"], *pack.get("article_copulas", ())])
    return re.compile(rf"(?:[ \t]+(?P<head>[a-z][a-z-]{{1,20}}))?[ \t]+(?P<copula>(?i:{verbs}))[ \t]+(?P<next>[^\s]+)")


@cache
def _markup_label() -> re.Pattern[str]:
    return re.compile(
        rf"(?m)^[ \t]*(?P<bullet>[-*+•][ \t]+)?(?P<emphasis>{_emphasis('(?P<colon_in>:?)')})"
        rf"(?P<colon_out>:?)[ \t]+(?=\S)"
    )


@cache
def _definition_label() -> re.Pattern[str]:
    """A definition label opening the paragraph after a heading: `**Definition**:`,
    `**Definition:**`, `Definition:`, `**What is it?**`."""
    labels = _alternatives(cues("markup_definitions")["definition_labels"])
    return re.compile(
        rf"\s*(?P<label>(?P<open>\*\*|__|\*|_)?(?i:{labels}):?(?(open)(?P=open)):?)[ \t]+(?=\S)"
    )
