"""Offline domain context: locate, don't summarise (seed 001 §1).

- title: the document's top heading when it has one, else the first lines of its first chunk
  that are not a running header (`Company | Doc-No …`) or a `Key: value` field;
- purpose_verbatim: the first sentence under a Tujuan / Purpose / Maksud / Scope / Ruang
  Lingkup heading, purpose headings first;
- key_parameters: the `Long Form (ABBR)` names in that sentence, then in the outline.
"""

from __future__ import annotations

import re

from knowledge_assets.llm.offline.text import abbreviation_pairs, lines, sentences
from knowledge_assets.llm.requests import DomainContextRequest, SourceChunk
from knowledge_assets.llm.responses import DomainContextResponse

_PURPOSE_HEADINGS = (
    re.compile(r"\b(?:tujuan|purpose|maksud|objective)\b", re.IGNORECASE),
    re.compile(r"\b(?:scope|ruang lingkup)\b", re.IGNORECASE),
)
_NOT_TITLE = re.compile(r"\||:|\d")
_MAX_TITLE_LINES = 3
MAX_KEY_PARAMETERS = 12


def answer_domain_context(request: DomainContextRequest) -> DomainContextResponse:
    title = _title(request.chunks[0])
    purpose = _purpose(request.chunks)
    key_parameters = _key_parameters(purpose[1] if purpose else "", request.outline)
    evidence = purpose or title
    return DomainContextResponse(
        title=title[1] if title else None,
        purpose_verbatim=purpose[1] if purpose else None,
        key_parameters=key_parameters,
        span=evidence[1] if evidence else None,
        chunk_id=evidence[0].chunk_id if evidence else None,
    )


def _title(chunk: SourceChunk) -> tuple[SourceChunk, str] | None:
    if chunk.heading_path and chunk.heading_path[0] in chunk.text and not re.match(r"\d", chunk.heading_path[0]):
        return chunk, chunk.heading_path[0]
    header = " ".join(chunk.text[s:e] for s, e in lines(chunk.text) if "|" in chunk.text[s:e])
    picked: list[tuple[int, int]] = []
    for start, end in lines(chunk.text):
        line = chunk.text[start:end].strip()
        title_like = line and not _NOT_TITLE.search(line) and line not in header
        if title_like and len(picked) < _MAX_TITLE_LINES:
            picked.append((start, end))
        elif picked:
            break
    if not picked:
        return None
    return chunk, chunk.text[picked[0][0]:picked[-1][1]].strip()


def _purpose(chunks: list[SourceChunk]) -> tuple[SourceChunk, str] | None:
    for heading_pattern in _PURPOSE_HEADINGS:
        for chunk in chunks:
            heading = chunk.heading_path[-1] if chunk.heading_path else ""
            if not heading_pattern.search(heading):
                continue
            for start, end in sentences(chunk.text):
                sentence = chunk.text[start:end]
                if sentence != heading and not sentence.endswith(":"):
                    return chunk, sentence
    return None


def _key_parameters(purpose: str, outline: list[str]) -> list[str]:
    """The parameters the purpose names, then those the headings define, one per abbreviation."""
    by_abbreviation: dict[str, str] = {}
    for text in (purpose, *outline):
        for (start, end), abbreviation in abbreviation_pairs(text):
            by_abbreviation.setdefault(abbreviation, text[start:text.index(")", end) + 1])
    return list(by_abbreviation.values())[:MAX_KEY_PARAMETERS]
