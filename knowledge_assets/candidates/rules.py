"""Rule candidates: the sentences that state a requirement or a conditional, cut into their
condition and consequence by the conventions of the genre.

A candidate's `statement` part is the whole sentence (after any list label); its bounds are
the sentence and whatever list or equation it introduces; its other parts are verbatim slices
of the same chunk. Its cue names the convention that cut it:

- `conditional`: a sentence opened by a conditional word (Indonesian statutory
  `Apabila/Jika/Jikalau/Bila …`, English `If/When/Where/Once/Upon …`), also right after an
  opening phrase and its comma (`Dalam rangka X, apabila A, B`). The condition runs to
  `maka`/`then` when the sentence has one, else to the comma that closes the clause: a comma
  followed by a connective (`or`, `regardless`, `atau`, `yang` …), an item of an
  enumeration (`warna, pH, dan suhu`) or a decimal comma does not close it. An Indonesian
  condition written without a comma ends at the main clause's passive verb (`Dalam hal X
  melakukan Y dilakukan Z`). `Dalam hal ini` refers back: it is no condition.
- `dalam_hal`: Indonesian statutory `Dalam hal …, (maka) …`, cut the same way. Either opening
  may end in a colon and list its conditions as items (`Dalam hal:\na. …; atau\nb. …,\nMenteri
  …`): the consequence follows the last item.
- `condition_after`: the requirement first and its condition after (`X MUST … if/when/unless
  …`, `PI harus … selama tahap …`, `… sebelum …`), licensed by a modal verb before the
  conditional word; an Indonesian conditional conjunction needs none (`Izin dicabut apabila
  …`), unless it opens a relative or subordinate clause (`bahan yang apabila terhirup …`). The
  consequence is the clause the condition attaches to (after `, and` / `, dan`); the condition
  ends at a semicolon.
- `proviso`: `… dengan syarat: …`, `… sepanjang tidak …`, `provided that …`, a trigger (`…
  only when …`) or a case phrase (`… for cases that …`): a condition after its consequence
  that needs no modal.
- `circumstance`: a requirement (with a modal) opened by a prepositional or purpose phrase
  set off by a comma (`To avoid …, X MUST …`, `In … environments, X SHOULD …`, `Untuk …, X
  harus …`): the phrase is the condition. A reason clause (`Because …,`, `Karena …,`) is not.
  `stage`: a life-cycle stage opening a requirement without a comma (`Selama tahapan
  dekomisioning kegiatan X harus …`) is the stage word and the stage's name.
- `temporal`: a time clause set off by a comma needs no modal (`After you resolve an
  incident, …`, `Sebelum disetujui …, …`, the transitional `Pada saat Peraturan ini mulai
  berlaku, …`); one that refers back (`After that`, `Pada saat ini`) is no condition.
- `commencement`: the Indonesian closing provision `X mulai berlaku pada/setelah …`: the time
  is the condition, `X mulai berlaku` the consequence.
- `tier`: an item of a tiered schedule (`a. 1% (satu persen) untuk keterlambatan …;`): the
  case is the condition, the amount the consequence. `rate_tier`: a row of a rate schedule
  (`c) HBA > USD90 per ton 9% dari Harga`): the comparison through its unit, then the rate.
  `tariff_row`: a row of a tariff table flattened into lines (`tariff_rows`).
- `degree`, `contrast`, `correlative`: the explanatory conditionals of KPI guides: a degree of
  a quantity and the verb that reads it (`A low recovery rate might indicate …`), two degrees
  of one quantity contrasted (`Fast burn rates trigger …, while slow burn rates allow …`: two
  rules), and `the faster …, the faster …` / `semakin …, semakin …`.
- `qualified_subject`: a requirement whose English subject a relative clause restricts (`An
  encoder that receives X MUST …`): the subject is the condition.
- `anaphora`: `If A, then B. In this case, X MUST …`: the requirement after an anaphoric
  circumstance takes the condition of the conditional sentence before it (the candidate then
  spans both sentences). `step`: each numbered step of an algorithm (`(5.4) …`) takes the
  condition of the sentence that introduces the steps (`When the timer expires, do the
  following:`), the same way.
- `branch`: pseudo-code `if X == 0:` on a line of its own: the lines indented under it are
  the consequence.
- `deadline`: `X disampaikan paling lambat …`; `modal`: an obligation or prohibition (BCP 14
  keywords in capitals, RFC 8174; `wajib`, `harus`, `dilarang`, `tidak boleh`; a lowercase
  modal capitalised inside the sentence is part of a name, `Wajib Bayar`); and
  `computation`: how a value is computed (`X dihitung …`, `X is calculated …`).
  These have no conditional clause: their parts are the `subject` and the `consequence`
  (the predicate with its modal or deadline), and no `condition`.

Sentences are read on the chunk's layout-proof reading (`candidates/reading.py`, D65: CRLF,
lone CR and form feed read as line breaks, a blank line inside a sentence and a line of page
numbers or URLs read through, a line-break hyphen joined), with the rest of the page furniture
(RFC page headers and footers, letterheads, catchwords, the document's running lines)
blanked out with spaces of the same length. Every candidate is mapped back to the chunk's own
text: its span and parts are the original from the mapped start to the mapped end, so a
sentence broken by a page break is read as one, and furniture never starts or ends a span (it
may sit inside one, verbatim). A sentence cut by the chunk's edge is not a whole rule and is left out (a list item
closed by its semicolon and conjunction, `…; atau`, is whole). Markdown run-in matter (a
blockquote mark, a DocFX `:::image …:::`, a bold label `**Risk:**`) is not part of a
sentence. A part that ends with a colon (`… prosedur berikut ini :`, `… dengan syarat:`)
takes in the list items or the equation that follow it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache

from knowledge_assets.candidates.boundaries import across
from knowledge_assets.candidates.lexicon import CONJUNCTIONS
from knowledge_assets.candidates.model import Candidate, span
from knowledge_assets.candidates.model import trim as _trim
from knowledge_assets.candidates.packs import cues
from knowledge_assets.candidates.reading import Reading, read
from knowledge_assets.candidates.source import SourceChunk

Bounds = tuple[int, int]

_TERMINAL = ".!?"
_LEAD_IN = ":"
_MAX_TAKEN_IN = 1200  # characters of list or equation a colon-ended part takes in
_MAX_ITEM_WORDS = 3  # an enumeration item between two commas is this short
_MAX_AMOUNT_WORDS = 6
_RUNNING_MIN_CHUNKS = 3
_MIN_CASE_WORDS = 6
_MIN_VERB_LENGTH = 5  # `dibuat`, `terjadi`: a prefixed verb is longer than its prefix and a short root
_AMOUNT_END = " \t\n0123456789lIoO"  # what ends an amount, OCR digits included
_QUOTES = "\"'“‘`"
# `(1)`, `(l)` and `(21` (OCR of `(2)`), `a.`, `a)`, `(a)`, `1.`, `1)`, `3.2.4.`, `-`, `*`, `•`
_AYAT = re.compile(r"\(\s*[0-9lIO]{1,3}\s*\)|\([0-9lIO][1lI]")
_STEP = re.compile(r"\(\d+(?:\.\d+)+\)")  # `(5.4)`: a numbered step of an algorithm
_LABEL = re.compile(r"(?:" + _AYAT.pattern + "|" + _STEP.pattern
                    + r"|\(?[a-zA-Z]\)|[a-zA-Z]\.|[IVX]+\.|\d+(?:\.\d+)*[.)]|[-*•])(?=\s|$)"
                    r"|\d+(?:\.\d+)+\.(?=[A-Z])")  # `6.6.1.Apabila`: a clause number glued to its text
# Markdown run-in matter before a sentence: blockquote marks, a DocFX `:::image …:::` directive and
# a bold label (`**Risk:**`, `**Why it matters**:`)
_RUN_IN = re.compile(r"(?:>\s*)*(?::::[^\n]*?:::\s*)?(?:\*\*[^*\n]{1,40}?(?::\*\*|\*\*:)\s+)?")
# a table row's label: `C, Denda …`, `1. Tipe …`, `…persen)D. Denda …` (glued after the cell before it)
_ROW_LABEL = re.compile(r"(?:^|(?<=\n)|(?<=[)\]]))[ \t]*(?:[A-Z][.,]|[a-z][.)]|\d{1,2}[.)])[ \t]+(?=[A-Z])")
_LIST_LINE = re.compile(r"\n[ \t]*(?:" + _LABEL.pattern + ")")
_STRUCTURAL = re.compile(r"(?:Pasal\s+\d+\w*|BAB\s+[IVXLC]+|Bagian\s+\w+|Paragraf\s+\d+|#+\s.*)\s*$")
_FENCE = re.compile(r"^\s*(?:```|~~~)(.*)$", re.MULTILINE)
_ATTRIBUTES = re.compile(r"\s*\{:.*\}\s*$")  # a kramdown attribute line
_EQUATION = re.compile(r"[^=<>!\s]\s*=\s*[^=\s]")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"'*\[“])")
_ITEM_END = re.compile(r";\s*(?:dan|atau|and|or)\s*$")
_WORD = re.compile(r"[^\s,;:()]+")


def _alternation(words: Sequence[str]) -> str:
    """Longest cue first; a cue written in capitals matches only in capitals (BCP 14
    keywords are requirements only when capitalised, RFC 8174), any other cue in any case."""
    parts = []
    for word in sorted(words, key=len, reverse=True):
        body = r"\s+".join(re.escape(piece) for piece in word.split())
        parts.append(body if word.isupper() else f"(?i:{body})")
    return "(?<![\\w-])(?:" + "|".join(parts) + ")(?![\\w-])" if parts else "(?!)"


def _plain(words: Sequence[str]) -> str:
    """The words as they are written, glued to what surrounds them or not."""
    return "(?:" + "|".join(map(re.escape, words)) + ")" if words else "(?!)"


@dataclass(frozen=True)
class _Cues:
    conditional: re.Pattern
    dalam_hal: re.Pattern
    then: re.Pattern
    condition_after: re.Pattern
    proviso: re.Pattern
    conjunction: re.Pattern
    not_condition: re.Pattern
    circumstance: re.Pattern
    temporal: re.Pattern
    relative_adverb: re.Pattern
    stage: re.Pattern
    degree: re.Pattern
    reading_verb: re.Pattern
    contrast: re.Pattern
    correlative: re.Pattern
    comparison_operator: re.Pattern
    rate_unit: re.Pattern
    tariff_cell: re.Pattern
    form: re.Pattern
    row_case: re.Pattern
    reason: re.Pattern
    modal: re.Pattern
    licensing_modal: re.Pattern
    any_modal: re.Pattern
    relative_pronoun: re.Pattern
    qualifier: re.Pattern
    determiners: frozenset[str]
    subordinate: re.Pattern
    embedded_question: re.Pattern
    document_control: re.Pattern
    deadline: re.Pattern
    computation: re.Pattern
    commencement: re.Pattern
    tier: re.Pattern
    amount: re.Pattern
    continues: re.Pattern
    connective: re.Pattern
    anaphora: re.Pattern
    separator: re.Pattern
    abbreviations: frozenset[str]
    furniture: tuple[re.Pattern, ...]
    passive_prefixes: tuple[str, ...]
    verb_prefixes: tuple[str, ...]
    passive_voice: tuple[str, ...]
    prepositional_verbs: frozenset[str]
    relative_words: frozenset[str]


@cache
def _cues() -> _Cues:
    words = cues("rules")

    def pattern(*keys: str) -> re.Pattern:
        return re.compile(_alternation([w for key in keys for w in words.get(key, ())]))

    return _Cues(
        conditional=pattern("conditional"),
        dalam_hal=pattern("dalam_hal"),
        then=pattern("then"),
        condition_after=pattern("condition_after"),
        proviso=pattern("proviso"),
        conjunction=pattern("conditional_conjunction"),
        not_condition=pattern("not_conditions"),
        circumstance=pattern("circumstance"),
        temporal=pattern("temporal"),
        relative_adverb=pattern("relative_adverbs"),
        stage=pattern("stage"),
        degree=re.compile(f"(?:{_alternation(words.get('articles', ()))}\\s+)?{_alternation(words.get('degree', ()))}"),
        reading_verb=re.compile(f"(?:{_alternation(words.get('hedges', ()))}\\s+)?"
                                f"{_alternation(words.get('reading_verbs', ()))}"),
        contrast=re.compile(r",\s*" + _alternation(words.get("contrast", ())) + r"\s+"),
        correlative=pattern("correlative"),
        comparison_operator=re.compile(_plain(words.get("comparison_operators", ()))),
        rate_unit=re.compile(_plain(words.get("rate_unit", ())) + r"\s+[^\W\d]+"),
        tariff_cell=re.compile(_plain(words.get("rate_unit", ())) + r"(?:\s+[^\W\d]+){1,2}?\s*"
                               + _plain(words.get("tariff_currency", ()))),
        form=pattern("form"),
        row_case=pattern("row_case"),
        reason=pattern("reason"),
        modal=pattern("modal"),
        licensing_modal=pattern("modal", "permission"),
        any_modal=pattern("modal", "permission", "modal_weak"),
        relative_pronoun=re.compile(_alternation(words.get("relative_pronouns", ())) + r"\s*$"),
        qualifier=pattern("qualifying_pronouns"),
        determiners=frozenset(words.get("determiners", ())),
        subordinate=re.compile(_alternation([*words.get("relative_pronouns", ()), *words.get("subordinators", ())])
                               + r"\s*,?\s*$"),
        document_control=pattern("document_control"),
        embedded_question=pattern("embedded_question"),
        deadline=pattern("deadline"),
        computation=pattern("computation"),
        commencement=pattern("commencement"),
        tier=pattern("tier"),
        amount=re.compile("|".join(re.escape(w) for w in words.get("amount", ())) or "(?!)", re.IGNORECASE),
        continues=pattern("continues_condition"),
        connective=re.compile(_alternation([*words.get("connectives", ()), *words.get("anaphora", ())]) + r"\s*,?\s*"),
        anaphora=re.compile(_alternation(words.get("anaphora", ())) + r"\s*,"),
        separator=re.compile("|".join(re.escape(s) + r"(?=\s)" for s in words.get("clause_separators", ())) or "(?!)"),
        abbreviations=frozenset(w.casefold() for w in words.get("abbreviations", ())),
        furniture=tuple(re.compile(p) for p in words.get("page_furniture", ())),
        passive_prefixes=tuple(words.get("passive_prefixes", ())),
        verb_prefixes=tuple(words.get("verb_prefixes", ())),
        passive_voice=tuple(words.get("passive_voice", ())),
        prepositional_verbs=frozenset(words.get("prepositional_verbs", ())),
        relative_words=frozenset(words.get("relative_words", ())),
    )


@dataclass(frozen=True)
class _Unit:
    """A sentence, a list item, a heading or an equation of the masked text."""

    start: int
    body: int  # after the list label
    end: int
    list_item: bool
    equation: bool
    whole: bool


@dataclass(frozen=True)
class _Reading:
    cue: str
    parts: dict[str, Bounds]


def find_rules(chunks: Sequence[SourceChunk]) -> list[Candidate]:
    """Every rule candidate of the chunks, in document order; a rule that runs on into the next
    chunk, the text there going on in lowercase, is found across the boundary in place of its
    cut halves (`candidates.boundaries`, D56)."""
    running = running_lines(chunks)
    return across(chunks, lambda views: _find_rules(views, running), _find_rules(chunks, running))


def _find_rules(chunks: Sequence[SourceChunk], running: frozenset[str]) -> list[Candidate]:
    found = []
    for chunk in chunks:
        reading = read(chunk.text)
        masked, furniture = mask_furniture(reading.text, running)
        units = sentences(masked, furniture, chunk.heading_path)
        rows = tariff_rows(masked)
        row_bounds = [_extent(row) for row in rows]
        previous: _Reading | None = None
        lead_in: _Reading | None = None  # a conditional sentence ending in a colon, for the steps after it
        for index, unit in enumerate(units):
            following = units[index + 1:]
            readings = _unit_readings(masked, unit, following, previous, lead_in) if unit.whole else []
            if any(row_start < unit.end and unit.body < row_end for row_start, row_end in row_bounds):
                readings = []  # a flattened table row is read as a row, not as a sentence
            previous = readings[0][0] if readings else None
            if previous and "condition" in previous.parts and masked[:unit.end].rstrip().endswith(_LEAD_IN):
                lead_in = previous
            elif not (unit.list_item and readings and readings[0][0].cue == "step"):
                lead_in = None
            for rule, statement_end in readings:
                end, parts = _take_in(masked, statement_end, following, rule.parts)
                parts["statement"] = (unit.body, statement_end)
                start = min(unit.body, *(s for s, _ in parts.values()))
                found.append(_in_original(chunk, reading, start, end, rule.cue, parts))
        for row, (start, end) in zip(rows, row_bounds):
            found.append(_in_original(chunk, reading, start, end, row.cue, {**row.parts, "statement": (start, end)}))
    return found


def _in_original(chunk: SourceChunk, reading: Reading, start: int, end: int, cue: str,
                 parts: dict[str, Bounds]) -> Candidate:
    """The rule the finders cut from the chunk's reading, cut from the chunk's own text: the
    original from the mapped start to the mapped end, with whatever the reading skipped inside."""
    return span("rule", chunk.chunk_id, chunk.text, *reading.bounds(start, end), cue,
                {role: reading.bounds(s, e) for role, (s, e) in parts.items()})


def _extent(reading: _Reading) -> Bounds:
    return min(s for s, _ in reading.parts.values()), max(e for _, e in reading.parts.values())


def _unit_readings(
    text: str, unit: _Unit, following: Sequence[_Unit], previous: _Reading | None, lead_in: _Reading | None
) -> list[tuple[_Reading, int]]:
    """The rules a unit states, each with where its statement ends (a unit that lists its
    conditions or an indented block runs past its own end)."""
    if reading := _anaphora(text, unit, previous) or _step(text, unit, lead_in):
        return [(reading, unit.end)]
    if readings := read_rules(text, unit.body, unit.end, unit.list_item):
        return [(reading, unit.end) for reading in readings]
    listed = _listed_condition(text, unit, following) or _branch(text, unit)
    return [listed] if listed else []


# ---------------------------------------------------------------------------------------------
# Reading the chunk: furniture and sentences


def _line_bounds(text: str) -> list[Bounds]:
    bounds, position = [], 0
    for line in text.split("\n"):
        bounds.append((position, position + len(line)))
        position += len(line) + 1
    return bounds


def running_lines(chunks: Sequence[SourceChunk]) -> frozenset[str]:
    """A document's running headers and footers: lines of two words or more, not ending a
    sentence, that open or close at least three chunks and sit at a chunk's edge at least
    every other time they occur (a PDF parser's page-sized chunks start with the header and
    end with the footer; a formula of statutory drafting repeated inside the text does not)."""
    seen: Counter[str] = Counter()
    at_edge: Counter[str] = Counter()
    for chunk in chunks:
        content = [line.strip() for line in chunk.text.split("\n") if line.strip()]
        seen.update(line for line in set(content)
                    if len(line.split()) >= 2 and not line.endswith(tuple(_TERMINAL + _LEAD_IN)))
        at_edge.update(set(content[:1] + content[-1:]))
    return frozenset(line for line, n in seen.items()
                     if at_edge[line] >= _RUNNING_MIN_CHUNKS and 2 * at_edge[line] >= n)


def mask_furniture(text: str, running: frozenset[str] = frozenset()) -> tuple[str, frozenset[int]]:
    """The text with every page-furniture line (a pattern of the packs, a form feed, or one
    of the document's running lines) blanked to spaces (same length, same line breaks), and
    the start offsets of those lines."""
    patterns = _cues().furniture
    masked, furniture = list(text.replace("\f", " ")), set()
    for start, end in _line_bounds(text):
        line = text[start:end]
        if "\f" in line or line.strip() in running or (line.strip() and any(p.match(line) for p in patterns)):
            masked[start:end] = " " * (end - start)
            furniture.add(start)
    return "".join(masked), frozenset(furniture)


def _ends_sentence(text: str, end: int) -> bool:
    while end and text[end - 1].isspace():
        end -= 1
    if not end or text[end - 1] not in _TERMINAL + _LEAD_IN + ";":
        return False
    return text[end - 1] != "." or not _abbreviation(text, 0, end)


def _ends_item(text: str, end: int) -> bool:
    """`…; atau`, `…; and`: a list item closed by its semicolon and the conjunction to the next."""
    return bool(_ITEM_END.search(text, 0, end))


def _abbreviation(text: str, start: int, end: int) -> bool:
    """Whether a full stop ending `text[start:end]` closes an abbreviation or an initial: the
    word before it is read back from the stop, so a line's check costs its last word, not the
    chunk before it."""
    if end <= start or text[end - 1] != ".":
        return False
    first = end - 1
    while first > start and not text[first - 1].isspace():
        first -= 1
    if first == end - 1:
        return False  # a full stop with no word before it
    token = text[first:end - 1].lstrip("(\"'")
    return token.casefold() in _cues().abbreviations or (len(token) == 1 and token.isalpha())


def sentences(text: str, furniture: frozenset[int] = frozenset(), headings: Sequence[str] = ()) -> list[_Unit]:
    """The units of a (masked) chunk text. Line breaks inside a sentence do not end it; a blank
    line does, unless it is part of a page break inside an unfinished sentence. A list item,
    a heading and an equation line are units of their own; a line ending in a colon closes
    its unit (a lead-in); code fences are skipped."""
    heading_lines = {h.strip() for h in headings}
    units: list[_Unit] = []
    current: list[int] = []  # [start, end] of the open unit
    state = {"heading": False, "blank": False, "page_break": False, "fence": _starts_in_fence(text),
             "equation": False}

    def close() -> None:
        if current:
            units.extend(_split_sentences(text, current[0], current[1]))
            current.clear()
        state["heading"] = False

    for start, end in _line_bounds(text):
        line = text[start:end]
        stripped = line.strip()
        if fence := _FENCE.match(line):
            close()
            state["fence"] = bool(fence.group(1).strip()) or not state["fence"]
            continue
        if state["fence"]:
            continue
        if start in furniture:
            state["page_break"] = True
            continue
        if not stripped or _ATTRIBUTES.match(line):
            state["blank"] = True
            continue
        if state["blank"] or state["page_break"]:
            if current and (not state["page_break"] or _ends_sentence(text, current[1])):
                close()
            state["blank"] = state["page_break"] = False
        if state["heading"] and not stripped[0].islower():
            close()
        first = start + len(line) - len(line.lstrip())
        if _LABEL.match(text, first) or stripped.startswith("#"):
            close()
        if not current:
            current[:] = [first, end]
            state["heading"] = stripped in heading_lines or bool(_STRUCTURAL.match(stripped)) or _all_capitals(stripped)
        else:
            current[1] = end
        if stripped.endswith("=") and not state["equation"]:
            state["equation"] = True  # the right-hand side is on the next line
            continue
        if stripped.startswith("#") or state["equation"]:
            close()
            state["equation"] = False
        elif _is_equation(stripped) or stripped.endswith(_LEAD_IN) or _ends_sentence(text, end):
            close()
    close()
    last = units[-1] if units else None
    if last and not _ends_sentence(text, last.end) and not (last.list_item and _ends_item(text, last.end)):
        units[-1] = replace(last, whole=False)  # the chunk ends inside this sentence
    if units and text[units[0].body:units[0].body + 1].islower():
        units[0] = replace(units[0], whole=False)  # the chunk starts inside this sentence
    return units


def _starts_in_fence(text: str) -> bool:
    """Whether the chunk starts inside a code fence: its first fence is a bare closing one
    (an opening fence may carry an info string, `~~~ math`) and the fences do not pair up
    after it, or the next one opens."""
    fences = [m.group(1).strip() for m in _FENCE.finditer(text)]
    return bool(fences) and not fences[0] and (len(fences) % 2 == 1 or (len(fences) > 1 and bool(fences[1])))


def _all_capitals(line: str) -> bool:
    letters = [c for c in line if c.isalpha()]
    return len(letters) >= 3 and not any(c.islower() for c in letters) and not line.endswith(tuple(_TERMINAL))


def _is_equation(line: str) -> bool:
    return bool(_EQUATION.search(line)) and not line.endswith((".", ";", "!", "?"))


def _split_sentences(text: str, start: int, end: int) -> list[_Unit]:
    """One unit's lines cut at the sentence ends inside them (not after an abbreviation)."""
    units, cut = [], start
    for match in _SENTENCE_BREAK.finditer(text, start, end):
        if not _abbreviation(text, cut, match.start()):
            units.append(_unit(text, cut, match.start()))
            cut = match.end()
    units.append(_unit(text, cut, end))
    return [u for u in units if u.end > u.body]


def _unit(text: str, start: int, end: int) -> _Unit:
    start, end = _trim(text, start, end)
    label = _LABEL.match(text, start, end)
    body = _trim(text, label.end(), end)[0] if label else start
    body = _trim(text, _RUN_IN.match(text, body, end).end(), end)[0]
    list_item = bool(label) and not _AYAT.fullmatch(label.group(0))
    lines = text[start:end].rsplit("\n", 1)
    return _Unit(start, body, end, list_item, _is_equation(lines[-1].strip()), whole=True)


# ---------------------------------------------------------------------------------------------
# Reading one sentence


def _anaphora(text: str, unit: _Unit, previous: _Reading | None) -> _Reading | None:
    """`If A, then B. In this case, X MUST …`: a requirement opened by an anaphoric
    circumstance (`In this case`, `Dalam hal demikian`) has the condition of the conditional
    sentence just before it; the whole requirement sentence is the consequence."""
    if previous is None or "condition" not in previous.parts:
        return None
    if not _cues().anaphora.match(text, unit.body, unit.end):
        return None
    return _reading(text, "anaphora", condition=previous.parts["condition"], consequence=(unit.body, unit.end))


def _listed_condition(text: str, unit: _Unit, following: Sequence[_Unit]) -> tuple[_Reading, int] | None:
    """A conditional opening that ends in a colon and a list. Bare (`Dalam hal:\na. …; atau\nb. …,
    \nMenteri menunda …`), it lists its conditions as items and the consequence follows the
    last item, after its `maka`/`then` or its closing comma, or as the sentence after the list.
    With a clause (`If the queue is full:\n- drop …\n- log …`), the clause is the condition and
    the items are the consequence. The statement runs to the end of the consequence."""
    found = _cues()
    opening = found.dalam_hal.match(text, unit.body, unit.end) or found.conditional.match(text, unit.body, unit.end)
    colon = text.rfind(_LEAD_IN, unit.body, unit.end)
    if not opening or not text[:unit.end].rstrip().endswith(_LEAD_IN):
        return None
    items = []
    for item in following:
        if not item.list_item or item.end - unit.end > _MAX_TAKEN_IN:
            break
        items.append(item)
    if not items:
        return None
    last = items[-1]
    cue = "dalam_hal" if found.dalam_hal.match(text, unit.body, unit.end) else "conditional"
    if text[opening.end():colon].strip():
        return _bounded(_reading(text, cue, condition=(unit.body, colon), consequence=(items[0].start, last.end)))
    if then := found.then.search(text, last.body, last.end):
        return _bounded(_reading(text, cue, condition=(unit.body, then.start()), consequence=(then.start(), last.end)))
    if (comma := _closing_comma(found, text, last.body, last.end)) is not None:
        return _bounded(_reading(text, cue, condition=(unit.body, comma), consequence=(comma + 1, last.end)))
    after = following[len(items)] if len(following) > len(items) else None
    if after is None or not after.whole or not text[:last.end].rstrip().endswith((",", ";")):
        return None
    return _bounded(_reading(text, cue, condition=(unit.body, last.end), consequence=(after.body, after.end)))


def _step(text: str, unit: _Unit, lead_in: _Reading | None) -> _Reading | None:
    """`When the timer expires, do the following:\n(5.4) Retransmit …\n(5.5) …`: each numbered
    step of an algorithm is a rule of its own under the condition of the sentence that
    introduces the steps."""
    if lead_in is None or not unit.list_item or not _STEP.match(text, unit.start, unit.body):
        return None
    return _reading(text, "step", condition=lead_in.parts["condition"], consequence=(unit.body, unit.end))


def _branch(text: str, unit: _Unit) -> tuple[_Reading, int] | None:
    """Pseudo-code `if X == 0:` on a line of its own: the lines indented deeper under it are
    its consequence (up to the first line back at its indentation)."""
    line_start = text.rfind("\n", 0, unit.start) + 1
    header = text[line_start:unit.end]
    if "\n" in header or not header.rstrip().endswith(_LEAD_IN) or not _cues().conditional.match(text, unit.body):
        return None
    indent = unit.start - line_start
    block_end, position = None, unit.end + 1
    for line_start, line_end in _line_bounds(text[position:]):
        line = text[position + line_start:position + line_end]
        if not line.strip():
            break
        if len(line) - len(line.lstrip()) <= indent or position + line_end - unit.end > _MAX_TAKEN_IN:
            break
        block_end = position + line_end
    if block_end is None:
        return None
    reading = _reading(text, "branch", condition=(unit.body, unit.end), consequence=(unit.end + 1, block_end))
    return (reading, reading.parts["consequence"][1]) if reading else None


def _rate_tier(found: _Cues, text: str, start: int, end: int) -> _Reading | None:
    """A row of a rate schedule: `c) HBA > USD90 per ton 9% dari Harga`. The comparison of a
    quantity with an amount, through its unit (`per ton`), is the condition; the rate that
    follows on the line, a number first, is the consequence."""
    comparison = found.comparison_operator.search(text, start, end)
    # the unit stands after a space or is glued to its amount (`USD90per ton`), not inside a word
    units = [u for u in (found.rate_unit.finditer(text, comparison.end(), end) if comparison else ())
             if re.search(r"\d", text[start:u.start()]) and text[u.start() - 1] in _AMOUNT_END]
    if not units:
        return None
    # A range (`> USD 70 per ton sampai dengan < USD 120 per ton, (tarif 18% …)`) runs to the
    # unit its parenthesised rate follows.
    for unit in units:
        if (group := _rate_group(text, unit.end(), end)) is not None:
            return _reading(text, "rate_tier", condition=(start, unit.end()), consequence=group)
    unit = units[0]
    line_end = text.find("\n", unit.end(), end)
    rate = (unit.end(), end if line_end == -1 else line_end)
    words = text[rate[0]:rate[1]].split()
    if not words or not re.search(r"\d", words[0]) or len(words) > _MAX_AMOUNT_WORDS:
        return None
    return _reading(text, "rate_tier", condition=(start, unit.end()), consequence=rate)


# The rate of a row set in parentheses after the unit, on its line or the next:
# `HBA < USD 70 per ton,\n(tarif 15% (lima belas persen) dikalikan harga jual)`.
_RATE_GROUP = re.compile(r"[ \t]*,?\s*\((?=[^\W\d_]+\s+\d)")


def _rate_group(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The bounds of a parenthesised rate right after a row's unit, its brackets balanced
    within the row, a number among its first two words."""
    opening = _RATE_GROUP.match(text, start, end)
    if opening is None:
        return None
    depth = 0
    for position in range(opening.end() - 1, end):
        depth += {"(": 1, ")": -1}.get(text[position], 0)
        if depth == 0:
            return opening.end() - 1, position + 1
    return None


def _contrast(found: _Cues, text: str, start: int, end: int) -> list[_Reading]:
    """`Fast burn rates trigger an alert, while slow burn rates allow …`: two degrees of the same
    quantity contrasted in one sentence. Each half is a rule: the degree and the words both
    halves share (`Fast burn rates`) are its condition, the rest of the half its consequence."""
    first = found.degree.match(text, start, end)
    separator = first and found.contrast.search(text, first.end(), end)
    second = separator and found.degree.match(text, separator.end(), end)
    if not second:
        return []
    ours = list(_WORD.finditer(text, first.end(), separator.start()))
    theirs = list(_WORD.finditer(text, second.end(), end))
    shared = 0
    while (shared < min(len(ours), len(theirs)) - 1
           and ours[shared].group(0).casefold() == theirs[shared].group(0).casefold()):
        shared += 1
    if not shared:
        return []
    readings = [_reading(text, "contrast", condition=(start, ours[shared - 1].end()),
                         consequence=(ours[shared - 1].end(), separator.start())),
                _reading(text, "contrast", condition=(second.start(), theirs[shared - 1].end()),
                         consequence=(theirs[shared - 1].end(), end))]
    return [r for r in readings if r] if all(readings) else []


def _degree(found: _Cues, text: str, start: int, end: int) -> _Reading | None:
    """`A low recovery rate might indicate …`, `A lower MTTR means …`: a sentence whose subject is
    a degree of a quantity and whose verb reads it. The degree and its quantity are the
    condition; the reading, from its hedge (`might`) or verb, is the consequence."""
    if not (opening := found.degree.match(text, start, end)):
        return None
    verb = found.reading_verb.search(text, opening.end(), end)
    if not verb or "," in text[opening.end():verb.start()]:
        return None
    if len(text[opening.end():verb.start()].split()) > _MAX_ITEM_WORDS + 1:
        return None
    return _reading(text, "degree", condition=(start, verb.start()), consequence=(verb.start(), end))


def _correlative(found: _Cues, text: str, start: int, end: int) -> _Reading | None:
    """`… - the faster you detect issues, the faster you can recover`, `Semakin …, semakin …`:
    a comparative correlative, at the start of a sentence or of a clause set off by a dash or a
    colon. The first clause is the condition, the second the consequence."""
    for first in found.correlative.finditer(text, start, end):
        if first.start() > start and not re.search(r"[-–—:;]\s*$", text[start:first.start()]):
            continue
        comma = _closing_comma(found, text, first.end(), end)
        if comma is not None and found.correlative.match(text, _trim(text, comma + 1, end)[0], end):
            return _reading(text, "correlative", condition=(first.start(), comma), consequence=(comma + 1, end))
    return None


def tariff_rows(text: str) -> list[_Reading]:
    """The rows of a tariff table flattened into lines (`C. Denda dalam hal … tanpa izin usaha` then
    `per kegiatan usahaRp[Tarif …] x 200%`): a row label opened by its letter, and a cell opened by
    its unit (`per …`) glued to its currency (`Rp`, `USD`). The label is the condition, the cell
    after its currency the consequence; a label without a cell of its own (the next thing after
    it is another label) takes the cell glued just before it, which no label has taken. A label
    stating the charge's form (`Sanksi … berupa dana kompensasi`) is a rule of its own. Only a
    label that names a case (`dalam hal`, `terhadap`, `yang` …) is a rule; a price list's item
    names a good."""
    found = _cues()
    cells = list(found.tariff_cell.finditer(text))
    if not cells:
        return []
    labels = [label for label in _ROW_LABEL.finditer(text) if not _all_capitals(_line_at(text, label.end()))]
    rows, taken = [], set()
    for index, label in enumerate(labels):
        label_end = labels[index + 1].start() if index + 1 < len(labels) else len(text)
        own = next((i for i, c in enumerate(cells) if label.end() < c.start() < label_end), None)
        if own is not None:
            condition_end = cells[own].start()
        else:
            own = next((i for i in range(len(cells)) if i not in taken
                        and not text[_cell_end(text, cells, i):label.start()].strip()), None)
            condition_end = label_end
        if own is None or own in taken or not found.row_case.search(text, label.end(), condition_end):
            continue
        taken.add(own)
        form = found.form.search(text, label.end(), condition_end)
        if form:
            reading = _reading(text, "tariff_row", condition=(label.end(), form.start()),
                               consequence=(form.start(), condition_end))
        else:
            reading = _reading(text, "tariff_row", condition=(label.end(), condition_end),
                               consequence=(cells[own].end(), _cell_end(text, cells, own)))
        if reading:
            rows.append(reading)
    return rows


def _cell_end(text: str, cells: Sequence[re.Match], index: int) -> int:
    """A cell runs to the next cell, the next row label or the next list item."""
    following = cells[index + 1].start() if index + 1 < len(cells) else len(text)
    stops = [m.start() for m in (_ROW_LABEL.search(text, cells[index].end(), following),
                                 _LIST_LINE.search(text, cells[index].end(), following)) if m]
    return _trim(text, cells[index].end(), min(stops, default=following))[1]


def _line_at(text: str, position: int) -> str:
    end = text.find("\n", position)
    return text[position:end if end != -1 else len(text)]


def _bounded(reading: _Reading | None) -> tuple[_Reading, int] | None:
    return (reading, reading.parts["consequence"][1]) if reading else None


def read_rules(text: str, start: int, end: int, list_item: bool = False) -> list[_Reading]:
    """What the first convention that reads `text[start:end]` as a rule finds: one rule, or
    the two of a contrast (`High X means A, while low X means B`)."""
    found = _cues()
    position = start
    if connective := found.connective.match(text, position, end):
        position = connective.end()
    if found.document_control.match(text, position, end):
        return []  # a sentence about the document itself (its review, its revision) is document control
    if reading := _leading(found, text, position, end) or _embedded_leading(found, text, position, end):
        return [reading]
    after = _condition_after(found, text, position, end)
    # An opening circumstance is the sentence's condition, unless the later condition belongs
    # to a clause of its own (`…, dan laporan direvisi apabila …`).
    if not (after and after.parts["consequence"][0] > position):
        after = _circumstance(found, text, position, end) or after
    if after or (after := _temporal(found, text, position, end) or _commencement(found, text, position, end)):
        return [after]
    if list_item and (reading := _rate_tier(found, text, position, end) or _tier(found, text, position, end)):
        return [reading]
    if contrast := _contrast(found, text, position, end):
        return contrast
    reading = (_degree(found, text, position, end) or _correlative(found, text, position, end)
               or _deadline(found, text, position, end) or _modal(found, text, position, end)
               or _computation(found, text, position, end))
    return [reading] if reading else []


def _leading(found: _Cues, text: str, start: int, end: int, embedded: bool = False) -> _Reading | None:
    for cue, pattern in (("dalam_hal", found.dalam_hal), ("conditional", found.conditional)):
        if opening := pattern.match(text, start, end):
            break
    else:
        return None
    if found.not_condition.match(text, start, end):
        return None  # `Dalam hal ini, …`: a reference to what was said, not a condition
    then = found.then.search(text, opening.end(), end)
    # `then` / `maka` opens the consequence where it opens a clause: after the comma that closes
    # the condition, at a line start, or in a condition written without commas ("If A then B").
    # After a comma further back it is an adverb inside the consequence ("…, the value is then doubled").
    if (then and not re.search(r"(?:,|\n)\s*$", text[opening.end():then.start()])
            and "," in text[opening.end():then.start()]):
        then = None
    if then and not re.search(r"(?:\band|\bdan|\bor|\batau)\s*$", text[start:then.start()]):
        return _reading(text, cue, condition=(start, then.start()), consequence=(then.start(), end))
    comma = _closing_comma(found, text, opening.end(), end)
    if comma is None:
        main = None if embedded else _main_passive(found, text, opening.end(), end)
        return main and _reading(text, cue, condition=(start, main), consequence=(main, end))
    return _reading(text, cue, condition=(start, comma), consequence=(comma + 1, end))


def _main_passive(found: _Cues, text: str, start: int, end: int) -> int | None:
    """`Dalam hal X melakukan Y dilakukan Z`: an Indonesian condition written without a comma ends
    where the main clause's passive verb (`di-`) follows the condition's own verb; a sentence
    with a modal is not cut so (its modal may open either clause), nor a lead-in (its main
    clause may follow the list), and a verb that works as a preposition (`dibandingkan`) is not
    the main clause's."""
    if _predicate_modal(found.any_modal, text, start, end) or text[:end].rstrip().endswith(_LEAD_IN):
        return None
    words = list(_WORD.finditer(text, start, end))
    verbs = [(previous, word) for previous, word in zip(words, words[1:]) if _is_verb(found, word.group(0))]
    for previous, main in verbs[1:]:
        if (main.group(0).startswith(found.passive_voice) and main.group(0) not in found.prepositional_verbs
                and previous.group(0).casefold() not in found.relative_words):
            return main.start()
    return None


def _is_verb(found: _Cues, word: str) -> bool:
    return word.islower() and len(word) > _MIN_VERB_LENGTH and word.startswith(found.verb_prefixes)


def _condition_after(found: _Cues, text: str, start: int, end: int) -> _Reading | None:
    modal = _predicate_modal(found.any_modal, text, start, end)
    candidates = [(m, "proviso") for m in found.proviso.finditer(text, start + 1, end)]
    candidates += [(m, "condition_after") for m in found.conjunction.finditer(text, start + 1, end)]
    if modal:
        candidates += [(m, "condition_after") for m in found.condition_after.finditer(text, modal.end(), end)]
    # `radionuklida yang apabila masuk …`, `sehingga apabila …`: a condition inside a
    # subordinate clause belongs to that clause, not to the sentence.
    candidates = [(m, cue) for m, cue in candidates if not found.subordinate.search(text, start, m.start())
                  and not found.not_condition.match(text, m.start(), end)]
    if not candidates:
        return None
    cue_match, cue = min(candidates, key=lambda item: item[0].start())
    if _coordinated(text, start, cue_match.start()):
        # `… kecuali diizinkan oleh BAPETEN atau dalam hal keadaan darurat`: the condition is
        # one of two alternatives; split here, the consequence would end on a dangling `atau`.
        return None
    clause_start = start
    for separator in found.separator.finditer(text, start, cue_match.start()):
        clause_start = separator.end()
    clause_end = text.find(";", cue_match.end(), end)
    condition_end = end if clause_end == -1 else clause_end
    return _reading(text, cue, condition=(cue_match.start(), condition_end),
                    consequence=(clause_start, cue_match.start()))


def _coordinated(text: str, start: int, position: int) -> bool:
    """Whether the words before `position` end on a coordinating conjunction (`atau`, `or`)."""
    before = text[start:position].split()
    return bool(before) and before[-1].lower() in CONJUNCTIONS


def _circumstance(found: _Cues, text: str, start: int, end: int) -> _Reading | None:
    if not found.circumstance.match(text, start, end) or found.reason.match(text, start, end):
        return None
    modal = _predicate_modal(found.licensing_modal, text, start, end)
    comma = modal and _closing_comma(found, text, start, modal.start())
    if not comma:
        return _stage(found, text, start, end, modal)
    return _reading(text, "circumstance", condition=(start, comma), consequence=(comma + 1, end))


def _temporal(found: _Cues, text: str, start: int, end: int) -> _Reading | None:
    """`After you resolve an incident, …`, `Sebelum disetujui …, …`: a time clause set off by a
    comma is a condition without a modal."""
    if not found.temporal.match(text, start, end) or found.not_condition.match(text, start, end):
        return None
    comma = _closing_comma(found, text, start, end)
    return None if comma is None else _reading(text, "temporal", condition=(start, comma), consequence=(comma + 1, end))


def _stage(found: _Cues, text: str, start: int, end: int, modal: re.Match | None) -> _Reading | None:
    """`Selama tahap(an) konstruksi kegiatan X harus …`: a life-cycle stage set off by no comma
    is the stage word and the one word that names the stage."""
    stage = found.stage.match(text, start, end)
    name = stage and re.match(r"\s+[^\W\d]\w*", text[stage.end():end])
    if not (stage and name and modal) or stage.end() + name.end() >= modal.start():
        return None
    cut = stage.end() + name.end()
    return _reading(text, "stage", condition=(start, cut), consequence=(cut, end))


def _embedded_leading(found: _Cues, text: str, start: int, end: int) -> _Reading | None:
    """`Dalam rangka X, apabila A, B` / `In this design, if A, B`: a conditional clause right
    after an opening phrase and its comma opens the sentence's condition; the phrase before it
    is neither condition nor consequence."""
    for comma in re.finditer(",", text[start:end]):
        opening = _trim(text, start + comma.end(), end)[0]
        if found.conditional.match(text, opening, end) or found.dalam_hal.match(text, opening, end):
            break
    else:
        return None
    if found.not_condition.match(text, opening, end) or found.relative_adverb.match(text, opening, end):
        return None  # `…, where x is a word, is defined by …` describes, it does not condition
    return _leading(found, text, opening, end, embedded=True)


def _commencement(found: _Cues, text: str, start: int, end: int) -> _Reading | None:
    phrase = found.commencement.search(text, start, end)
    if not phrase or not re.match(r"\s+\w+\s+\w", text[phrase.end():end]):  # not `mulai berlaku, …` / `:`
        return None
    return _reading(text, "commencement", condition=(phrase.end(), end), consequence=(start, phrase.end()))


def _tier(found: _Cues, text: str, start: int, end: int) -> _Reading | None:
    case = found.tier.search(text, start, end)
    if not case:
        return None
    amount = text[start:case.start()]
    if len(amount.split()) > _MAX_AMOUNT_WORDS or not (found.amount.search(amount) or re.search(r"\d", amount)):
        return None
    return _reading(text, "tier", condition=(case.start(), end), consequence=(start, case.start()))


def _deadline(found: _Cues, text: str, start: int, end: int) -> _Reading | None:
    deadline = found.deadline.search(text, start, end)
    if not deadline or _predicate_modal(found.modal, text, start, end):
        return None
    predicate = _predicate(found, text, start, deadline.start()) or deadline.start()
    return _reading(text, "deadline", subject=(start, predicate), consequence=(predicate, end))


def _predicate(found: _Cues, text: str, start: int, end: int) -> int | None:
    """Where an Indonesian predicate starts: the first `di-`/`me-`/`ber-` verb after the subject's
    first word that no relative word (`yang`, `sebagaimana` …) introduces."""
    words = list(_WORD.finditer(text, start, end))
    for previous, word in zip(words, words[1:]):
        token = word.group(0)
        if (token.islower() and len(token) > 5 and token.startswith(found.passive_prefixes)
                and previous.group(0).casefold() not in found.relative_words):
            return word.start()
    return None


def _predicate_modal(pattern: re.Pattern, text: str, start: int, end: int) -> re.Match | None:
    """The first modal of the sentence's own predicate: one inside a relative clause
    (`aturan yang harus diikuti`, `packets that MUST be …`) does not make the sentence a rule,
    nor does a quoted keyword (`the key words "MUST" …` mention it, they do not use it), nor a
    lowercase modal capitalised inside the sentence (`selaku Wajib Bayar`: part of a name)."""
    for modal in pattern.finditer(text, start, end):
        quoted = text[modal.start() - 1:modal.start()] in _QUOTES
        word = modal.group(0)
        named = modal.start() > start and word[0].isupper() and not word.isupper()
        if not quoted and not named and not _cues().relative_pronoun.search(text, start, modal.start()):
            return modal
    return None


def _modal(found: _Cues, text: str, start: int, end: int) -> _Reading | None:
    if reading := _qualified_subject(found, text, start, end):
        return reading
    modal = _predicate_modal(found.modal, text, start, end)
    if not modal or modal.start() == start:
        return None
    return _reading(text, "modal", subject=(start, modal.start()), consequence=(modal.start(), end))


def _qualified_subject(found: _Cues, text: str, start: int, end: int) -> _Reading | None:
    """`An endpoint that receives X MUST …`: a subject restricted by a relative clause says to
    which cases the requirement applies, so the subject is the condition and the predicate from
    its modal the consequence. The pronoun is relative when no comma stands before it and no
    determiner or pronoun after it (`… that the peer …` is a complement clause: the subject
    starts after it). A plain subject is no condition (docs/decisions.md D39), nor is an
    Indonesian `yang` clause, which as often only describes (`fasilitas yang memadai`): the
    qualifying pronouns are the English pack's."""
    modal = _predicate_modal(found.any_modal, text, start, end)
    if not modal or modal.start() == start:
        return None
    subject = max(start, text.rfind(";", start, modal.start()) + 1)  # the modal's own clause
    for pronoun in found.qualifier.finditer(text, subject, modal.start()):
        following = _WORD.match(text, _trim(text, pronoun.end(), modal.start())[0])
        if following is None or following.group(0).casefold() in found.determiners:
            subject = pronoun.end()  # a complement clause: its subject follows
        elif pronoun.start() > subject and not text[:pronoun.start()].rstrip().endswith(","):
            return _reading(text, "qualified_subject", condition=(subject, modal.start()),
                            consequence=(modal.start(), end))
    return None


def _computation(found: _Cues, text: str, start: int, end: int) -> _Reading | None:
    """`X dihitung …`. A sentence that only names the quantity and introduces the equation
    after it (`Production dihitung dengan rumus berikut:`) is the formula's lead-in, for the
    formula branch; with a colon it is a rule only when its subject describes a case."""
    verb = _predicate_modal(found.computation, text, start, end)
    if not verb or verb.start() == start or found.embedded_question.search(text, start, verb.start()):
        return None  # `It defines how parameters are calculated` describes, it does not compute
    if text[:end].rstrip().endswith(_LEAD_IN) and len(text[start:verb.start()].split()) < _MIN_CASE_WORDS:
        return None
    return _reading(text, "computation", subject=(start, verb.start()), consequence=(verb.start(), end))


def _closing_comma(found: _Cues, text: str, start: int, end: int) -> int | None:
    """The comma that closes a clause opened at `start`: not inside brackets, not a decimal
    comma, not followed by a connective, not the comma of an enumeration item."""
    depth = 0
    for index in range(start, end):
        char = text[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0 and not _comma_continues(found, text, index, end):
            return index
    return None


def _comma_continues(found: _Cues, text: str, comma: int, end: int) -> bool:
    if text[comma - 1:comma].isdigit() and re.match(r" ?\d", text[comma + 1:comma + 3]):
        return True
    after = _trim(text, comma + 1, end)[0]
    if found.continues.match(text, after, end):
        return True
    following = text.find(",", comma + 1, end)
    # A short item between two commas is an enumeration, unless it states an obligation: then
    # it is the consequence ("Jika X, petugas harus berhenti, lalu …").
    return (following != -1 and len(text[comma + 1:following].split()) <= _MAX_ITEM_WORDS
            and not found.any_modal.search(text, comma + 1, following))


def _reading(text: str, cue: str, **parts: Bounds) -> _Reading | None:
    """The parts trimmed of spaces, a final full stop or semicolon and the conjunction after
    it (`; dan`), and a condition's closing comma; none when a part is empty."""
    trimmed = {}
    for role, (start, end) in parts.items():
        start, end = _part_bounds(text, start, end)
        if start >= end or not re.search(r"\w", text[start:end]):
            return None
        trimmed[role] = (start, end)
    return _Reading(cue, trimmed)


def _part_bounds(text: str, start: int, end: int) -> Bounds:
    start, end = _trim(text, start, end)
    tail = re.search(r"(?:[;,]\s*(?:dan|atau|and|or))?[.;,]?\s*$", text[start:end])
    return _trim(text, start, start + tail.start())


def _take_in(
    text: str, end: int, following: Sequence[_Unit], parts: dict[str, Bounds]
) -> tuple[int, dict[str, Bounds]]:
    """A sentence ending with a colon takes in the list items, or the one equation, after it:
    the candidate and the part that ends the sentence run to their end (the statement stays
    the sentence: each list item is a sentence of its own)."""
    if not text[:end].rstrip().endswith(_LEAD_IN):
        return end, parts
    last = end
    for unit in following:
        if unit.end - end > _MAX_TAKEN_IN or not (unit.list_item or unit.equation):
            break
        last = unit.end
        if unit.equation and not unit.list_item:
            break
    if last == end:
        return end, parts
    closing = max(parts, key=lambda role: parts[role][1])
    return last, {**parts, closing: _part_bounds(text, parts[closing][0], last)}
