"""Offline glossary: a definition sentence per term cluster, its long form, subdomain tags.

The definition is SELECTED among the cluster's definition candidates (the stage found them by
the genre's conventions, `candidates/definitions.py`), surest first (`defining_first`: a
glossary's own entry, then a defining sentence, then a weak copula, a formula legend only
when nothing else defines the term), then in document order. A term without
candidates abstains (definition null), which is the correct answer for most terms of a
document (contract §3: 48 of 58); reading any `X: …` line as a definition, as this module
once did, made `Menetapkan : PERATURAN …` one.
"""

from __future__ import annotations

from knowledge_assets.candidates.definitions import defining_first
from knowledge_assets.candidates.model import Candidate
from knowledge_assets.llm.offline.abbreviation_pairs import abbreviation_pairs
from knowledge_assets.llm.requests import GlossaryRequest, SourceChunk, TermBlock
from knowledge_assets.llm.responses import GlossaryResponse, GlossaryTerm
from knowledge_assets.subdomains import subdomain_tags


def answer_glossary(request: GlossaryRequest) -> GlossaryResponse:
    return GlossaryResponse(
        terms=[_answer_cluster(number, cluster, request.mining_document)
               for number, cluster in enumerate(request.clusters, start=1)]
    )


def _surfaces(cluster: TermBlock) -> list[str]:
    ordered = [cluster.abbreviation, cluster.canonical, *cluster.long_forms]
    return list(dict.fromkeys(s for s in ordered if s and s.strip()))


def _answer_cluster(number: int, cluster: TermBlock, mining_document: bool) -> GlossaryTerm:
    surfaces = _surfaces(cluster)
    selected = _select_candidate(cluster)
    full_name = _find_full_name(cluster)
    if selected is not None:
        text = selected.part("definition").text  # type: ignore[union-attr]
        evidence = (next(c for c in cluster.chunks if c.chunk_id == selected.chunk_id), text)
        expansion = selected.part("expansion")
        if expansion is not None and full_name is None and cluster.abbreviation:
            full_name = expansion.text
    else:
        text = None
        evidence = _find_mention(cluster.chunks, surfaces)
    tag_source = " ".join(filter(None, [text, *surfaces]))
    return GlossaryTerm(
        cluster=number,
        term=cluster.abbreviation or cluster.canonical,
        full_name=full_name,
        definition=text,
        # The enum is a mining operation's parts: outside mining no tag is the document's own.
        subdomain_tags=subdomain_tags(tag_source) if mining_document else [],  # type: ignore[arg-type]
        span=evidence[1] if evidence else None,
        chunk_id=evidence[0].chunk_id if evidence else None,
    )


def _select_candidate(cluster: TermBlock) -> Candidate | None:
    """The surest candidate, the first in document order among equals, of those whose chunk
    the request carries (the span check quotes the definition against those chunks; both of
    them, for a definition that runs on into the next chunk)."""
    carried = {chunk.chunk_id for chunk in cluster.chunks}
    usable = [c for c in cluster.candidates if c.chunk_id in carried and c.part("definition") is not None
              and (c.next_chunk_id is None or c.next_chunk_id in carried)]
    return next(iter(defining_first(usable)), None)


def _find_full_name(cluster: TermBlock) -> str | None:
    """The long form the document pairs with the abbreviation, as the document spells it."""
    if not cluster.abbreviation:
        return None
    for chunk in cluster.chunks:
        for (start, end), abbreviation in abbreviation_pairs(chunk.text):
            if abbreviation == cluster.abbreviation:
                return chunk.text[start:end]
    for form in cluster.long_forms:
        if any(form in chunk.text for chunk in cluster.chunks):
            return form
    return None


def _find_mention(chunks: list[SourceChunk], surfaces: list[str]) -> tuple[SourceChunk, str] | None:
    for chunk in chunks:
        for surface in surfaces:
            if surface in chunk.text:
                return chunk, surface
    return None
