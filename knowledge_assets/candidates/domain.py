"""Domain candidates: where a document states its own title and its own purpose.

Title candidates, by the convention that places them (cue):
- `front_matter_title`: the `title:` line kept from a Markdown file's YAML front matter
  (kramdown-rfc, Jekyll, Pandoc); the value, without its quotes, is the document's title;
- `regulation_heading`: an Indonesian regulation's heading (UU 12/2011, Lampiran II): the
  instrument line (`PERATURAN MENTERI KEUANGAN REPUBLIK INDONESIA`), its `NOMOR` line, `TENTANG`
  and the upper-case subject lines, up to `DENGAN RAHMAT TUHAN YANG MAHA ESA`;
- `rfc_title`: in RFC plain text (RFC 7322 §4), the title centred between the header block and
  the front sections (Abstract, or Status of This Memo in older RFCs);
- `top_heading`: the document's first heading, when the first chunk carries it;
- `first_lines`: else the first lines of the first chunk that are no running header
  (`Company | Doc-No …`), no `Key: value` field and hold no digits.

Purpose candidates:
- `purpose_heading`: the first sentence under a Purpose / Tujuan / Maksud section that opens
  the document (among its first headings) — under a heading deeper in the document
  (`Purpose of Test Tool`) it is that section's purpose, not the document's;
- `purpose_statement`: a sentence in which the document states what it does — `This document
  specifies …`, `The purpose of this document is …`, `Peraturan Menteri ini mengatur …`,
  `Maksud … adalah …`; never in boilerplate sections (Status of This Memo, Copyright Notice);
- `scope_heading`: the first sentence under a Scope / Ruang Lingkup section.

Cue words are in `packs/*/domain.json`. Each kind's candidates come best first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from knowledge_assets.candidates.model import Candidate, span
from knowledge_assets.candidates.packs import cues
from knowledge_assets.candidates.source import SourceChunk
from knowledge_assets.candidates.text import lines, sentences

_CUES = cues("domain")
_EARLY_HEADINGS = 3  # a purpose section that opens the document is among its first headings
_MAX_TITLE_LINES = 3
_MAX_SUBJECT_LINES = 6
_MAX_SUBJECT_PREFIX = 80  # "Peraturan Menteri Keuangan ini" — the subject, then "ini"
_MAX_LIST_SENTENCES = 12
_MAX_PURPOSE_CHARS = 800
_AYAT = re.compile(r"\(\d+\)\s")
_NOT_TITLE = re.compile(r"\||:|\d")
_TWO_COLUMNS = re.compile(r"\S {3,}\S")
_DRAFT_NAME = re.compile(r"draft-[a-z0-9-]+", re.IGNORECASE)


def _alternation(key: str) -> str:
    return "|".join(re.escape(w) for w in sorted(_CUES.get(key, ()), key=len, reverse=True))


_STRUCTURE = cues("structure")
_LEGAL_PARTS = "|".join(re.escape(w) for w in (*_STRUCTURE.get("part", ()), *_STRUCTURE.get("paragraph", ())))
_SECTION_LABEL = rf"(?:(?:\d+(?:\.\d+)*|[A-Z]|[IVXLC]+)\.?\s+|(?:{_LEGAL_PARTS})\s+\S+\s+)?"


def _heading_pattern(key: str) -> re.Pattern[str]:
    """A heading whose title (after its label: `1.`, `A.`, `Bagian Kesatu`) starts with a cue word."""
    return re.compile(rf"{_SECTION_LABEL}(?:{_alternation(key)})\b", re.IGNORECASE)


_PURPOSE_HEADING = _heading_pattern("purpose_headings")
_SCOPE_HEADING = _heading_pattern("scope_headings")
_SUBJECT = rf"(?:{_alternation('statement_subjects')})\b"
_VERB = rf"(?:{_alternation('statement_verbs')})\b"
_WITHIN_SUBJECT = rf"[^.;:]{{0,{_MAX_SUBJECT_PREFIX}}}?"
_STATEMENT = re.compile(
    r"(?:\(\d+\)\s*)?(?:"  # an ayat number may open it
    rf"(?:{_alternation('purpose_phrases')})\b"  # The purpose of this document is
    rf"|{_SUBJECT}(?:\s+\S+){{0,2}}?\s+{_VERB}"  # This document (also) specifies
    rf"|{_SUBJECT}{_WITHIN_SUBJECT}\bini\s+{_VERB}"  # Peraturan Menteri Keuangan ini mengatur
    rf"|(?:{_alternation('purpose_openers')})\b{_WITHIN_SUBJECT}"  # Maksud … adalah
    rf"\b(?:{_alternation('purpose_copulas')})\b"
    r")"
)
_FRONT_MATTER_TITLE = re.compile(
    rf"(?:{_alternation('front_matter_title_keys')}):\s*(?P<q>[\"']?)(?P<value>.+?)(?P=q)\s*"
)
_INSTRUMENT = re.compile(rf"(?:{_alternation('instrument_types')})\b")
_NUMBER_LINE = re.compile(rf"(?:{_alternation('instrument_number')})\b")
_SUBJECT_LINE = re.compile(rf"(?:{_alternation('instrument_subject')})\b")
_TITLE_STOP = re.compile(rf"(?:{_alternation('title_stops')})")
_BOILERPLATE = frozenset(_CUES.get("boilerplate_headings", ()))
_ABSTRACT = frozenset(_CUES.get("abstract_headings", ()))


def find_domain(chunks: Sequence[SourceChunk]) -> list[Candidate]:
    if not chunks:
        return []
    return [*_titles(chunks), *_purposes(chunks)]


def _titles(chunks: Sequence[SourceChunk]) -> list[Candidate]:
    found = [*_front_matter_titles(chunks), _regulation_heading(chunks), *_rfc_titles(chunks),
             _top_heading(chunks[0]), _first_lines(chunks[0])]
    return [c for c in found if c is not None]


def _front_matter_titles(chunks: Sequence[SourceChunk]) -> list[Candidate]:
    for chunk in chunks:
        if chunk.heading_path:
            break  # the front matter comes before the first heading
        if match := _FRONT_MATTER_TITLE.fullmatch(chunk.text):
            value = match.start("value"), match.end("value")
            return [span("title", chunk.chunk_id, chunk.text, *value, "front_matter_title")]
    return []


def _regulation_heading(chunks: Sequence[SourceChunk]) -> Candidate | None:
    """The first instrument line with its NOMOR line, TENTANG and the subject lines after it."""
    for chunk in chunks:
        bounds = _all_lines(chunk.text)
        for index, (start, end) in enumerate(bounds):
            line = chunk.text[start:end].strip()
            if not (_INSTRUMENT.match(line) and line.isupper()):
                continue
            heading_end = _regulation_heading_end(chunk.text, bounds[index + 1 :])
            if heading_end is not None:
                return span("title", chunk.chunk_id, chunk.text, start + _lead(chunk.text[start:]), heading_end,
                            "regulation_heading")
    return None


def _regulation_heading_end(text: str, following: list[tuple[int, int]]) -> int | None:
    """Where the subject after `TENTANG` ends, when NOMOR and TENTANG follow the instrument line.
    The subject is upper case and ends at a blank line, at `DENGAN RAHMAT …` or at the enacting
    official's line, which ends with a comma (`MENTERI KEUANGAN REPUBLIK INDONESIA,`)."""
    filled = [(i, text[s:e].strip()) for i, (s, e) in enumerate(following) if text[s:e].strip()]
    numbered = next((k for k, (_, line) in enumerate(filled[:3]) if _NUMBER_LINE.match(line)), None)
    if numbered is None:
        return None
    about = next((k for k, (_, line) in enumerate(filled[numbered + 1 : numbered + 3], start=numbered + 1)
                  if _SUBJECT_LINE.match(line)), None)
    if about is None:
        return None
    index, line = filled[about]
    end = following[index][1] if line[len(_SUBJECT_LINE.match(line)[0]):].strip() else None
    for start, line_end in following[index + 1 : index + 1 + _MAX_SUBJECT_LINES]:
        line = text[start:line_end].strip()
        if not line or _TITLE_STOP.match(line) or not line.isupper() or line.endswith(","):
            break
        end = line_end
    return _rstrip(text, end) if end is not None else None


