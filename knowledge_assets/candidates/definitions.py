"""Definition candidates: where a document defines a term, found by the drafting conventions of
its genre, each with its offsets, the cue that found it and its parts:

- `term`: the defined name as the document writes it;
- `definition`: the document's full defining sentence or list item, the term included;
- `abbreviation` and `expansion`, where the definition introduces a short name
  (`Bendahara Umum Daerah yang selanjutnya disingkat BUD adalah …`, `Gray (Gy) : …`).

The finders read each chunk through its layout-proof reading (`candidates/reading.py`: line
ends, page furniture left in the text, blank lines inside a sentence, line-break hyphens), and
every candidate is mapped back to an exact slice of the chunk's own text, with whatever the
reading skipped inside it.

One finder per convention:
- statutory: the defining sentence of statutory drafting, Indonesian (UU 12/2011, Lampiran II:
  the Ketentuan Umum article `X adalah …`, `X yang selanjutnya disingkat Y adalah …`) and English
  (`X means …`), in numbered lists whose numbers may stand on lines of their own; a meaning
  given as a list (`X adalah:` then `a. …;` `b. ….`) is the whole list;
- explained: the Penjelasan's `Yang dimaksud dengan "X" adalah …` (or `antara lain …`, the cue
  as OCR may misread a letter of it: `dimalsud`) and English `The term "X" means …`;
- referenced: an ayat giving the meaning of what an earlier one names, the copula straight
  after the cross-reference: `Besaran nilai X sebagaimana dimaksud pada ayat (1) merupakan …`,
  `(3) Area L1 sebagaimana dimaksud pada ayat (2) huruf a merupakan …`;
- labelled: a glossary line `Term: definition`: the RFC `Term:  definition` list, Markdown
  bullets `- term: definition`, kramdown definition paragraphs (`*Term*:` and the definition on
  the next line), Indonesian glossaries (`Istilah : adalah …`) and legends of `T1 : …` lines,
  one entry a line; never a form's fields (`Nama : `, `UJI FUNGSI:  YA  TIDAK`);
- legend: the variables of a formula under `Keterangan:` / `where:`, one `SYM = meaning` each,
  a legend cut by the chunk's end going on in the next chunk.
A definition the chunk's end cuts, the next chunk going on with it in lowercase, is found
whole across the boundary (`candidates/boundaries.py`, D56); one the boundary view does not
find whole is kept as a `fragment`: it names its term but defines nothing.

Cue words are data (`packs/<lang>/definitions.json`). A finder that is unsure finds nothing:
the offline backend attaches what is found here, so a wrong candidate is a wrong definition.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache, partial

from knowledge_assets.candidates.boundaries import across
from knowledge_assets.candidates.column_definitions import column_definitions
from knowledge_assets.candidates.defining_sentences import CUES as SENTENCE_CUES
from knowledge_assets.candidates.defining_sentences import (
    INTRODUCING_CUES,
    Found,
    document_context,
    introduces_its_term,
    sentence_candidates,
)
from knowledge_assets.candidates.definition_scorer import ABSTAINING, Scorer, current_scorer
from knowledge_assets.candidates.lexicon import CONJUNCTIONS, STOPWORDS, STRUCTURE_WORDS
from knowledge_assets.candidates.markup_definitions import MARKUP_FINDERS, MARKUP_GLOSSARY_CUES
from knowledge_assets.candidates.model import Candidate, span
from knowledge_assets.candidates.packs import cues
from knowledge_assets.candidates.prose_definitions import code_names, prose_definitions
from knowledge_assets.candidates.reading import Reading, read
from knowledge_assets.candidates.source import SourceChunk
from knowledge_assets.candidates.text import line_matches

_MAX_TERM_WORDS = 10
_MAX_LOWERCASE_TERM_WORDS = 4
_MAX_LABEL_WORDS = 10
_MAX_NEXT_LINE_LABEL_WORDS = 4
_MAX_DEFINITION_CHARS = 1500
_MIN_DEFINITION_WORDS = 2
_MAX_LEADING_LABEL_WORDS = 2
_SPLIT_WORD_HEAD = 3
# OCR misreads a letter of a word this long at times; a shorter word would match other words.
_MIN_MISREAD_WORD = 6

# A list item's marker: `1.`, `a.`, `a)`, `(1)`, `iv)`, a bullet.
_LIST_MARKER = r"(?:\d{1,3}\.|[a-z]\.|[a-z]\)|\(\d{1,3}\)|\(?[ivx]{1,5}\)|[-•*+])"
_MARKER_AT_LINE_START = re.compile(rf"[ \t]*{_LIST_MARKER}[ \t]+")
_LINE_OPENS_ITEM = re.compile(rf"\n(?=[ \t]*{_LIST_MARKER}[ \t])")
# Where a sentence may end: a full stop, a semicolon at a line end, a blank line, a new item.
_STOP = re.compile(r"\.(?=\s|$)|;(?=[ \t]*(?:\n|$))|\n[ \t]*\n|" + _LINE_OPENS_ITEM.pattern)
# What may open the next sentence after a full stop; a full stop ending a line ends the
# sentence unless the next line goes on in lowercase.
_NEXT_SENTENCE = re.compile(r"\s*(?:$|[A-Z(\"“'{\[*]|\d{1,3}\.\s|[-•*]\s)|[ \t]*\n[ \t]*(?![a-z])")
# Where a clause begins: after sentence punctuation and a space, a blank line, a list marker.
# A formula line (`A = B + C`) stands alone too.
_CLAUSE_BREAK = re.compile(
    rf"[.;:!?](?=\s)\s*|\n[ \t]*\n\s*|(?m:^[ \t]*{_LIST_MARKER}[ \t]*\n?)|(?m:^[^\n]*\s=\s[^\n]*\n[ \t]*)"
)
# A symbol: `L2`, `Ll`, `HK`, `∆SK`, `T%`, `W_max`; one to three parts (`∆PAJAK AIR`).
_SYMBOL_WORD = r"[∆Δ]?[^\W\d_][\w%']{0,14}"
_SYMBOL = re.compile(rf"{_SYMBOL_WORD}(?:[ \t]{_SYMBOL_WORD}){{0,2}}")
_MARKUP = re.compile(r"\{\{\{|<su[bp]>|\*")
# An ayat number as OCR leaves it: `(3)`, `(71` for (7), `l2l` for (2).
_AYAT_NUMBER = re.compile(r"[ \t]*(?:[(l]?\d{1,2}[)l1]?[ \t]+)?")


def find_definitions(chunks: Sequence[SourceChunk], samples: list[Found] | None = None) -> list[Candidate]:
    """Every definition candidate of the chunks, in document order, never two for one span.
    A definition that runs on into the next chunk, the text there going on in lowercase, is
    found across the boundary (`candidates.boundaries`, D56) in place of its cut halves.
    `samples`, when given, receives every defining-sentence candidate met on the way, kept by
    the scorer or not (what `introduced_terms` reads)."""
    scorer = current_scorer()
    find = partial(_find_definitions, scorer=scorer)
    return across(chunks, find, _find_definitions(chunks, scorer, samples))


def defining_sentence_samples(chunks: Sequence[SourceChunk]) -> list[Found]:
    """Every defining-sentence candidate of these chunks, offsets in the chunks' own text, with
    its features: what the scorer is trained on (`evaluation/scorer_training.py`). Those
    another finder's candidate overlaps are samples too: what the defining sentences of every
    layout look like is learned from all of them, not from what the other finders miss."""
    samples: list[Found] = []
    _find_definitions(chunks, ABSTAINING, samples)
    return samples


def introduced_terms(chunks: Sequence[SourceChunk], samples: Sequence[Found]) -> list[Candidate]:
    """Of the defining sentences `samples` holds (`find_definitions`), those that name their
    term in quotes or emphasis (`a metric type called _histogram_`, `known as "delayed
    ACKs"`), kept by the scorer or not: the document itself marks the term as one it
    introduces, which is evidence of a term whether or not the sentence defines it (code spans
    name identifiers, not terms)."""
    texts = {chunk.chunk_id: chunk.text for chunk in chunks}
    return [f.candidate for f in samples
            if f.candidate.cue in INTRODUCING_CUES and _marked_as_term(f.candidate, texts[f.candidate.chunk_id])]


def _marked_as_term(candidate: Candidate, text: str) -> bool:
    term = candidate.part("term")
    return introduces_its_term(candidate, text) and term is not None and text[term.start - 1] != "`"


def _find_definitions(chunks: Sequence[SourceChunk], scorer: Scorer = ABSTAINING,
                      samples: list[Found] | None = None) -> list[Candidate]:
    """The definition candidates of each chunk. A definition the chunk's end cuts, most of
    whose meaning is in the next chunk, is a `fragment`: it names its term, but
    `defining_first` never offers it as a definition. The defining sentences come last, kept
    by `scorer` where no other finder's candidate overlaps them; `samples`, when given,
    receives every one found."""
    found: list[Candidate] = []
    in_front_matter = bool(chunks) and chunks[0].text.startswith("---\n")
    variables = code_names(chunks)
    document = document_context(chunks)
    legends = _Legends()
    cut: Candidate | None = None
    for chunk in chunks:
        prose, in_front_matter = _prose(chunk.text, in_front_matter)
        reading = read(prose)
        text, heading_end = reading.text, reading.position(_heading_end(chunk))
        own: list[Candidate] = [*_under_heading(chunk.chunk_id, text, heading_end),
                                *column_definitions(chunk, text, heading_end)]
        in_prose = partial(_in_prose, chunk, variables)
        # A legend's entries come before the prose conventions: `Qo adalah …, dan` over
        # `λ adalah …` is two entries, never one sentence.
        for finder in (*MARKUP_FINDERS, legends.find, in_prose, _explained, _referenced, _labelled, _statutory):
            for candidate in finder(chunk.chunk_id, text, heading_end):
                if not _is_metadata(candidate) and not any(_overlaps(candidate, other) for other in own):
                    own.append(candidate)
        for sentence in sentence_candidates(chunk.chunk_id, text, heading_end, chunk.heading_path, document):
            if samples is not None:
                samples += [Found(_in_original(f.candidate, reading, chunk.text), f.features) for f in sentence]
            asked = [f for f in sentence if not any(_overlaps(f.candidate, other) for other in own)]
            own += [f.candidate for f in scorer.kept(asked) if not _is_metadata(f.candidate)]
        own.sort(key=lambda c: c.start)
        if cut is not None and _goes_on_longer(text, cut):
            found[-1] = cut.model_copy(update={"cue": FRAGMENT})
        found += [_in_original(c, reading, chunk.text) for c in own]
        last = found[-1] if own else None
        cut = last if last and last.end >= len(chunk.text.rstrip()) and last.text[-1] not in ".;!?" else None
    return found


def _in_prose(chunk: SourceChunk, variables: frozenset[str], chunk_id: str, text: str,
              heading_end: int) -> list[Candidate]:
    """The prose conventions (`prose_definitions`) as a finder of the common shape."""
    return prose_definitions(chunk, text, heading_end, variables)


def _is_metadata(candidate: Candidate) -> bool:
    """`title: Pacing for Fast Networks`, `Tags: SRE, Observability`: a document's metadata
    field (pack `metadata_keys`) names no term, whatever a finder or the scorer makes of it.
    Applied to what they keep, so the scorer's samples (and its committed weights) do not
    depend on it."""
    term = candidate.part("term")
    keys = frozenset(w.lower() for w in cues("definitions").get("metadata_keys", ()))
    return term is not None and term.text.strip("*_ ").lower() in keys


def _goes_on_longer(text: str, cut: Candidate) -> bool:
    """Whether `text`, the chunk after the one whose end cuts the definition `cut` short of
    its full stop, opens by going on with it in lowercase for more words than `cut` holds of
    its meaning."""
    if not text[:1].islower():
        return False
    term = cut.part("term")
    held = len(_words(cut.text)) - (len(_words(term.text)) if term else 0)
    return len(_words(text[: max(0, _sentence_end(text, 0))])) > held


def _in_original(candidate: Candidate, reading: Reading, text: str) -> Candidate:
    """The candidate the finders cut from the reading, cut from the chunk's own text: the same
    words, with whatever the reading skipped between them (furniture, blank lines, code)."""
    parts = [(p.role, *reading.bounds(p.start, p.end), p.label) for p in candidate.parts]
    start, end = reading.bounds(candidate.start, candidate.end)
    return span("definition", candidate.chunk_id, text, start, end, candidate.cue, parts)


# A definition cut by its chunk's end, most of it in the next chunk.
FRAGMENT = "fragment"
# A defining sentence or glossary entry defines a term; a formula's legend or a
# cross-reference only says what a symbol stands for there.
_SYMBOL_CUES = frozenset({"legend", "referenced"})


# A glossary's own entry: a label, a term introduced with its short name, an explanation, a
# section whose heading the first sentence defines.
_GLOSSARY_CUES = frozenset({"label", "introduced", "explained", "heading", "column", "hanging"}) | MARKUP_GLOSSARY_CUES


def defining_first(candidates: Sequence[Candidate]) -> list[Candidate]:
    """The candidates that define, in order of how surely they do: a glossary's own entry
    first, then a defining sentence in running text, then one with a weak copula (`X merupakan
    …` states as often a property of X as its definition) or one only the general recogniser
    found (`defining_sentences`: a layout's own finder is surer), then a symbol's gloss; each
    group in its given (document) order. A fragment defines nothing."""
    weak = frozenset(w.lower() for w in cues("definitions").get("weak_copulas", ()))

    def rank(candidate: Candidate) -> int:
        if candidate.cue in _GLOSSARY_CUES:
            return 0
        if candidate.cue in SENTENCE_CUES:
            return 2  # the general recogniser yields to a layout finder's candidate for the term
        return 3 if candidate.cue in _SYMBOL_CUES else 2 if candidate.cue in weak else 1

    return sorted((c for c in candidates if c.cue != FRAGMENT), key=rank)


def _overlaps(a: Candidate, b: Candidate) -> bool:
    return a.start < b.end and b.start < a.end


_FENCE = re.compile(r"^[ \t]*(?:```|~~~)", re.M)
# YAML closes with `---` or `...`; kramdown-rfc closes it with its first `--- abstract` marker.
_FRONT_MATTER_CLOSE = re.compile(r"^(?:---|\.\.\.)(?:[ \t].*)?$", re.M)


def _prose(text: str, in_front_matter: bool) -> tuple[str, bool]:
    """The text with its YAML front matter (`---` … `---` opening the document, however many
    chunks it spans) and its fenced code blocks blanked to spaces, so offsets still index the
    chunk: `key: value` lines there are metadata and code, not a glossary. Also whether the
    front matter goes on into the next chunk."""
    blank: list[tuple[int, int]] = []
    position = 0
    if in_front_matter:
        opens = text.startswith("---\n")
        close = _FRONT_MATTER_CLOSE.search(text, 4 if opens else 0)
        position = len(text) if close is None else close.end()
        blank.append((0, position))
        in_front_matter = close is None
    fences = [m.start() for m in _FENCE.finditer(text, position)]
    for opening, closing in zip(fences[::2], fences[1::2] + [len(text)]):
        blank.append((opening, closing))
    for start, end in blank:
        text = text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]
    return text, in_front_matter


# ---------------------------------------------------------------------------------- cue words


def _alternatives(words: Sequence[str], split_words: bool = False, misread: bool = False) -> str:
    """One regex alternative per cue, longest first, any whitespace between its words; with
    `split_words`, a PDF's stray space inside a word too (`disin gkat`); with `misread`, one
    letter of a long word read as another by OCR (`dimalsud` for `dimaksud`). Both are safe
    for cues of several words only."""
    def word(w: str) -> str:
        if split_words:
            return " ?".join(map(re.escape, w))
        if misread and len(w) >= _MIN_MISREAD_WORD:
            misreadings = (re.escape(w[:i]) + r"[^\W\d_]" + re.escape(w[i + 1 :]) for i in range(len(w)))
            return "(?:" + "|".join(misreadings) + ")"
        return re.escape(w)
    return "|".join(r"\s+".join(map(word, w.split())) for w in sorted(words, key=len, reverse=True))


@cache
def _patterns() -> dict[str, re.Pattern[str]]:
    pack = cues("definitions")
    copula = _alternatives(pack["copulas"])
    explainers = _alternatives(pack["explainers"], misread=True)
    references = _alternatives(pack["references"], misread=True)
    # After a quoted term, `antara lain` gives the meaning by what it covers.
    explainer_copula = _alternatives([*pack["copulas"], *pack.get("explainer_copulas", ())])
    return {
        "copula": re.compile(rf"(?<=\s)(?:{copula})(?=\s|:)", re.IGNORECASE),
        "introducer": re.compile(rf"\s+(?:{_alternatives(pack['introducers'], split_words=True)})\s+", re.IGNORECASE),
        "explained": re.compile(
            rf"\b(?:{explainers})\s+(?P<quote>[\"“”'‘]|o(?=[A-Z]))?(?P<term>[^\"“”\n]{{1,80}}?)"
            rf"(?(quote)[\"“”'’]|)\s+(?:(?:{_alternatives(pack['explainer_qualifiers'])})\s+)?"
            rf"(?P<copula>(?(quote)(?:{explainer_copula})|(?:{copula})))(?=\s|:)",
            re.IGNORECASE,
        ),
        "explainer": re.compile(rf"\b(?:{explainers})", re.IGNORECASE),
        "value": re.compile(rf"(?:(?:{_alternatives(pack['value_prefixes'])})\s+)?(?P<term>{_SYMBOL_WORD})",
                            re.IGNORECASE),
        "reference": re.compile(rf"\s(?:{references})\b", re.IGNORECASE)
        if pack["references"] else re.compile(r"(?!)"),
        # What the cross-reference points at (`pada ayat (1) huruf a dan ayat (2)`), then the copula.
        "reference_tail": re.compile(
            rf"(?:\s+(?:{_alternatives(pack['reference_locators'])}|[(l]?\w{{1,3}}[)l1]?,?)){{0,12}}?\s+"
            rf"(?:{copula})(?=\s)",
            re.IGNORECASE,
        ),
        "list_lead_in": re.compile(rf"\b(?:{_alternatives(pack['list_lead_ins'])})\s*:$", re.IGNORECASE),
        "next_item": re.compile(
            rf"\s*(?:(?:{_alternatives(sorted(CONJUNCTIONS))})(?:/(?:{_alternatives(sorted(CONJUNCTIONS))}))?[ \t]*)?"
            rf"\n\s*(?={_LIST_MARKER}[ \t])",
            re.IGNORECASE,
        ),
        "legend_head": re.compile(rf"(?im)^[ \t]*(?:{_alternatives(pack['legend_heads'])})[ \t]*:?[ \t]*$"),
    }


@cache
def _code_keywords() -> frozenset[str]:
    return frozenset(cues("definitions").get("code_keywords", ()))


@cache
def _name_words() -> tuple[frozenset[str], frozenset[str]]:
    """The function words that may open a name, and those that may modify one."""
    pack = cues("definitions")
    return frozenset(pack.get("name_openers", ())), frozenset(pack.get("name_modifiers", ()))


@cache
def _word_lists() -> tuple[frozenset[str], frozenset[str]]:
    pack = cues("definitions")
    return frozenset(pack["term_connectors"]), frozenset(pack["not_terms"])


# ---------------------------------------------------------------------------------- bounds


def _sentence_end(text: str, start: int) -> int:
    """Where the sentence from `start` ends: a full stop before what opens a new sentence, a
    semicolon closing a line, a blank line, the next list item, or the chunk's end."""
    limit = min(len(text), start + _MAX_DEFINITION_CHARS)
    for stop in _STOP.finditer(text, start, limit):
        if stop.group() == ".":
            if _NEXT_SENTENCE.match(text, stop.end()):
                return stop.end()
            continue
        return stop.end() if stop.group().startswith(";") else stop.start()
    return len(text.rstrip()) if limit == len(text) else -1


def _definition_end(text: str, start: int) -> int:
    """Where a definition whose meaning begins at `start` ends: at its sentence's end, or, when
    that sentence is a lead-in closing with a colon over a list (`X adalah:` then `a. …;`,
    `b. ….`), at the end of the list, which is the meaning; -1 when the lead-in opens no list
    or only announces one (`X adalah sebagai berikut:` defines nothing)."""
    if text.startswith(":", start):
        return _list_end(text, start + 1)  # `X adalah:` then the list
    end = _sentence_end(text, start)
    if end < 0 or text[end - 1] != ":":
        return end
    if _patterns()["list_lead_in"].search(text, start, end):
        return -1
    return _list_end(text, end)


def _list_end(text: str, position: int) -> int:
    """The end of the list whose first item opens the line after `position`: its items (each
    closing with `;`, a conjunction between two of them at times) up to the one closing with a
    full stop, or the chunk's end; -1 when no item follows."""
    end = -1
    while (item := _patterns()["next_item"].match(text, position)) is not None:
        body = _MARKER_AT_LINE_START.match(text, item.end()).end()  # type: ignore[union-attr]
        end = position = _sentence_end(text, body)
        if end <= body or text[end - 1] == ".":
            break
    return end


def _clause_starts(text: str, position: int, heading_end: int = 0) -> list[int]:
    """Where the clause ending at `position` may begin, farthest first: its sentence's start
    (never before the end of the chunk's heading line), then each later line start (PDF
    extraction puts one word per line at times)."""
    window_start = max(0, position - 400)
    breaks = [m.end() for m in _CLAUSE_BREAK.finditer(text, window_start, position) if m.end() <= position]
    sentence = breaks[-1] if breaks else (0 if window_start == 0 else -1)
    if heading_end and sentence < heading_end <= position:
        sentence = heading_end
    if sentence < 0:
        return []
    lines = [sentence + m.end() for m in re.finditer(r"\n[ \t]*", text[sentence:position])]
    # A later line start only after a label of a word or two (`Ayat (1)`), never inside a name.
    return [sentence] + [s for s in lines if len(text[sentence:s].split()) <= _MAX_LEADING_LABEL_WORDS]


def _words(text: str) -> list[str]:
    return text.split()


def _plain(word: str) -> str:
    return word.strip("*_`\"“”'’")


def _names_a_term(subject: str, introduced: bool = False) -> bool:
    """Whether a sentence's subject is a defined name: a capitalised name of at most ten words
    whose further words are capitalised, symbols, numbers or connectors (`Transfer ke Daerah`,
    `LPG Tabung 3 (Tiga) Kg`), or a capital and a few lowercase words (`Daerah radiasi sangat
    rendah`: a modifier such as `sangat` is no function word there); never capitals after
    lowercase (`Sumber data Working Hours` is about a term). A function word opens a name only
    where statutes name a party or a duty so (`Wajib Bayar`, `Setiap Orang`). A name the
    sentence introduces with its short name (`yang selanjutnya disingkat`) may list its parts
    and run on in lowercase (`Struktur, Sistem, dan Komponen yang penting untuk keselamatan`)."""
    words = [_plain(w) for w in _words(subject)]
    if introduced:
        words = [w[:-1] if w.endswith(",") and len(w) > 1 else w for w in words[:-1]] + words[-1:]
    if not words or len(words) > _MAX_TERM_WORDS or any(not w for w in words):
        return False
    connectors, not_terms = _word_lists()
    openers, modifiers = _name_words()
    first = words[0]
    if not (first[0].isupper() or first[0] in "∆Δ" or _is_symbol(first)):
        return False
    if " ".join(words).lower() in not_terms or words[-1].lower() in connectors:
        return False
    if first.lower() in STOPWORDS and not (first.lower() in openers and len(words) > 1 and words[1][:1].isupper()):
        return False
    if not all(c.isalnum() or c in "-/'’&%∆Δ" for c in first):
        return False
    lowercase = 0
    for previous, word in zip(words, words[1:]):
        bare = word[1:-1] if word.startswith("(") and word.endswith(")") else word
        if not bare or not all(c.isalnum() or c in "-/'’&%" for c in bare):
            return False
        if word.lower() in connectors:
            continue
        if bare[0].isupper() or bare[0].isdigit() or _is_symbol(bare):
            if lowercase and not bare.isupper():
                return False
            continue
        if word.lower() in STOPWORDS and word.lower() not in modifiers:
            return False
        # A PDF splits words (`Penerimaan Ne gara Bukan Pajak`): a lowercase piece after a
        # short capitalised one is the rest of that word.
        if not (len(previous) <= _SPLIT_WORD_HEAD and previous[0].isupper()):
            lowercase += 1
    return lowercase == 0 or introduced or len(words) <= _MAX_LOWERCASE_TERM_WORDS


def _is_symbol(word: str) -> bool:
    """`L2`, `Ll`, `HK`, `kTick`, `time_sent`: a letter with digits, capitals inside or a joiner."""
    return (
        bool(word)
        and word[0].isalpha()
        and (any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:]) or "_" in word)
    )


