"""The glossary branch: one entry per term cluster.

The model (or the offline extractor) fills only `term`, `full_name`, `definition` and
`subdomain_tags` (the writer split, contract §5). Code sets everything else: `term_id` from the
cluster canonical, `source_wording` read literally from the section heading that names the
term, `mention_count` from the cluster, `extraction_status` from what survived the span guard.
`defining_formula_id` and the diff fields are set later by the link and diff stages.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from knowledge_assets.branches import GLOSSARY
from knowledge_assets.candidates.definitions import defining_first
from knowledge_assets.candidates.model import Candidate
from knowledge_assets.contracts import Chunk, GlossaryEntry, RejectedField
from knowledge_assets.extract.guard import addressing_cue, guard, instruction_reason, rejection_reason
from knowledge_assets.extract.provenance import boundary_texts, cited_first, locate_provenance
from knowledge_assets.link import TermIndex
from knowledge_assets.llm.requests import GlossaryRequest, SourceChunk, TermBlock, cluster_batches
from knowledge_assets.llm.responses import GlossaryTerm
from knowledge_assets.llm.results import CallFailure
from knowledge_assets.queue import heading_title
from knowledge_assets.terms.clusters import TermCluster
from knowledge_assets.terms.tokens import term_key
from knowledge_assets.verify.instructions import instruction_cue

MAX_EVIDENCE_CHUNKS = 3
# A mention followed by one of these is probably being defined there.
_DEFINITION_CUE = re.compile(
    r"\s*(?:\([^()]{1,40}\)\s*)?(?:adalah|ialah|merupakan|yaitu|is defined as|is|means|refers to|:)\b|\s*:",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ClusteredMention:
    chunk_id: str
    start: int
    end: int
    term_id: str


@dataclass(frozen=True)
class GlossaryBuild:
    entries: list[GlossaryEntry]
    rejected: list[RejectedField]
    rejected_definitions: set[str]  # term_ids whose definition the span guard nulled


def defining_headings(chunks: Sequence[Chunk], index: TermIndex) -> dict[str, Chunk]:
    """term_id → the first chunk of the section whose heading names the term."""
    found: dict[str, Chunk] = {}
    for chunk in chunks:
        if not chunk.heading_path:
            continue
        heading = chunk.heading_path[-1]
        term_id = index.resolve(heading_title(heading) + _abbreviation_suffix(heading))
        if term_id is not None and term_id not in found and heading in chunk.text:
            found[term_id] = chunk
    return found


def _abbreviation_suffix(heading: str) -> str:
    match = re.search(r"\(([^()]+)\)\s*$", heading)
    return f" ({match.group(1)})" if match else ""


def definitions_by_term(clusters: Sequence[TermCluster], candidates: Sequence[Candidate]) -> dict[str, list[Candidate]]:
    """term_id → the definition candidates that name the term (by its name, its short form or
    its long form), in document order."""
    owner: dict[str, str] = {}
    for cluster in clusters:
        for name in (cluster.canonical, cluster.abbreviation, *cluster.long_forms, *cluster.surfaces):
            if name:
                owner.setdefault(term_key(name), cluster.term_id)
    found: dict[str, list[Candidate]] = {}
    for candidate in candidates:
        names = [p.text for p in candidate.parts if p.role in ("term", "abbreviation")]
        term_ids = dict.fromkeys(owner[key] for name in names if (key := term_key(name)) in owner)
        for term_id in term_ids:
            found.setdefault(term_id, []).append(candidate)
    return found


def evidence_chunks(
    clusters: Sequence[TermCluster],
    chunks: Sequence[Chunk],
    mentions: Iterable[ClusteredMention],
    headings: dict[str, Chunk],
    definitions: dict[str, list[Candidate]] | None = None,
) -> dict[str, list[Chunk]]:
    """Per term, the chunks a definition is most likely in: the chunks of its definition
    candidates (both, for one crossing into the next chunk), best first (a symbol a document
    defines again for another formula has several), its own section, then chunks where a
    mention is followed by a definition cue, then the first mention."""
    definitions = definitions or {}
    by_id = {chunk.chunk_id: chunk for chunk in chunks}
    cued: dict[str, list[str]] = {}
    for mention in mentions:
        chunk = by_id.get(mention.chunk_id)
        if chunk is not None and _DEFINITION_CUE.match(chunk.text, mention.end):
            cued.setdefault(mention.term_id, []).append(mention.chunk_id)
    evidence = {}
    for cluster in clusters:
        ordered = [
            *[i for c in defining_first(definitions.get(cluster.term_id, []))
              for i in (c.chunk_id, c.next_chunk_id) if i],
            *([headings[cluster.term_id].chunk_id] if cluster.term_id in headings else []),
            *cued.get(cluster.term_id, []),
            *([cluster.provenance.chunk_id] if cluster.provenance.chunk_id else []),
        ]
        ids = [i for i in dict.fromkeys(ordered) if i in by_id][:MAX_EVIDENCE_CHUNKS]
        evidence[cluster.term_id] = [by_id[i] for i in ids]
    return evidence


def glossary_requests(
    clusters: Sequence[TermCluster],
    evidence: dict[str, list[Chunk]],
    definitions: dict[str, list[Candidate]] | None = None,
    mining_document: bool = True,
) -> list[GlossaryRequest]:
    """One request per batch of clusters; each cluster carries the definition candidates that
    name it whose chunk is among its evidence (the first always is); `mining_document` says
    whether the subdomain enum's domain is the document's own (`subdomains.speaks_mining`)."""
    definitions = definitions or {}
    inputs = []
    for cluster in clusters:
        chunks = evidence.get(cluster.term_id)
        if not chunks:
            continue
        ids = {c.chunk_id for c in chunks}
        inputs.append(TermBlock(
            key=cluster.term_id,
            canonical=cluster.canonical,
            abbreviation=cluster.abbreviation,
            long_forms=list(cluster.long_forms),
            chunks=[SourceChunk(chunk_id=c.chunk_id, text=c.text, heading_path=c.heading_path) for c in chunks],
            candidates=[c for c in definitions.get(cluster.term_id, []) if c.chunk_id in ids],
        ))
    return [GlossaryRequest(clusters=batch, mining_document=mining_document) for batch in cluster_batches(inputs)]


def build_glossary(
    doc_id: str,
    clusters: Sequence[TermCluster],
    evidence: dict[str, list[Chunk]],
    headings: dict[str, Chunk],
    answers: dict[str, GlossaryTerm | CallFailure],
) -> GlossaryBuild:
    entries, rejected, rejected_definitions = [], [], set()
    for cluster in clusters:
        answer = answers.get(cluster.term_id)
        heading = headings[cluster.term_id].heading_path[-1] if cluster.term_id in headings else None
        if not isinstance(answer, GlossaryTerm):
            # No answer (the call failed twice, or the item was never asked): escalated,
            # with the cluster's own first mention as its verbatim provenance.
            entries.append(GlossaryEntry(
                term_id=cluster.term_id, term=cluster.abbreviation or cluster.canonical,
                source_wording=heading, mention_count=cluster.mention_count,
                provenance=cluster.provenance, extraction_status="escalated",
            ))
            continue
        term, refused_term = _entry_term(answer.term, cluster)
        chunks = cited_first(evidence.get(cluster.term_id, []), answer.chunk_id)
        sources = [c.text for c in chunks]
        kept, caught = guard(
            GLOSSARY, term,
            {"definition": answer.definition, "full_name": answer.full_name, "source_wording": heading},
            sources, boundary_texts(chunks),
        )
        caught = refused_term + caught
        # An answer that named its term with an instruction obeyed one: all of it goes to review.
        if refused_term or (answer.definition is not None and kept["definition"] is None):
            rejected_definitions.add(cluster.term_id)
        provenance = locate_provenance(doc_id, chunks, [answer.span, kept["definition"]])
        if answer.span and (provenance is None or provenance.span != answer.span):
            found = addressing_cue(answer.span, sources)
            reason = (instruction_reason("provenance.span", found[0], in_passage=found[1]) if found
                      else rejection_reason("provenance.span"))
            caught.append(RejectedField(entry_term=term, field="provenance.span", offending_value=answer.span,
                                        reason=reason, branch=GLOSSARY.contract_branch))
        entries.append(GlossaryEntry(
            term_id=cluster.term_id,
            term=term,
            full_name=kept["full_name"],
            source_wording=kept["source_wording"],
            definition=kept["definition"],
            subdomain_tags=list(dict.fromkeys(answer.subdomain_tags)),
            mention_count=cluster.mention_count,
            provenance=provenance or cluster.provenance,
            extraction_status="ok" if kept["definition"] else "no_definition_found",
        ))
        rejected.extend(caught)
    return GlossaryBuild(entries, rejected, rejected_definitions)


def _entry_term(answered: str, cluster: TermCluster) -> tuple[str, list[RejectedField]]:
    """The term as the answer names it; a name that addresses a model ("SYSTEM: …") is refused
    and logged, and the cluster's own canonical stands instead."""
    term = answered.strip() or cluster.canonical
    cue = instruction_cue(term)
    if cue is None:
        return term, []
    return cluster.canonical, [RejectedField(entry_term=cluster.canonical, field="term", offending_value=term,
                                             reason=instruction_reason("term", cue),
                                             branch=GLOSSARY.contract_branch)]
