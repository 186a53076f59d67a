"""Rule candidates: the sentences that state a requirement or a conditional, cut into their
condition and consequence by the conventions of the genre.

A candidate's `statement` part is the whole sentence (after any list label); its bounds are
the sentence and whatever list or equation it introduces; its other parts are verbatim slices
of the same chunk. Its cue names the convention that cut it:

- `conditional`: a sentence opened by a conditional word (Indonesian statutory
  `Apabila/Jika/Jikalau/Bila …`, English `If/When/Where/Once/Upon …`). The condition runs to
  `maka`/`then` when the sentence has one, else to the comma that closes the clause: a comma
  followed by a connective (`or`, `regardless`, `atau`, `yang` …), an item of an
  enumeration (`warna, pH, dan suhu`) or a decimal comma does not close it.
- `dalam_hal`: Indonesian statutory `Dalam hal …, (maka) …`, cut the same way. Either opening
  may end in a colon and list its conditions as items (`Dalam hal:\na. …; atau\nb. …,\nMenteri
  …`): the consequence follows the last item.
- `condition_after`: the requirement first and its condition after (`X MUST … if/when/unless
  …`), licensed by a modal verb before the English conditional word; an Indonesian
  conditional conjunction needs none (`Izin dicabut apabila …`), unless it opens a relative or
  subordinate clause (`bahan yang apabila terhirup …`). The consequence is the clause the
  condition attaches to (after `, and` / `, dan`); the condition ends at a semicolon.
- `proviso`: `… dengan syarat: …`, `… sepanjang tidak …`, `provided that …`: a condition
  after its consequence that needs no modal.
- `circumstance`: a requirement (with a modal) opened by a prepositional or purpose phrase
  set off by a comma (`To avoid …, X MUST …`, `In … environments, X SHOULD …`, `Untuk …, X
  harus …`): the phrase is the condition. A reason clause (`Because …,`, `Karena …,`) is not.
- `commencement`: the Indonesian closing provision `X mulai berlaku pada/setelah …`: the time
  is the condition, `X mulai berlaku` the consequence.
- `tier`: an item of a tiered schedule (`a. 1% (satu persen) untuk keterlambatan …;`): the
  case is the condition, the amount the consequence.
- `anaphora`: `If A, then B. In this case, X MUST …`: the requirement after an anaphoric
  circumstance takes the condition of the conditional sentence before it (the candidate then
  spans both sentences).
- `deadline`: `X disampaikan paling lambat …`; `modal`: an obligation or prohibition (BCP 14
  keywords in capitals, RFC 8174; `wajib`, `harus`, `dilarang`, `tidak boleh`); and
  `computation`: how a value is computed (`X dihitung …`, `X is calculated …`).
  These have no conditional clause: their parts are the `subject` and the `consequence`
  (the predicate with its modal or deadline), and no `condition`.

Sentences are read on a masked copy of the chunk text in which page furniture (RFC page
headers and footers, form feeds, Indonesian page numbers, letterheads and catchwords) is
blanked out with spaces of the same length: offsets stay the chunk's, a sentence broken by a
page break is read as one, and furniture never starts or ends a span (it may sit inside one,
verbatim). A sentence cut by the chunk's edge is not a whole rule and is left out. A part that
ends with a colon (`… prosedur berikut ini :`, `… dengan syarat:`) takes in the list items or
the equation that follow it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache

from knowledge_assets.candidates.model import Candidate, span
from knowledge_assets.candidates.model import trim as _trim
from knowledge_assets.candidates.packs import cues
from knowledge_assets.candidates.source import SourceChunk

Bounds = tuple[int, int]

_TERMINAL = ".!?"
_LEAD_IN = ":"
_MAX_TAKEN_IN = 1200  # characters of list or equation a colon-ended part takes in
_MAX_ITEM_WORDS = 3  # an enumeration item between two commas is this short
_MAX_AMOUNT_WORDS = 6
_RUNNING_MIN_CHUNKS = 3
_MIN_CASE_WORDS = 6
_QUOTES = "\"'“‘`"
# `(1)`, `(l)` and `(21` (OCR of `(2)`), `a.`, `a)`, `(a)`, `1.`, `1)`, `3.2.4.`, `-`, `*`, `•`
_AYAT = re.compile(r"\(\s*[0-9lIO]{1,3}\s*\)|\([0-9lIO][1lI]")
_LABEL = re.compile(r"(?:" + _AYAT.pattern + r"|\(?[a-zA-Z]\)|[a-zA-Z]\.|[IVX]+\.|\d+(?:\.\d+)*[.)]|[-*•])(?=\s|$)"
                    r"|\d+(?:\.\d+)+\.(?=[A-Z])")  # `6.6.1.Apabila`: a clause number glued to its text
_STRUCTURAL = re.compile(r"(?:Pasal\s+\d+\w*|BAB\s+[IVXLC]+|Bagian\s+\w+|Paragraf\s+\d+|#+\s.*)\s*$")
_FENCE = re.compile(r"^\s*(?:```|~~~)(.*)$", re.MULTILINE)
_ATTRIBUTES = re.compile(r"\s*\{:.*\}\s*$")  # a kramdown attribute line
_EQUATION = re.compile(r"[^=<>!\s]\s*=\s*[^=\s]")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"'*\[“])")
_WORD_BEFORE_DOT = re.compile(r"(\S+)\.$")
_WORD = re.compile(r"[^\s,;:()]+")


def _alternation(words: Sequence[str]) -> str:
    """Longest cue first; a cue written in capitals matches only in capitals (BCP 14
    keywords are requirements only when capitalised, RFC 8174), any other cue in any case."""
    parts = []
    for word in sorted(words, key=len, reverse=True):
        body = r"\s+".join(re.escape(piece) for piece in word.split())
        parts.append(body if word.isupper() else f"(?i:{body})")
    return "(?<![\\w-])(?:" + "|".join(parts) + ")(?![\\w-])" if parts else "(?!)"


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
    reason: re.Pattern
    modal: re.Pattern
    licensing_modal: re.Pattern
    any_modal: re.Pattern
    relative_pronoun: re.Pattern
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
        reason=pattern("reason"),
        modal=pattern("modal"),
        licensing_modal=pattern("modal", "permission"),
        any_modal=pattern("modal", "permission", "modal_weak"),
        relative_pronoun=re.compile(_alternation(words.get("relative_pronouns", ())) + r"\s*$"),
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
    found = []
    running = running_lines(chunks)
    for chunk in chunks:
        masked, furniture = mask_furniture(chunk.text, running)
        units = sentences(masked, furniture, chunk.heading_path)
        previous: _Reading | None = None
        for index, unit in enumerate(units):
            reading = (_anaphora(masked, unit, previous) or read_rule(masked, unit.body, unit.end, unit.list_item)
                       if unit.whole else None)
            statement_end = unit.end
            if reading is None and unit.whole and (listed := _listed_condition(masked, unit, units[index + 1:])):
                reading, statement_end = listed
            previous = reading
            if reading is None:
                continue
            end, parts = _take_in(masked, statement_end, units[index + 1:], reading.parts)
            parts["statement"] = (unit.body, statement_end)
            start = min(unit.body, *(s for s, _ in parts.values()))
            found.append(span("rule", chunk.chunk_id, chunk.text, start, end, reading.cue, parts))
    return found


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
    tail = text[:end].rstrip()
    if not tail or tail[-1] not in _TERMINAL + _LEAD_IN + ";":
        return False
    return tail[-1] != "." or not _abbreviation(tail)


def _abbreviation(text_to_dot: str) -> bool:
    """Whether the full stop ending `text_to_dot` closes an abbreviation or an initial."""
    word = _WORD_BEFORE_DOT.search(text_to_dot)
    if not word:
        return False
    token = word.group(1).lstrip("(\"'")
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
    if units and not _ends_sentence(text, units[-1].end):
        units[-1] = replace(units[-1], whole=False)  # the chunk ends inside this sentence
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
        if not _abbreviation(text[cut:match.start()]):
            units.append(_unit(text, cut, match.start()))
            cut = match.end()
    units.append(_unit(text, cut, end))
    return [u for u in units if u.end > u.body]


def _unit(text: str, start: int, end: int) -> _Unit:
    start, end = _trim(text, start, end)
    label = _LABEL.match(text, start, end)
    body = _trim(text, label.end(), end)[0] if label else start
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


def _bounded(reading: _Reading | None) -> tuple[_Reading, int] | None:
    return (reading, reading.parts["consequence"][1]) if reading else None


def read_rule(text: str, start: int, end: int, list_item: bool = False) -> _Reading | None:
    """The first convention that reads `text[start:end]` as a rule, with its parts."""
    found = _cues()
    position = start
    if connective := found.connective.match(text, position, end):
        position = connective.end()
    if found.document_control.match(text, position, end):
        return None  # a sentence about the document itself (its review, its revision) is document control
    if reading := _leading(found, text, position, end):
        return reading
    after = _condition_after(found, text, position, end)
    # An opening circumstance is the sentence's condition, unless the later condition belongs
    # to a clause of its own (`…, dan laporan direvisi apabila …`).
    if not (after and after.parts["consequence"][0] > position):
        after = _circumstance(found, text, position, end) or after
    if after or (after := _commencement(found, text, position, end)):
        return after
    if list_item and (reading := _tier(found, text, position, end)):
        return reading
    return (_deadline(found, text, position, end) or _modal(found, text, position, end)
            or _computation(found, text, position, end))


def _leading(found: _Cues, text: str, start: int, end: int) -> _Reading | None:
    for cue, pattern in (("dalam_hal", found.dalam_hal), ("conditional", found.conditional)):
        if opening := pattern.match(text, start, end):
            break
    else:
        return None
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
        return None
    return _reading(text, cue, condition=(start, comma), consequence=(comma + 1, end))


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
    clause_start = start
    for separator in found.separator.finditer(text, start, cue_match.start()):
        clause_start = separator.end()
    clause_end = text.find(";", cue_match.end(), end)
    condition_end = end if clause_end == -1 else clause_end
    return _reading(text, cue, condition=(cue_match.start(), condition_end),
                    consequence=(clause_start, cue_match.start()))


def _circumstance(found: _Cues, text: str, start: int, end: int) -> _Reading | None:
    if not found.circumstance.match(text, start, end) or found.reason.match(text, start, end):
        return None
    modal = _predicate_modal(found.licensing_modal, text, start, end)
    comma = modal and _closing_comma(found, text, start, modal.start())
    if not comma:
        return None
    return _reading(text, "circumstance", condition=(start, comma), consequence=(comma + 1, end))


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
    nor does a quoted keyword (`the key words "MUST" …` mention it, they do not use it)."""
    for modal in pattern.finditer(text, start, end):
        quoted = text[modal.start() - 1:modal.start()] in _QUOTES
        if not quoted and not _cues().relative_pronoun.search(text, start, modal.start()):
            return modal
    return None


def _modal(found: _Cues, text: str, start: int, end: int) -> _Reading | None:
    modal = _predicate_modal(found.modal, text, start, end)
    if not modal or modal.start() == start:
        return None
    return _reading(text, "modal", subject=(start, modal.start()), consequence=(modal.start(), end))


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