def _candidate(chunk_id: str, text: str, start: int, end: int, cue: str, term: tuple[int, int],
               short: tuple[int, int] | None = None, long: tuple[int, int] | None = None,
               alias: tuple[int, int] | None = None) -> Candidate:
    parts = [("term", *term, None), ("definition", start, end, None)]
    if short is not None and long is not None:
        parts += [("abbreviation", *short, None), ("expansion", *long, None)]
    if alias is not None:
        parts.append(("alias", *alias, None))
    return span("definition", chunk_id, text, start, end, cue, parts)


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _long_enough(text: str) -> bool:
    return len(re.findall(r"\w+", text)) >= _MIN_DEFINITION_WORDS


# ---------------------------------------------------------------------------------- finders

_SECTION_NUMBER = re.compile(r"\s*(?:\d+(?:\.\d+)*\.?|[A-Z]\.|[IVXLC]+\.)\s+")


def _heading_end(chunk: SourceChunk) -> int:
    """Where the line holding the chunk's own heading ends, when the chunk opens with it."""
    if not chunk.heading_path:
        return 0
    heading = chunk.heading_path[-1].strip()
    first_line_end = chunk.text.find("\n")
    first_line = chunk.text if first_line_end < 0 else chunk.text[:first_line_end]
    if not heading or heading not in first_line or _patterns()["copula"].search(first_line):
        return 0  # a heading line that is itself a defining sentence stays one
    return len(first_line) if first_line_end < 0 else first_line_end