def _rfc_titles(chunks: Sequence[SourceChunk]) -> list[Candidate]:
    """The last paragraph before the front sections (Abstract; Status of This Memo first in older
    RFCs), when it is one to three centred lines."""
    first = next((i for i, c in enumerate(chunks) if c.heading_path), None)
    if not first or chunks[first].heading_path[0] not in _ABSTRACT | _BOILERPLATE:
        return []
    chunk = chunks[first - 1]
    picked: list[tuple[int, int]] = []
    for start, end in reversed(_all_lines(chunk.text)):
        line = chunk.text[start:end]
        if not line.strip():
            if picked:
                break
            continue
        if _DRAFT_NAME.fullmatch(line.strip()):
            continue
        if not line.startswith(" ") or _TWO_COLUMNS.search(line.strip()) or len(picked) == _MAX_TITLE_LINES:
            return []
        picked.insert(0, (start + _lead(line), end))
    if not picked:
        return []
    return [span("title", chunk.chunk_id, chunk.text, picked[0][0], _rstrip(chunk.text, picked[-1][1]), "rfc_title")]


def _top_heading(chunk: SourceChunk) -> Candidate | None:
    if not chunk.heading_path or re.match(r"\d", chunk.heading_path[0]):
        return None
    start = chunk.text.find(chunk.heading_path[0])
    if start < 0:
        return None
    return span("title", chunk.chunk_id, chunk.text, start, start + len(chunk.heading_path[0]), "top_heading")


