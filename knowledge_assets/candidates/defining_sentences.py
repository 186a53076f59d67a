"""The general recogniser of definitions in running text, English and Indonesian: a sentence
that names a term and says what it is, wherever it stands and whatever the document's layout
(issue 28). Six cues find the candidates, one convention each (`sentence_<cue>` in the registry):

- subject: the sentence opens with the term (an article or a list marker before it, quoted or
  emphasised or plain, its short form in parentheses after it) and a defining predicate
  follows: `Round-Trip Time (RTT) is the …`, `The Timestamps option carries …`, `Atmosfer
  adalah lapisan …`, `Kelompok Kritis merupakan …`;
- naming: the sentence names a term inside it, `… a metric type called _histogram_, where …`,
  `… that we call the "timestamp clock".`, `… is also called the 95th percentile.`,
  `… yang disebut …`;
- marked: a quoted or emphasised term followed by a defining predicate inside the sentence,
  `This "bandwidth*delay product" measures …`;
- label: the sentence opens with the term and a colon, `shift.cnt:   Window scale byte …`,
  `model box: keseluruhan perairan …`;
- column: a two-column glossary line, the term, a wide gap and its meaning, `bit      A binary
  digit: 0 or 1.`; as with a label, the definition runs over the entry's later sentences;
- apposition: a symbol set off by commas after the name it stands for, at the sentence's
  opening: `Konsentrasi aktivitas rerata tahunan di udara, Ca, pada suatu titik …`.

The definition is the whole sentence, to its end: abbreviations (`e.g.`, `No.`, `dst.`) and a
full stop before lowercase do not end it. These cues are made to over-generate: most sentences
`X is …` state a property, not a definition. Whether a candidate is kept is decided by the
scorer learned from the corpus gold (`candidates/definition_scorer.py`) from the features
computed here, never by a word list of one document. Cue words are data
(`packs/<lang>/defining_sentences.json`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cache

from knowledge_assets.candidates.lexicon import CONNECTORS, STOPWORDS
from knowledge_assets.candidates.model import Candidate, span
from knowledge_assets.candidates.packs import cues, pack
from knowledge_assets.candidates.source import SourceChunk

# Named apart from the layout finders' cues (`label` is the glossary line's, `appositive` a
# specification's gloss): a convention key names one finder.
SUBJECT, NAMING, MARKED = "sentence_subject", "sentence_naming", "sentence_marked"
LABEL, COLUMN, APPOSITION = "sentence_label", "sentence_column", "sentence_apposition"
CUES = (SUBJECT, NAMING, MARKED, LABEL, COLUMN, APPOSITION)
# The cues whose term the sentence names inside it (`called _x_`, `This "x" measures`).
INTRODUCING_CUES = (NAMING, MARKED)
_ENTRY_CUES = frozenset({LABEL, COLUMN})

_MAX_SENTENCE_CHARS = 1200
_MAX_TERM_WORDS = 6
_MAX_NAMED_WORDS = 4
_MARKS = ('"', "“", "*", "_", "`")
# A label's or column's body says something in three words at least, up to its sentence's end.
_MIN_ENTRY_WORDS = 3
_BODY_END = re.compile(r"[.;](?:\s|$)|\n[ \t]*\n")
_LOOK_AHEAD = 160  # how far past the predicate an announced list or an enumeration is looked for
_MAX_ENUMERATED_WORDS = 4

# A word of a term: letters, digits and the joiners identifiers use (`TS.Recent`,
# `bandwidth*delay`, `φ-quantile`, `shift.cnt`); a full stop only inside it.
_TOKEN = r"[^\W_](?:[\w*/'’+-]|\.(?=\w))*(?:\([\w,.]{1,12}\))?"
# A symbol: short, a capital or a Greek letter in it, or one or two letters (`Ca`, `Q`, `λ`, `fic`).
_SYMBOL = r"(?:[^\W\d_]{1,2}|(?=[^\W\d_]\w{0,3}\b)\w{0,3}[A-Zα-ωΑ-Ω]\w{0,3}|[^\W\d_]{3}(?=,))(?:\([\w,]{1,8}\))?"
_MARKED = r"\"[^\"\n]{1,60}\"|“[^”\n]{1,60}”|\*\*[^*\n]{1,60}\*\*|\*[^*\n]{1,60}\*|_[^_\n]{1,60}_|`[^`\n]{1,40}`"
# Between two words of a term: blanks, one line break at most.
_GAP = r"(?:[ \t]+|[ \t]*\n[ \t]*)"
_LIST_MARKER = re.compile(r"[ \t]*(?:[-*•+]|\d{1,3}[.)]|\(?[a-z][.)]|\(\d{1,3}\))[ \t]+")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_ITEM_LINE = re.compile(r"\n(?=[ \t]*(?:[-*•+]|\d{1,3}[.)]|\(?[a-z][.)]|\(\d{1,3}\))[ \t])")
# Where a sentence may end: a full stop, `!` or `?` (a closing quote or bracket after it)
# before whitespace; a semicolon or colon ending its line; a blank line; an item's line.
_END_MARK = re.compile(r"[.!?][\"”’)\]]?(?=\s|$)|[;:](?=[ \t]*(?:\n|$))")
_WORD = re.compile(r"[^\W\d_][\w'-]*")
_NEXT_CHARACTER = re.compile(r"\s*(\S)")
# The line of a new glossary entry: a short name then a colon, or a wide gap and a capital.
_ENTRY_LINE = re.compile(r"\n(?=[ \t]*[^\W_][\w.()\[\]/-]*(?: [\w.()/-]+){0,3}(?::[ \t]+\S|[ \t]{3,}[A-Z(]))")


@dataclass(frozen=True)
class Found:
    """A defining-sentence candidate and the features the scorer reads."""

    candidate: Candidate
    features: dict[str, float]


@dataclass(frozen=True)
class Context:
    """What a sentence's features read beyond the sentence: whether its section is a glossary,
    the document's headings (`heading_words`) and how often each word occurs in it
    (`word_counts`)."""

    defining_section: bool = False
    headings: frozenset[str] = frozenset()
    word_counts: Mapping[str, int] = field(default_factory=dict)


def _alternation(words: tuple[str, ...]) -> str:
    return "|".join(r"\s+".join(map(re.escape, w.split())) for w in sorted(words, key=len, reverse=True))


@cache
def _patterns() -> dict[str, re.Pattern[str]]:
    words = cues("defining_sentences")
    predicates = _alternation(words["predicates"])
    determiners = _alternation(words["determiners"])
    term = rf"(?P<term>{_MARKED}|{_TOKEN}(?:{_GAP}{_TOKEN}){{0,{_MAX_TERM_WORDS - 1}}}?)"
    after_term = r"(?:[ \t]*\((?P<abbr>[^()\n]{1,20})\))?(?:[ \t]*\[[^\]\n]{1,30}\])?,?"
    return {
        SUBJECT: re.compile(rf"(?:(?P<det>(?i:{determiners}))\s+)?{term}{after_term}\s+(?P<pred>(?i:{predicates}))"
                            r"(?=\s|$)"),
        NAMING: re.compile(
            rf"(?<!\w)(?P<pred>(?i:{_alternation(words['namings'])}))\s+(?:(?i:the|a|an)\s+)?"
            rf"(?P<term>{_MARKED}|{_TOKEN}(?:[ \t]+{_TOKEN}){{0,{_MAX_NAMED_WORDS - 1}}})(?=[ \t]*(?:[,.;:)]|\(|$))"
        ),
        MARKED: re.compile(rf"(?P<term>{_MARKED})(?:[ \t]*\[[^\]\n]{{1,30}}\])?\s+(?P<pred>(?i:{predicates}))(?=\s)"),
        LABEL: re.compile(rf"(?P<term>{_MARKED}|{_TOKEN}(?:[ \t]+{_TOKEN}){{0,{_MAX_NAMED_WORDS - 1}}}){after_term}"
                          r"[ \t]*(?P<pred>:)[ \t]+(?=\S)"),
        COLUMN: re.compile(rf"(?P<term>{_TOKEN}(?: {_TOKEN}){{0,3}}){after_term}(?P<pred>[ \t]{{3,}})(?=[A-Z(])"),
        APPOSITION: re.compile(rf"(?P<name>{_TOKEN}(?:{_GAP}{_TOKEN}){{0,11}}?)(?:[ \t]*\([^()\n]{{1,40}}\))?,[ \t]*"
                               rf"(?P<term>{_SYMBOL})(?P<pred>,)\s+\w"),
    }


@cache
def _word_set(key: str) -> frozenset[str]:
    return frozenset(w.lower() for w in cues("defining_sentences").get(key, ()))


@cache
def _indonesian_predicates() -> frozenset[str]:
    return frozenset(w.lower() for key in ("predicates", "namings")
                     for w in pack("id", "defining_sentences").get(key, ()))


def sentences(text: str, start: int = 0) -> Iterator[tuple[int, int, bool]]:
    """The sentences of `text` from `start`, as trimmed `(start, end, opens_block)`: a sentence
    ends at its end mark (module docstring), a blank line, the line of a new list item or of a
    new glossary entry (`Term:  …`, `Term     A …`); `opens_block` says it starts after one of
    the latter three (or at `start`), not after another sentence of its paragraph."""
    blocks = {m.start() for pattern in (_BLANK_LINE, _ITEM_LINE, _ENTRY_LINE) for m in pattern.finditer(text, start)}
    boundaries = sorted({m.end() for m in _END_MARK.finditer(text, start) if _ends_sentence(text, m)} | blocks
                        | {len(text)})
    position, opens_block = start, True
    for boundary in boundaries:
        if boundary <= position:
            continue
        s, e = position, boundary
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            yield s, e, opens_block
        position, opens_block = boundary, boundary in blocks


def document_context(chunks: Iterable[SourceChunk]) -> Context:
    """The document-wide part of the features' context: its headings and its word counts,
    read in one pass over the chunks."""
    counts: Counter[str] = Counter()
    heading_paths = []
    for chunk in chunks:
        counts.update(w.lower() for w in _WORD.findall(chunk.text))
        heading_paths.append(chunk.heading_path)
    return Context(headings=heading_words(heading_paths), word_counts=counts)


def heading_words(heading_paths: Iterable[list[str]]) -> frozenset[str]:
    """The headings of a document as `Context.headings` holds them: lowercased, blanks
    collapsed, a space at either end (so a term matches whole words)."""
    return frozenset(f" {' '.join(h.lower().split())} " for path in heading_paths for h in path)


def entries(bounds: list[tuple[int, int, bool]]) -> list[int]:
    """For each sentence, where the block it belongs to ends: the end of the last of the
    sentences that follow it without opening a block (a glossary entry's later sentences)."""
    ends = [end for _, end, _ in bounds]
    for index in range(len(bounds) - 2, -1, -1):
        if not bounds[index + 1][2]:
            ends[index] = ends[index + 1]
    return ends


def _ends_sentence(text: str, mark: re.Match[str]) -> bool:
    """A full stop after an abbreviation or an initial, or before lowercase, ends nothing."""
    if text[mark.start()] != ".":
        return True
    following = _NEXT_CHARACTER.match(text, mark.end())
    if following is not None and following.group(1).islower():
        return False
    word = re.search(r"([\w.]+)$", text[max(0, mark.start() - 40) : mark.start()])
    if word is None:
        return True
    stem = word.group(1).lower()
    return not (stem in _word_set("abbreviations") or (len(stem) == 1 and stem.isalpha()))


def sentence_candidates(chunk_id: str, text: str, heading_end: int, heading_path: list[str],
                        document: Context = Context()) -> list[list[Found]]:
    """The candidates of each sentence of the chunk's reading `text` after its heading, one
    list a sentence (sentences without any left out). `document` holds the document's headings
    and word counts; the chunk's section decides `defining_section`."""
    context = replace(document, defining_section=is_defining_heading(heading_path))
    bounds = list(sentences(text, heading_end))
    found = (find_in_sentence(chunk_id, text, start, end, context, opens_block, entry_end)
             for (start, end, opens_block), entry_end in zip(bounds, entries(bounds)))
    return [group for group in found if group]


def find_in_sentence(chunk_id: str, text: str, start: int, end: int, context: Context = Context(),
                     opens_block: bool = True, entry_end: int | None = None) -> list[Found]:
    """Every candidate the cues find in the sentence `text[start:end]`. A glossary entry's
    definition (`sentence_label`, `sentence_column`) runs on to `entry_end`, over the sentences
    of its entry."""
    if end - start > _MAX_SENTENCE_CHARS:
        return []
    marker = _LIST_MARKER.match(text, start, end)
    opening = marker.end() if marker else start
    found: list[Found] = []
    for cue in (SUBJECT, LABEL, COLUMN, APPOSITION):
        if (match := _patterns()[cue].match(text, opening, end)) is not None and _names_a_term(cue, match):
            stop = max(end, entry_end or end) if cue in _ENTRY_CUES else end
            found.append(_found(chunk_id, text, opening, stop, cue, match, context, opens_block))
    for cue in (NAMING, MARKED):
        for match in _patterns()[cue].finditer(text, opening, end):
            if cue == MARKED and match.start() == opening:
                continue  # the subject cue's
            if _names_a_term(cue, match):
                found.append(_found(chunk_id, text, opening, end, cue, match, context, opens_block))
    return found


def _names_a_term(cue: str, match: re.Match[str]) -> bool:
    """Whether the match names something at all: a term holds a letter, opens with no function
    word, discourse label (`Contoh:`, `Note:`) or question word (`Why it matters:`) and holds
    no comparison (`MF kurang dari 1`);
    an anaphoric subject (`These words represent …`) refers back to a term rather than naming
    one, unless it quotes or emphasises it (`This "bandwidth*delay product" measures …`); a symbol's name in
    apposition is words, not a list of symbols (`a, b, c, …, h`); a predicate or label that
    announces a list or states a value, a negated predicate, and a label followed by an
    enumeration define nothing."""
    term = match.group("term").strip()
    if not any(c.isalpha() for c in term) or term.split()[0].lower() in STOPWORDS:
        return False  # a name holds a letter and never opens with a function word (`and newest …`)
    words = [w.lower() for w in term.split()]
    if words[0].strip("*_") in _word_set("discourse_labels") | _word_set("interrogatives") or any(
            f" {phrase} " in f" {' '.join(words)} " for phrase in _word_set("comparisons")):
        return False  # `Contoh perhitungan:`, `MF kurang dari 1 berarti …` name no term
    following = match.string[match.end("pred") : match.end("pred") + _LOOK_AHEAD].lstrip()
    if cue != NAMING and (_LIST_MARKER.match(following) or any(
            following.lower().startswith(phrase) for phrase in _word_set("announcements"))):
        return False  # `Rincian memuat: a. …`, `X adalah sebagai berikut:` announce a list
    first_following = following.split(None, 1)[0].lower() if following.split() else ""
    if cue in (SUBJECT, MARKED) and first_following in _word_set("negations"):
        return False  # `X is not applied to …` says what X is not
    if cue != NAMING and (first_following[:1].isdigit() or first_following in _word_set("number_words")):
        return False  # `Material lunak: 90% …`, `X adalah dua kali lipat` state a value
    if cue in _ENTRY_CUES and _is_enumeration(following):
        return False  # `Standby cuaca: hujan, jalan licin, kabut, …` lists a class's members
    if cue in _ENTRY_CUES and len(_WORD.findall(_BODY_END.split(following, 1)[0])) < _MIN_ENTRY_WORDS:
        return False  # `Gangguan jalan: licin.`, `cuaca: hujan, kabut;`: a list item's value, not a definition
    if cue == SUBJECT and (match.group("det") or "").lower() in _word_set("anaphoric_determiners"):
        return term[:1] in "\"“*_`"
    if cue == APPOSITION:
        return len(match.group("name")) >= 4
    return True


def _is_enumeration(text: str) -> bool:
    """Whether the clause opening `text` lists short items (`hujan, jalan licin, kabut, dan
    debu tebal;`): three or more, none longer than four words, the members of a class rather
    than its meaning."""
    clause = re.split(r"[.;:](?:\s|$)", text, maxsplit=1)[0]
    items = [item for item in clause.split(",") if item.strip()]
    return len(items) >= 3 and all(len(item.split()) <= _MAX_ENUMERATED_WORDS for item in items)


def introduces_its_term(candidate: Candidate, text: str) -> bool:
    """Whether the document itself marks the candidate's term as a term being introduced: set
    in quotes or emphasis (`called _histogram_`, `This "bandwidth*delay product" measures`).
    Only then does the recogniser name a term of its own (D79); `text` is what the
    candidate's offsets index."""
    term = candidate.part("term")
    return term is not None and term.start > 0 and text[term.start - 1] in _MARKS


def _unmarked(text: str, start: int, end: int) -> tuple[int, int, bool]:
    """The term's bounds inside its quotes or emphasis, and whether it had any."""
    for mark in ("**", *_MARKS):
        if text.startswith(mark, start) and end - start > 2 * len(mark):
            return start + len(mark), end - len(mark) if mark != "“" else end - 1, True
    return start, end, False


def _found(chunk_id: str, text: str, start: int, end: int, cue: str, match: re.Match[str],
           context: Context, opens_block: bool) -> Found:
    term_start, term_end, marked = _unmarked(text, match.start("term"), match.end("term"))
    parts = {"term": (term_start, term_end), "definition": (start, end)}
    abbreviation = match.groupdict().get("abbr")
    if cue == APPOSITION:
        parts = {"term": match.span("name"), "abbreviation": (term_start, term_end),
                 "expansion": match.span("name"), "definition": (start, end)}
    elif abbreviation and _looks_abbreviated(abbreviation):
        parts |= {"abbreviation": match.span("abbr"), "expansion": (term_start, term_end)}
    candidate = span("definition", chunk_id, text, start, end, cue, parts)
    shape = features(text, start, end, cue, match, (term_start, term_end), marked, context.defining_section)
    term = f" {' '.join(text[term_start:term_end].lower().split())} "
    shape |= {name: 1.0 for name, on in (("opens_block", opens_block),
                                         ("term_in_heading", any(term in h for h in context.headings))) if on}
    content = [w for w in _WORD.findall(term) if w not in STOPWORDS]
    if content and context.word_counts:
        shape[f"term_frequency={_bucket(min(context.word_counts.get(w, 0) for w in content), (1, 3, 10))}"] = 1.0
    return Found(candidate, shape)


def _looks_abbreviated(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and " " not in text.strip() and sum(c.isupper() for c in letters) >= max(2, len(letters) // 2)


def _bucket(value: int, edges: tuple[int, ...]) -> str:
    return next((f"<={edge}" for edge in edges if value <= edge), f">{edges[-1]}")


def features(text: str, start: int, end: int, cue: str, match: re.Match[str], term: tuple[int, int],
             marked: bool, defining_section: bool) -> dict[str, float]:
    """What the scorer reads of a candidate: its cue and predicate, the shape of its term, what
    follows the predicate, and the sentence around it. Names only; every value is 1.0."""
    term_text = text[term[0] : term[1]]
    term_words = term_text.split()
    predicate = " ".join(match.group("pred").lower().split()) or "gap"
    rest = text[match.end("pred") : end]
    after = _WORD.findall(rest)[:2] if cue != NAMING else []
    sentence = text[start:end]
    sentence_words = sentence.split()
    letters = [c for c in term_text if c.isalpha()]
    determiner = (match.groupdict().get("det") or "").lower()
    names = [
        f"cue={cue}",
        f"predicate={predicate}",
        f"determiner={determiner or 'none'}",
        "language=id" if predicate in _indonesian_predicates() else "language=en",
    ]
    flags = {
        "term_marked": marked,
        "term_capitalised": term_text[:1].isupper(),
        "term_uppercase": bool(letters) and all(c.isupper() for c in letters),
        "term_has_digit": any(c.isdigit() for c in term_text),
        "term_symbol": len(term_text) <= 3,
        "term_joined": bool(re.search(r"\w[._]\w", term_text)),
        "term_stopword": any(w.lower() in STOPWORDS and w.lower() not in CONNECTORS for w in term_words[1:]),
        "term_has_abbreviation": bool(match.groupdict().get("abbr")),
        "term_at_start": match.start() <= start + 4,
        "genus_follows": bool(after) and after[0].lower() in _word_set("genus_openers"),
        "qualifier_follows": bool(after) and after[0].lower() in _word_set("qualifiers"),
        # `X is used …`, `X digunakan …`: a passive after the predicate tells what is done with X.
        "passive_follows": bool(after) and (after[0].lower().endswith(("ed", "en")) or (
            after[0].lower().startswith("di") and len(after[0]) > 5)),
        "enumeration_follows": _is_enumeration(rest),
        "announces_list": any(phrase in sentence.lower() for phrase in _word_set("announcements")),
        "term_cross_reference": any(phrase in " ".join(term_words).lower() for phrase in _word_set("cross_references")),
        "modal_in_sentence": any(w.lower().strip(".,;:") in _word_set("modals") for w in sentence_words),
        "numeric_sentence": "=" in sentence or sum(c.isdigit() for c in sentence) * 8 > len(sentence),
        "ends_full_stop": sentence.endswith("."),
        "ends_semicolon": sentence.endswith(";"),
        "ends_colon": sentence.endswith(":"),
        "defining_section": defining_section,
        "term_recurs": text.count(term_text) > 1,
    }
    return {**dict.fromkeys(names, 1.0), **{name: 1.0 for name, on in flags.items() if on}}


def is_defining_heading(heading_path: list[str]) -> bool:
    """Whether a heading of the chunk names a glossary or definitions section (whole words)."""
    words = _word_set("defining_headings")
    return any(f" {phrase} " in f" {' '.join(_WORD.findall(heading.lower()))} "
               for heading in heading_path for phrase in words)