def _under_heading(chunk_id: str, text: str, heading_end: int) -> list[Candidate]:
    """A heading naming the term and a first sentence opening with the copula, the layout of
    technical standards: `2.1.2. Quantity (Qty)` then `Adalah jumlah …`. The definition is that
    sentence (the heading is its subject); the heading gives the term and its short form."""
    if not heading_end:
        return []
    body = re.compile(r"\s*").match(text, heading_end).end()
    copula = _patterns()["copula"].match(text, body) if body > heading_end else None
    if copula is None or not text[body].isupper():
        return []
    line_start = text.rfind("\n", 0, heading_end) + 1
    number = _SECTION_NUMBER.match(text, line_start)
    start, end = _trimmed(text, number.end() if number else line_start, heading_end)
    term_start, term_end, short, alias = _label_term(text, start, end)
    if term_start is None or not _names_a_term(text[term_start:term_end]):
        return []
    sentence_end = _sentence_end(text, copula.end())
    if sentence_end < 0 or not _long_enough(text[copula.end() : sentence_end]):
        return []
    long = (term_start, term_end) if short else None
    return [_candidate(chunk_id, text, body, sentence_end, "heading", (term_start, term_end), short, long, alias)]



def _statutory(chunk_id: str, text: str, heading_end: int = 0) -> list[Candidate]:
    """`X adalah …` / `X means …` with X the whole subject of its clause, and
    `X yang selanjutnya disingkat/disebut Y adalah …` (Y is X's short name)."""
    found = []
    patterns = _patterns()
    for copula in patterns["copula"].finditer(text, heading_end):
        for start in _clause_starts(text, copula.start(), heading_end):
            start, subject_end = _trimmed(text, start, copula.start())
            start = _after_restated_title(text, start, subject_end)
            subject = text[start:subject_end]
            introducer = patterns["introducer"].search(subject)
            name_end = start + introducer.start() if introducer else subject_end
            gloss = None
            if not introducer and (parenthesis := _TRAILING_PARENTHESIS.match(subject)):
                # `Kelompok Kritis (representative person) adalah …`: the name and its gloss.
                name_end = start + parenthesis.end("name")
                inside = parenthesis.group("inside").strip()
                gloss_start = start + subject.index(inside, parenthesis.start("inside"))
                gloss = (gloss_start, gloss_start + len(inside))
            if not _names_a_term(text[start:name_end], introduced=bool(introducer)):
                continue
            if introducer and not _names_a_term(text[start + introducer.end() : subject_end], introduced=True):
                continue
            end = _definition_end(text, copula.end())
            if end < 0 or not _long_enough(text[copula.end() : end]):
                break
            short = (start + introducer.end(), subject_end) if introducer else None
            if gloss and _is_short_name(text[slice(*gloss)]):
                short, gloss = gloss, None
            long = (start, name_end) if short else None
            cue = "introduced" if introducer else copula.group().lower()
            found.append(_candidate(chunk_id, text, start, end, cue, (start, name_end), short, long, gloss))
            break
    return found