def _first_lines(chunk: SourceChunk) -> Candidate | None:
    """Up to three title-like lines at the top, past a running header (`Company | Doc-No`); a
    line without a letter (`---`, `***`) is markup, not title."""
    header = " ".join(chunk.text[s:e] for s, e in lines(chunk.text) if "|" in chunk.text[s:e])
    picked: list[tuple[int, int]] = []
    for start, end in lines(chunk.text):
        line = chunk.text[start:end].strip()
        title_like = any(ch.isalpha() for ch in line) and not _NOT_TITLE.search(line) and line not in header
        if title_like and len(picked) < _MAX_TITLE_LINES:
            picked.append((start, end))
        elif picked:
            break
    if not picked:
        return None
    start, end = picked[0][0] + _lead(chunk.text[picked[0][0]:]), _rstrip(chunk.text, picked[-1][1])
    return span("title", chunk.chunk_id, chunk.text, start, end, "first_lines")


def _purposes(chunks: Sequence[SourceChunk]) -> list[Candidate]:
    outline = list(dict.fromkeys(h for c in chunks for h in c.heading_path if h not in _ABSTRACT))
    early = set(outline[:_EARLY_HEADINGS])
    headed = [c for c in chunks if c.heading_path and c.heading_path[-1] in early
              and _PURPOSE_HEADING.match(c.heading_path[-1])]
    scoped = [c for c in chunks if c.heading_path and _SCOPE_HEADING.match(c.heading_path[-1])]
    statements = [
        span("purpose", chunk.chunk_id, chunk.text, start, end, "purpose_statement")
        for chunk in chunks
        if not (chunk.heading_path and chunk.heading_path[-1] in _BOILERPLATE)
        for start, end in _statements(chunk)
    ]
    return [*_first_sentences(headed, "purpose_heading"), *statements, *_first_sentences(scoped, "scope_heading")]


def _statements(chunk: SourceChunk) -> list[tuple[int, int]]:
    """Statement sentences; one that announces a list (`… ini meliputi:`) takes its items along,
    up to the next ayat or the end of the list."""
    bounds = _sentences_past_headings(chunk)
    found = []
    for index, (start, end) in enumerate(bounds):
        if not _STATEMENT.match(chunk.text, start):
            continue
        if chunk.text[start:end].endswith(":"):
            items = [b for b in bounds[index + 1 : index + 1 + _MAX_LIST_SENTENCES]]
            for item_start, item_end in items:
                if _AYAT.match(chunk.text, item_start) or item_end - start > _MAX_PURPOSE_CHARS:
                    break
                end = item_end
            if chunk.text[start:end].endswith(":"):
                continue  # the list is in another chunk: the statement alone says nothing
        found.append((start, end))
    return found


def _sentences_past_headings(chunk: SourceChunk) -> list[tuple[int, int]]:
    """Sentence bounds, a sentence that begins with its section's heading lines (`Pasal 2`,
    `Abstract`) starting after them."""
    headings = [" ".join(h.split()) for h in chunk.heading_path]
    found = []
    for start, end in sentences(chunk.text):
        for _ in range(_MAX_TITLE_LINES):
            line_end = chunk.text.find("\n", start, end)
            line = " ".join(chunk.text[start:line_end].split()) if line_end > 0 else ""
            if not line or not any(h.startswith(line) for h in headings):
                break
            start = line_end + _lead(chunk.text[line_end:end])
        found.append((start, end))
    return found


def _first_sentences(chunks: Sequence[SourceChunk], cue: str) -> list[Candidate]:
    """The first sentence under each section's heading that is no heading and opens no list."""
    found, seen = [], set()
    for chunk in chunks:
        heading = chunk.heading_path[-1]
        if heading in seen:
            continue
        for start, end in _sentences_past_headings(chunk):
            sentence = chunk.text[start:end]
            if sentence != heading and not sentence.endswith(":"):
                found.append(span("purpose", chunk.chunk_id, chunk.text, start, end, cue))
                seen.add(heading)
                break
    return found


def _all_lines(text: str) -> list[tuple[int, int]]:
    """Every line's bounds, blank ones included."""
    bounds, offset = [], 0
    for line in text.split("\n"):
        bounds.append((offset, offset + len(line)))
        offset += len(line) + 1
    return bounds


def _lead(text: str) -> int:
    return len(text) - len(text.lstrip())


def _rstrip(text: str, end: int) -> int:
    while end > 0 and text[end - 1].isspace():
        end -= 1
    return end
