"""Offline domain context: locate, don't summarise (seed 001 §1). It selects among the
request's title and purpose candidates (`candidates/domain.py`) by the strength of their cue:

- title: the front matter's `title:` value, a regulation's heading (instrument, NOMOR, TENTANG
  and subject), an RFC's centred title, the document's top heading, its first title-like lines;
  a candidate without a letter (`---`) is never a title;
- purpose_verbatim: the first sentence under a Purpose / Tujuan section that opens the
  document, else the document's first statement of what it does (`This document specifies …`,
  `Peraturan … ini mengatur …`), else the first sentence under a Scope / Ruang Lingkup section;
  none when there is no candidate;
- key_parameters: the `Long Form (ABBR)` names in the purpose, the title and the outline, one per
  abbreviation — never an authority (`Menteri`, `BAPETEN`, `IETF`: `authority_names` in
  packs/*/domain.json), which issues the document rather than being its subject, nor a company
  (`PT …`, `… Inc.`: `organisation_markers`).
"""

from __future__ import annotations

from knowledge_assets.candidates.model import Candidate
from knowledge_assets.candidates.packs import cues
from knowledge_assets.llm.offline.text import abbreviation_pairs
from knowledge_assets.llm.requests import DomainContextRequest
from knowledge_assets.llm.responses import DomainContextResponse

TITLE_CUES = ("front_matter_title", "regulation_heading", "rfc_title", "top_heading", "first_lines")
PURPOSE_CUES = ("purpose_heading", "purpose_statement", "scope_heading")
MAX_KEY_PARAMETERS = 12
_AUTHORITIES = frozenset(name.casefold() for name in cues("domain").get("authority_names", ()))
_ORGANISATION_MARKERS = frozenset(cues("domain").get("organisation_markers", ()))


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
        key_parameters=_key_parameters([*texts, *request.outline]),
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


def _key_parameters(texts: list[str]) -> list[str]:
    """The parameters the purpose and title name, then those the headings define, one per
    abbreviation, authorities left out."""
    by_abbreviation: dict[str, str] = {}
    for text in texts:
        for (start, end), abbreviation in abbreviation_pairs(text):
            surface = text[start:text.index(")", end) + 1]
            long_form = text[start:end].strip(" (")
            if {abbreviation.casefold(), long_form.casefold()} & _AUTHORITIES or _names_organisation(text, start, end):
                continue
            by_abbreviation.setdefault(abbreviation, surface)
    return list(by_abbreviation.values())[:MAX_KEY_PARAMETERS]