def _after_restated_title(text: str, start: int, end: int) -> int:
    """Where the sentence's own subject starts when a title line before it names the same
    thing (`a. Data Meteorologi` over `Data meteorologi merupakan …`): at the restatement."""
    line_end = text.find("\n", start, end)
    if line_end < 0:
        return start
    title, rest = text[start:line_end].split(), text[line_end:end].split()
    if title and [w.lower() for w in title] == [w.lower() for w in rest]:
        return _trimmed(text, line_end, end)[0]
    return start


def _explained(chunk_id: str, text: str, heading_end: int = 0) -> list[Candidate]:
    """`Yang dimaksud dengan "X" adalah …` (an opening quote OCR often reads as `o`: `oA"`),
    `Yang dimaksud dengan kebisingan sesaat adalah …`, `The term "X" describes …`."""
    found = []
    # Every match opens with the explainer words: the pattern is tried from the first of them.
    if (first := _patterns()["explainer"].search(text)) is None:
        return found
    for match in _patterns()["explained"].finditer(text, first.start()):
        term_start, term_end = _trimmed(text, match.start("term"), match.end("term"))
        term = text[term_start:term_end]
        if not match.group("quote") and not (len(term.split()) <= _MAX_LOWERCASE_TERM_WORDS and term[:1].isalpha()):
            continue
        start = match.start()
        end = _definition_end(text, match.end())
        if end < 0 or not _long_enough(text[match.end() : end]):
            continue
        found.append(_candidate(chunk_id, text, start, end, "explained", (term_start, term_end)))
    return found


