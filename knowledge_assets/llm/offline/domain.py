"""Offline domain context: locate, don't summarise (docs/contract.md v3 §1). It selects among the
request's title and purpose candidates (`candidates/domain.py`) by the strength of their cue:

- title: the front matter's `title:` value, a regulation's heading (instrument, NOMOR, TENTANG
  and subject), an RFC's centred title, the document's top heading, its first title-like lines;
  a candidate without a letter (`---`) is never a title;
- purpose_verbatim: the first sentence under a Purpose / Tujuan section that opens the
  document, else the document's first statement of what it does (`This document specifies …`,
  `Peraturan … ini mengatur …`), else the first sentence under a Scope / Ruang Lingkup section;
  none when there is no candidate;
- key_parameters: the `Long Form (ABBR)` names in the purpose and the title, then the terms the
  document defines (`Term yang selanjutnya disingkat …`, `Term adalah …`, `Long Form (ABBR)`)
  whose name the title or the purpose uses — its central terms —, then the `Long Form (ABBR)`
  names of the outline, one per abbreviation or name — never an authority, which issues the
  document rather than being its subject: a generic office (`Menteri`, `IETF`:
  `authority_names`), or a body named by the genre's convention, its head word first in
  Indonesian (`Badan …`, `Kementerian …`, `Direktorat …`: `authority_heads`) or last in English
  (`… Agency`, `… Task Force`: `authority_tails`), with the abbreviation it is paired with —
  nor a company (`PT …`, `… Inc.`: `organisation_markers`).
"""

from __future__ import annotations

import re

from knowledge_assets.candidates.model import Candidate
from knowledge_assets.candidates.packs import cues
from knowledge_assets.llm.offline.abbreviation_pairs import abbreviation_pairs
from knowledge_assets.llm.requests import DomainContextRequest
from knowledge_assets.llm.responses import DomainContextResponse

TITLE_CUES = ("front_matter_title", "regulation_heading", "rfc_title", "top_heading", "first_lines")
PURPOSE_CUES = ("purpose_heading", "purpose_statement", "scope_heading")
MAX_KEY_PARAMETERS = 12
_AUTHORITIES = frozenset(name.casefold() for name in cues("domain").get("authority_names", ()))
_AUTHORITY_HEADS = frozenset(name.casefold() for name in cues("domain").get("authority_heads", ()))
_AUTHORITY_TAILS = tuple(name.casefold() for name in cues("domain").get("authority_tails", ()))
_ORGANISATION_MARKERS = frozenset(cues("domain").get("organisation_markers", ()))
_LINKS = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in cues("domain").get("definition_links", ()))
# A defined term opens its line (after a list number) and its definition follows the link.
_DEFINED_TERM = re.compile(rf"(?:^|\n)[ \t]*(?:\d{{1,3}}\.\s+)?(?P<term>[A-Z][^\n.;:()]{{1,80}}?)\s+(?:{_LINKS})\b")


def answer_domain_context(request: DomainContextRequest) -> DomainContextResponse:
    in_request = {c.chunk_id for c in request.chunks}
    offered = [c for c in request.candidates if c.chunk_id in in_request]
    title = _select(offered, "title", TITLE_CUES)
    purpose = _select(offered, "purpose", PURPOSE_CUES)
    texts = [c.text for c in (purpose, title) if c]
    evidence = purpose or title
    return DomainContextResponse(
        title=title.text if title else None,
        purpose_verbatim=purpose.text if purpose else None,
        key_parameters=_key_parameters(texts, [c.text for c in request.chunks], request.outline),
        span=evidence.text if evidence else None,
        chunk_id=evidence.chunk_id if evidence else None,
    )


def _select(candidates: list[Candidate], kind: str, by_strength: tuple[str, ...]) -> Candidate | None:
    """The candidate of the strongest cue, the earliest in the document among equals (the list
    comes in document order within each cue)."""
    eligible = [c for c in candidates if c.kind == kind and c.cue in by_strength and any(ch.isalpha() for ch in c.text)]
    return min(eligible, key=lambda c: by_strength.index(c.cue), default=None)


def _names_organisation(text: str, start: int, end: int) -> bool:
    """`PT Samudra Karya Tambang (SKT)`, `Widget Company (WC)`: a company, not a parameter."""
    words = [*text[max(0, start - 8):start].split()[-1:], *text[start:end].split()]
    return any(word in _ORGANISATION_MARKERS for word in words)


def _key_parameters(stated: list[str], chunks: list[str], outline: list[str]) -> list[str]:
    """The parameters the purpose and title name, the central defined terms, then those the
    headings define; authorities and companies left out."""
    found: dict[str, str] = {}  # abbreviation or folded name -> surface
    for text in stated:
        _add_pairs(found, text)
    said = _folded(" ".join(stated))
    for text in chunks:
        for match in _DEFINED_TERM.finditer(text):
            term = match["term"].strip()
            if _mentions(said, term) and not _is_authority(term):
                found.setdefault(_folded(term), term)
        for (start, end), abbreviation in abbreviation_pairs(text):
            if _mentions(said, text[start:end]):
                _add_pair(found, text, start, end, abbreviation)
    for text in outline:
        _add_pairs(found, text)
    surfaces = list(dict.fromkeys(found.values()))
    return surfaces[:MAX_KEY_PARAMETERS]


def _add_pairs(found: dict[str, str], text: str) -> None:
    for (start, end), abbreviation in abbreviation_pairs(text):
        _add_pair(found, text, start, end, abbreviation)


def _add_pair(found: dict[str, str], text: str, start: int, end: int, abbreviation: str) -> None:
    long_form = text[start:end].strip(" (")
    if _is_authority(abbreviation) or _is_authority(long_form) or _names_organisation(text, start, end):
        return
    if _folded(long_form) not in found:
        found.setdefault(abbreviation, text[start:text.index(")", end) + 1])
        found.setdefault(_folded(long_form), found[abbreviation])


def _is_authority(name: str) -> bool:
    folded = _folded(name)
    words = folded.split()
    return (folded in _AUTHORITIES or (len(words) > 1 and words[0] in _AUTHORITY_HEADS)
            or any(folded.endswith(" " + tail) for tail in _AUTHORITY_TAILS))


def _mentions(said: str, name: str) -> bool:
    """Whether the folded title and purpose use `name` as whole words."""
    return re.search(rf"(?<!\w){re.escape(_folded(name))}(?!\w)", said) is not None


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()
