"""The domain-context branch (docs/contract.md, domain context v3): derived beats classified
beats generated.

`outline` is derived from the heading paths; `title` and `purpose_verbatim` are located by the
model among the candidates the stage found (`candidates/domain.py`) and guarded like any
transcription; `key_parameters` are selected by the model and
corroborated by the link stage; `subdomains` aggregate the glossary's own tags and the counts are
taken after everything else (`domain_derivations.complete_domain`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from knowledge_assets import ids
from knowledge_assets.branches import DOMAIN_CONTEXT
from knowledge_assets.candidates.domain import find_domain
from knowledge_assets.candidates.model import Candidate
from knowledge_assets.candidates.packs import cues
from knowledge_assets.contracts import (
    Chunk,
    DomainContext,
    KeyParameter,
    RejectedField,
)
from knowledge_assets.extract.guard import guard
from knowledge_assets.extract.provenance import cited_first, first_line_provenance, locate_provenance
from knowledge_assets.llm.requests import DomainContextRequest, SourceChunk
from knowledge_assets.llm.responses import DomainContextResponse
from knowledge_assets.llm.results import CallFailure

LEADING_CHUNKS = 3
MAX_REQUEST_CHUNKS = 10
MAX_CANDIDATES_PER_KIND = 3
DEFINITION_CHUNKS = 4
_PURPOSE_HEADING = re.compile(
    r"tujuan|maksud|ruang lingkup|pendahuluan|purpose|scope|objective|introduction", re.IGNORECASE
)


_DEFINITION_HEADING = re.compile(
    r"\b(?:" + "|".join(re.escape(w) for w in cues("domain").get("definition_headings", ())) + r")\b"
)
_DEFINITION_INTROS = cues("domain").get("definition_intros", ())


@dataclass(frozen=True)
class DomainBuild:
    domain: DomainContext
    rejected: list[RejectedField]


def outline(chunks: Sequence[Chunk]) -> list[str]:
    """Every heading, in reading order, once, as the document words it."""
    return list(dict.fromkeys(heading for chunk in chunks for heading in chunk.heading_path))


def _source(chunk: Chunk) -> SourceChunk:
    return SourceChunk(chunk_id=chunk.chunk_id, text=chunk.text, heading_path=chunk.heading_path)


def domain_candidates(chunks: Sequence[Chunk]) -> list[Candidate]:
    """The best few title and purpose candidates of each cue, in the finder's order."""
    kept: list[Candidate] = []
    for candidate in find_domain([_source(c) for c in chunks]):
        if sum(k.kind == candidate.kind and k.cue == candidate.cue for k in kept) < MAX_CANDIDATES_PER_KIND:
            kept.append(candidate)
    return kept


def request_chunks(chunks: Sequence[Chunk], candidates: Sequence[Candidate] | None = None) -> list[Chunk]:
    """The document's opening, the chunks holding the candidates, the first chunk of any purpose
    or scope section, then the opening of its definitions (where its central terms are defined),
    in reading order."""
    candidates = domain_candidates(chunks) if candidates is None else candidates
    holding = {c.chunk_id for c in candidates}
    purpose = [c for c in chunks if c.heading_path and _PURPOSE_HEADING.search(c.heading_path[-1])]
    defining = _definition_chunks(chunks)
    chosen = [*chunks[:LEADING_CHUNKS], *(c for c in chunks if c.chunk_id in holding), *purpose, *defining]
    kept = {c.chunk_id for c in list({c.chunk_id: c for c in chosen}.values())[:MAX_REQUEST_CHUNKS]}
    return [c for c in chunks if c.chunk_id in kept]


def _definition_chunks(chunks: Sequence[Chunk]) -> list[Chunk]:
    """The first chunks of the definitions: under a definitions heading (`Terminology`,
    `KETENTUAN UMUM`), or from the chunk that opens the list (`… yang dimaksud dengan:`),
    staying inside that section."""
    first = next((i for i, c in enumerate(chunks)
                  if any(_DEFINITION_HEADING.search(h) for h in c.heading_path)
                  or any(intro in c.text for intro in _DEFINITION_INTROS)), None)
    if first is None:
        return []
    section = chunks[first].heading_path
    return [c for c in chunks[first : first + DEFINITION_CHUNKS] if c.heading_path[: len(section)] == section]


def domain_request(chunks: Sequence[Chunk]) -> DomainContextRequest:
    candidates = domain_candidates(chunks)
    sources = request_chunks(chunks, candidates)
    held = {c.chunk_id for c in sources}
    return DomainContextRequest(
        outline=outline(chunks),
        chunks=[_source(c) for c in sources],
        candidates=[c for c in candidates if c.chunk_id in held],
    )


def build_domain(
    doc_id: str, chunks: Sequence[Chunk], answer: DomainContextResponse | CallFailure | None
) -> DomainBuild:
    sources = request_chunks(chunks)
    base = {"domain_id": ids.domain_id(doc_id), "outline": outline(chunks)}
    if not isinstance(answer, DomainContextResponse):
        return DomainBuild(DomainContext(**base, provenance=first_line_provenance(doc_id, sources[0])), [])
    kept, rejected = guard(
        DOMAIN_CONTEXT, "domain_context",
        {"title": answer.title, "purpose_verbatim": answer.purpose_verbatim},
        [c.text for c in sources],
    )
    ordered = cited_first(sources, answer.chunk_id)
    provenance = locate_provenance(doc_id, ordered, [answer.span, kept["purpose_verbatim"], kept["title"]])
    surfaces = [s.strip() for s in answer.key_parameters if s.strip()]
    return DomainBuild(
        DomainContext(
            **base,
            title=kept["title"],
            purpose_verbatim=kept["purpose_verbatim"],
            key_parameters=[KeyParameter(surface=s) for s in dict.fromkeys(surfaces)],
            provenance=provenance or first_line_provenance(doc_id, sources[0]),
        ),
        rejected,
    )