def _referenced(chunk_id: str, text: str, heading_end: int = 0) -> list[Candidate]:
    """An ayat giving the meaning of what an earlier ayat names: its subject, the
    cross-reference and the copula straight after it (`(3) Besaran nilai A sebagaimana
    dimaksud pada ayat (1) merupakan …`, `(6) Kewajiban finansial atas pengakhiran kontrak
    (terminasi) sebagaimana dimaksud pada ayat (1) huruf l merupakan …`). The candidate is the
    sentence from the ayat's line start (its number included); the term is the symbol of a
    value (`Besaran nilai A`, `TD`) or else the subject, a name opening a numbered ayat."""
    found = []
    patterns = _patterns()
    for reference in patterns["reference"].finditer(text):
        tail = patterns["reference_tail"].match(text, reference.end())
        subject = _ayat_subject(text, reference.start()) if tail else None
        if tail is None or subject is None:
            continue
        end = _sentence_end(text, tail.end())
        if end < 0 or not _long_enough(text[tail.end() : end]):
            continue
        found.append(_candidate(chunk_id, text, subject[0], end, "referenced", subject[1:]))
    return found


def _ayat_subject(text: str, position: int) -> tuple[int, int, int] | None:
    """Where the ayat whose subject ends at `position` starts, and the bounds of its term."""
    line_start = text.rfind("\n", 0, position) + 1
    number_end = _AYAT_NUMBER.match(text, line_start).end()  # type: ignore[union-attr]
    if number_end == line_start and line_start:
        # The subject wraps: its ayat number opens the line before.
        before = text.rfind("\n", 0, line_start - 1) + 1
        before_number_end = _AYAT_NUMBER.match(text, before).end()  # type: ignore[union-attr]
        if text[before:before_number_end].strip() and not re.search(r"[.;:]", text[before_number_end:position]):
            line_start, number_end = before, before_number_end
    start, _ = _trimmed(text, line_start, position)
    term_start, term_end = _trimmed(text, number_end, position)
    if (value := _patterns()["value"].fullmatch(text, term_start, term_end)) is not None:
        symbol = value.group("term")
        prefixed = value.start("term") > term_start  # `Besaran nilai A`: a symbol, whatever its letters
        symbolic = _is_symbol(symbol) or symbol.isupper() or symbol[0] in "∆Δ"
        if symbolic and (prefixed or symbol.lower() not in STOPWORDS):
            return start, value.start("term"), term_end
    numbered = bool(text[line_start:number_end].strip())
    return (start, term_start, term_end) if numbered and _names_a_subject(text[term_start:term_end]) else None


def _names_a_subject(subject: str) -> bool:
    """An ayat's subject before its cross-reference is a noun phrase by the grammar of the
    convention: a name, or a phrase of at most ten words opening with a capital and going on
    in lowercase, with no punctuation but a parenthesis (`Kewajiban finansial atas
    pengakhiran kontrak (terminasi)`); a capital after lowercase shows a phrase about another
    term (`Data dan dokumentasi hasil Verifikasi`)."""
    words = _words(subject)
    if _names_a_term(subject):
        return True
    return (0 < len(words) <= _MAX_TERM_WORDS and words[0][:1].isupper() and words[0].lower() not in STOPWORDS
            and not any(w.strip("()")[:1].isupper() for w in words[1:])
            and not re.search(r"[.,;:\"“”]", subject) and subject.count("(") == subject.count(")"))


_LABEL_LINE = re.compile(
    rf"(?m)^(?P<indent>[ \t]*)(?:{_LIST_MARKER}[ \t]+)?"
    rf"(?P<label>[^\s:][^:\n]{{0,90}}?)[ \t]*:(?P<after>[ \t]*)(?=\S|\n|$)"
)
# The rest of a reStructuredText role after its opening colon (`:math:` + backquote).
_ROLE = re.compile(r"[\w.+-]+:`")
# A definition opens with a word or a quote; `**` is bold metadata, a digit a value.
_BODY_OPENING = re.compile(r"[^\W\d_]|[\"“'(]")
# `OnAckReceived(ack, pn_space):` opens pseudocode; `Figure 1:` and `RFC 9002:` are captions.
_SIGNATURE_OR_NUMBERED = re.compile(r"[\w.]+\([^()]*\)|.*\s\d[\w.]*")
_ENUMERATION = re.compile(r"\b\w{1,2}(?:,[ \t]*\w{1,2})+$")
_TRAILING_PARENTHESIS = re.compile(r"^(?P<name>.+?)\s*\((?P<inside>[^()]{1,60})\)$")


def _labelled(chunk_id: str, text: str, heading_end: int = 0) -> list[Candidate]:
    """`Term: definition` at a line start, the definition on the same line or, when the label
    stands alone on its line (kramdown `*Term*:`), on the next; a label with a parenthesis
    gives the term's short form or its other-language name (`Gray (Gy) :`,
    `Tingkat Acuan (Reference Level):`)."""
    found = []
    for match in line_matches(_LABEL_LINE, ":", text):  # an entry's line holds its colon
        label_start, label_end = _trimmed(text, match.start("label"), match.end("label"))
        label = text[label_start:label_end]
        body_start = match.end()
        if text.startswith("//", body_start) or not _opens_entry(text, match) or label.count("(") != label.count(")"):
            continue
        if not match.group("after") and _ROLE.match(text, body_start):
            continue  # `calculate :math:`…``: the colon opens a reStructuredText role, no label ends there
        alone = text[body_start : body_start + 1] in ("\n", "")
        if alone:
            next_line = re.match(r"\n[ \t]*(?=\S)", text[body_start:])
            if next_line is None or len(_words(label)) > _MAX_NEXT_LINE_LABEL_WORDS:
                continue
            body_start += next_line.end()
            if _is_label_line(_line_at(text, body_start)):
                continue  # an empty field of a form (`Nama : ` over `Jabatan : `)
        term_start, term_end, short, alias = _label_term(text, label_start, label_end)
        if term_start is None:
            continue
        if _MARKER_AT_LINE_START.match(text, body_start) or not _BODY_OPENING.match(text, body_start):
            continue  # a label over a list (`memuat: a. …`), a number (`ISSN: 2070-1721`), bold text
        bullet = match.group().lstrip()[:1] in "-•*+" and not match.group("label").startswith("*")
        end = _item_end(text, body_start) if bullet else _before_next_label(
            text, body_start, _sentence_end(text, body_start), len(match.group("indent")))
        if end < 0 or not _long_enough(text[body_start:end]) or text[end - 1] in ";:" or text[body_start:end].isupper():
            # `Standby cuaca: hujan, jalan licin;` is an item of a list; a body closing with a
            # colon announces what follows (a list, a formula, the next field of a form); one
            # in capitals is a form's options (`UJI FUNGSI:  YA  TIDAK`), never prose.
            continue
        long = (term_start, term_end) if short else None
        found.append(_candidate(chunk_id, text, match.start("label"), end, "label", (term_start, term_end), short, long,
                                alias))
    return found


def _is_label_line(line: str, indent: int | None = None) -> bool:
    """`Tn : …`, `Keterangan:`: a line opening with a short label and its colon, indented no
    deeper than `indent` when given (a wrapped definition is indented under its label)."""
    label = _LABEL_LINE.match(line)
    return (label is not None and len(_words(label.group("label"))) <= _MAX_NEXT_LINE_LABEL_WORDS
            and (indent is None or len(label.group("indent")) <= indent))


def _before_next_label(text: str, start: int, end: int, indent: int) -> int:
    """`end`, or the end of the line before the first line after `start` that opens with a
    label as deep as the entry's (`indent`): in a list of `Label : …` lines each line is an
    entry, whether it ends with a full stop or not."""
    position = _next_line(text, start)
    while 0 <= position < end:
        if _is_label_line(_line_at(text, position), indent):
            return _trimmed(text, start, position)[1]
        position = _next_line(text, position)
    return end


def _item_end(text: str, start: int) -> int:
    """A bulleted entry is its whole item: up to the next item, a blank line or the chunk's end."""
    stop = re.compile(r"\n[ \t]*\n|" + _LINE_OPENS_ITEM.pattern).search(text, start)
    return _trimmed(text, start, stop.start() if stop else len(text))[1]


def _opens_entry(text: str, match: re.Match[str]) -> bool:
    """A glossary entry opens its own line: after a blank line, a finished sentence or the
    chunk's start, or behind a list marker; a colon ending a wrapped sentence is not one."""
    previous = text[: match.start()].rstrip(" \t")
    if not previous.strip():
        return True
    if not previous.endswith("\n"):
        return False
    # After `…;` the line is the next item of a list (`- Standby cuaca: hujan, …;`).
    previous_line = previous[:-1].rsplit("\n", 1)[-1].strip()
    if previous_line.endswith(";"):
        return False
    if match.group().lstrip()[:1] in "-•*+" or _MARKER_AT_LINE_START.match(match.group()):
        return True
    if not previous_line or previous_line[-1] in ".:!?)" or _is_label_line(previous_line):
        return True
    # After a formula's last line (`dt`) a capitalised label opens a new entry.
    return len(previous_line.split()) <= _MAX_LEADING_LABEL_WORDS + 1 and match.group("label")[:1].isupper()


def _label_term(
    text: str, start: int, end: int
) -> tuple[int | None, int, tuple[int, int] | None, tuple[int, int] | None]:
    """The term a label names, and the span of the short form or the other-language name its
    parenthesis gives."""
    label = text[start:end]
    short = alias = None
    if re.search(r"[\"“”]|\.\s", label):
        return None, end, None, None  # a quotation or initials: a reference entry
    if (not _MARKUP.search(label) and _SIGNATURE_OR_NUMBERED.fullmatch(label)) or _words(label)[0] in _code_keywords():
        return None, end, None, None
    if not _MARKUP.search(label) and (parenthesis := _TRAILING_PARENTHESIS.match(label)):
        inside = parenthesis.group("inside").strip()
        inside_start = start + label.index(inside, parenthesis.start("inside"))
        if _is_short_name(inside):
            short = (inside_start, inside_start + len(inside))
        elif all(w[:1].isalpha() for w in inside.split()):
            alias = (inside_start, inside_start + len(inside))
        else:
            return None, end, None, None
        end = start + parenthesis.end("name")
        label = parenthesis.group("name")
    if _ENUMERATION.search(label):
        return None, end, None, None  # `Radionuklida Golongan H, M, T`: a group, not one term
    with_symbol = "," in label
    if with_symbol:
        # `Indeks dosis ekivalen dalam, H I,d pada suatu titik`: the name is before the comma.
        end = start + label.index(",")
        label = label[: label.index(",")]
    if not (label[:1].isalnum() or label[:1] in "*{<∆Δ"):
        return None, end, None, None
    if _MARKUP.search(label):
        # kramdown `*Term*`: emphasis in pairs, no spaces (`**Converted` is bold metadata).
        whole = len(label) <= 60 and " " not in label.strip() and label.count("*") % 2 == 0
        return (start, end, short, alias) if whole else (None, end, None, None)
    words = _words(label)
    if len(words) > _MAX_LABEL_WORDS or not _label_names_a_term(words, with_symbol):
        return None, end, None, None
    return start, end, short, alias


_DOTTED = re.compile(r"[^\W_]\w*(?:\.\w+)+")


def _label_names_a_term(words: list[str], with_symbol: bool = False) -> bool:
    """A glossary label: a name of few words, English terms often all lowercase
    (`Keep-alive frames`, `rate-limited`, `time_sent`), never a sentence."""
    connectors, not_terms = _word_lists()
    if " ".join(words).lower() in not_terms or words[0].lower() in not_terms:
        return False
    if words[0].lower() in STRUCTURE_WORDS or words[-1].lower() in STRUCTURE_WORDS:
        return False  # `Revision history:`, `Catatan:`: a part of the document, not a term
    if words[0].lower() in STOPWORDS or words[-1].lower() in connectors | (set() if with_symbol else STOPWORDS):
        return False
    # A dotted identifier (`SND.UNA`, `my.TSclock.rate`) is one name: a protocol's state
    # variable, a configuration key.
    if any(not all(c.isalnum() or c in "-–/_'’&()%∆Δ" for c in w) and not _DOTTED.fullmatch(w) for w in words):
        return False
    # A function word shows a sentence (`Disusun oleh:`), unless a symbol follows the name
    # (`Indeks dosis ekivalen dalam, H I,d …:`), which only a name has.
    content = [w for w in words[1:] if w.lower() not in connectors]
    if any(w.lower() in STOPWORDS for w in content) and not (with_symbol and words[0][0].isupper()):
        return False
    return words[0][0].isupper() or len(words) <= _MAX_LOWERCASE_TERM_WORDS


def _is_short_name(text: str) -> bool:
    """`Gy`, `DAC`, `Q`, `HI,d`: an abbreviation or symbol in a label's parenthesis."""
    return len(text) <= 10 and " " not in text and text[:1].isupper()


_LEGEND_ENTRY = re.compile(rf"(?m)^[ \t]*(?:[-•*][ \t]+)?(?P<symbol>{_SYMBOL.pattern})[ \t]*=[ \t]*(?=\S)")
_FORMULA_SIGNS = re.compile(r"(?:^|\s)[x×*/+−^]\s|\d\s*[x×*/+]|[=<>≤≥]")


class _Legends:
    """The legend finder of one document, read chunk after chunk: under a legend head
    (`Keterangan:`, `where:`), each `SYM = meaning` line and the lines that continue it, up
    to the next entry, a blank line, a list or outline item or the chunk's end (the reading
    skips page furniture, so an entry reads on across it). A legend the chunk's end cuts
    goes on in the next chunk: its first lines end the cut entry, its next entries are the
    legend's."""

    def __init__(self) -> None:
        self.open = False

    def find(self, chunk_id: str, text: str, heading_end: int = 0) -> list[Candidate]:
        found: list[Candidate] = []
        # A blank line after the head (`Keterangan:`) does not end the legend before its entries.
        starts = [_next_line(text, head.end()) for head in _patterns()["legend_head"].finditer(text)]
        starts = [start + len(re.match(r"\s*\n|", text[start:]).group()) for start in starts]
        if self.open:
            starts.insert(0, _continuation_end(text))
        self.open = False
        for position in starts:
            entries, self.open = _legend_entries(chunk_id, text, position)
            found += entries
        return found


# A symbol a legend verb glosses (`Ci adalah …`, `n adalah …`, `C(c,x) adalah …`, `λ is …`):
# one short token, its arguments in parentheses.
_GLOSSED_SYMBOL = re.compile(r"[∆Δ]?[^\W\d_][\w']{0,7}(?:\([^()\n]{1,12}\))?")


@cache
def _verb_entry() -> re.Pattern[str]:
    """A legend line whose symbol a legend verb glosses (`Ci adalah …`, `x is the …`): the verbs
    the formula legends read (`packs/<lang>/formulas.json`), one vocabulary for both."""
    verbs = _alternatives(cues("formulas").get("legend_verbs", ()))
    return re.compile(rf"[ \t]*(?:[-•*][ \t]+)?(?P<symbol>\S[^\n]{{0,40}}?)[ \t]+(?:{verbs})[ \t]+(?=\S)")


def _legend_entry(text: str, position: int) -> tuple[re.Match[str], bool] | None:
    """The legend entry at `position`, and whether its symbol is one: `SYM = meaning` with the
    symbol in capitals, or a legend verb's short symbol."""
    if (entry := _LEGEND_ENTRY.match(text, position)) is not None:
        return entry, _is_legend_symbol(entry.group("symbol"))
    if (entry := _verb_entry().match(text, position)) is not None:
        return entry, _is_glossed_symbol(entry.group("symbol"))
    return None


def _is_glossed_symbol(symbol: str) -> bool:
    if not _GLOSSED_SYMBOL.fullmatch(symbol):
        return False
    base = symbol.split("(")[0].lstrip("∆Δ")
    return base.lower() not in STOPWORDS and (len(base) <= 3 or _is_symbol(base) or base.isupper())


def _legend_entries(chunk_id: str, text: str, position: int) -> tuple[list[Candidate], bool]:
    """The entries of the legend whose first entry line is at `position`, and whether the last
    of them runs to the chunk's end."""
    found = []
    at_end = False
    while (read := _legend_entry(text, position)) is not None:
        entry, symbolic = read
        end = _legend_entry_end(text, entry.end())
        meaning = text[entry.end() : end]
        if _FORMULA_SIGNS.search(meaning.split("\n")[0]) or not _states_a_meaning(meaning):
            break
        at_end = not text[end:].strip()
        if symbolic:
            found.append(_candidate(chunk_id, text, entry.start("symbol"), end, "legend",
                                    (entry.start("symbol"), entry.end("symbol"))))
        # else `Breakdown Hours = total jam …` restates a quantity named in words, and
        # `(laju konsentrasi aktivitas)i adalah …` glosses an expression: the legend goes on.
        position = _next_line(text, end)
    return found, at_end


def _continuation_end(text: str) -> int:
    """Where the chunk's first lines, those going on with the entry the chunk before it cut,
    end."""
    return 0 if _ends_entry(_line_at(text, 0)) else _next_line(text, _legend_entry_end(text, 0))


def _states_a_meaning(meaning: str) -> bool:
    """A legend gives a symbol's meaning in words, one at least (`K = Koefisien`); a number or
    another symbol (`N = 12`, `HK = HPB`) makes the line a formula."""
    if not re.search(r"[^\W\d_]{2}", meaning):
        return False
    return _long_enough(meaning) or not meaning.isupper()


def _is_legend_symbol(symbol: str) -> bool:
    """`RSK`, `T%`, `∆PAJAK AIR`, `L2`, `W`: every part capitals, digits or signs; or one word
    with a capital inside (`VProg`)."""
    if " " not in symbol and _is_symbol(symbol) and any(c.isupper() for c in symbol[1:]):
        return True
    return all(not any(c.islower() for c in part) for part in symbol.split())


def _next_line(text: str, position: int) -> int:
    line_end = text.find("\n", position)
    return len(text) if line_end < 0 else line_end + 1


def _line_at(text: str, position: int) -> str:
    return text[position : _next_line(text, position)].rstrip("\n")


# An outline item in capitals (`H. Denda …`, `V. PENEMPATAN …`): the next row of a table of
# tariffs or the next part of an annex.
_OUTLINE_ITEM = re.compile(r"[ \t]*(?:[A-Z]|[IVXLC]{1,4})\.[ \t]+[A-Z]")


def _legend_entry_end(text: str, start: int) -> int:
    """An entry goes on over the lines that do not end it, up to a line closing a sentence."""
    position = _next_line(text, start)
    while (position < len(text) and not _ends_entry(_line_at(text, position))
           and not text[:position].rstrip().endswith(".")):
        position = _next_line(text, position)
    return _trimmed(text, start, position)[1]


def _ends_entry(line: str) -> bool:
    """A blank line, a new entry (`SYM = …`, `… adalah …`), a list item or an outline item
    ends a legend's entry."""
    return not line.strip() or any(p.match(line) for p in (_LEGEND_ENTRY, _verb_entry(), _MARKER_AT_LINE_START,
                                                            _OUTLINE_ITEM))
