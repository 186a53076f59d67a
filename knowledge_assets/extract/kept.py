"""Partial results never displace complete ones (D58): what a failed call could not produce is
not replaced by nothing. Where a run's call for some terms (glossary), some chunks (formulas,
rules) or the domain context failed, the rows the branch's last write stored for exactly those
terms or chunks stay, and are marked as kept (`kept_rows`). The rows of every call that was
answered are this run's, as before.

A row is kept only when it answers what went unanswered, when it came from the same parsed text
(`store.knowledge.earlier_result` returns nothing across a change of text), and when its span is
still a verbatim slice of the chunk it cites. Kept rows keep their ids (content hashes), so the
experts' decisions stay attached; a later run whose calls are answered replaces them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from knowledge_assets import contracts as c
from knowledge_assets.llm.requests import GlossaryRequest
from knowledge_assets.llm.results import CallResult
from knowledge_assets.store.knowledge import EarlierResult
from knowledge_assets.verify.spans import is_verbatim, pieces_problem

# The figure each knowledge asset's materialisation reports: its rows kept from an earlier run.
KEPT_FIGURE = "kept_from_earlier_run"


@dataclass(frozen=True)
class Kept:
    """The entities of one write, and the ids among them that an earlier run produced. What
    `keep_by_chunk` returns (formulas, rules) is drawn once, as the stage consumes it: its `ids`
    are complete only once its entities are exhausted. `keep_terms` and `keep_domain` return
    lists, which the glossary and the domain stage read more than once."""

    entities: Iterable
    ids: list[str]


def unanswered_keys(results: Sequence[CallResult]) -> set[str]:
    """What the failed calls asked about: the term ids of a glossary request, the chunk ids of a
    formula or rule request."""
    keys: set[str] = set()
    for result in results:
        if result.ok:
            continue
        if isinstance(result.request, GlossaryRequest):
            keys.update(cluster.key for cluster in result.request.clusters)
        else:
            keys.update(chunk.chunk_id for chunk in result.request.chunks)
    return keys


def _still_cited(provenance: c.Provenance, chunks: dict[str, c.Chunk]) -> bool:
    """Whether the provenance's span is still where it says: in its chunk, or in pieces across
    the consecutive chunks it names (D56)."""
    if provenance.pieces:
        return pieces_problem(provenance.span, provenance.chunk_id,
                              [(piece.chunk_id, piece.span) for piece in provenance.pieces],
                              {i: chunk.text for i, chunk in chunks.items()},
                              {i: chunk.seq for i, chunk in chunks.items()}) is None
    chunk = chunks.get(provenance.chunk_id or "")
    return chunk is not None and is_verbatim(provenance.span, chunk.text)


def keep_terms(entries: Sequence[c.GlossaryEntry], earlier: EarlierResult, unanswered: set[str],
               chunks: dict[str, c.Chunk]) -> Kept:
    """Each entry escalated because its call failed gives way to the entry the earlier run
    stored for the same term, when that one holds an answer (it was not escalated itself)."""
    stored = {e.term_id: e for e in earlier.entities
              if e.extraction_status != "escalated" and _still_cited(e.provenance, chunks)}
    result, ids = [], []
    for entry in entries:
        previous = stored.get(entry.term_id)
        if entry.extraction_status == "escalated" and entry.term_id in unanswered and previous is not None:
            result.append(previous)
            ids.append(entry.term_id)
        else:
            result.append(entry)
    return Kept(result, ids)


def keep_by_chunk(entities: Iterable, earlier: EarlierResult, unanswered: set[str], chunks: dict[str, c.Chunk],
                  id_field: str) -> Kept:
    """This run's formulas or rules, then the earlier run's from the chunks whose call failed
    (one whose id this run produced again is this run's), drawn as this run's are (a long
    document's rules are never all held, D104)."""
    ids: list[str] = []
    return Kept(_with_kept(entities, earlier, unanswered, chunks, id_field, ids), ids)


def _with_kept(entities: Iterable, earlier: EarlierResult, unanswered: set[str], chunks: dict[str, c.Chunk],
               id_field: str, ids: list[str]) -> Iterator:
    taken: set[str] = set()
    for entity in entities:
        taken.add(getattr(entity, id_field))
        yield entity
    for entity in earlier.entities:
        entity_id = getattr(entity, id_field)
        if (entity.provenance.chunk_id in unanswered and entity_id not in taken
                and _still_cited(entity.provenance, chunks)):
            ids.append(entity_id)
            yield entity


def keep_domain(built: c.DomainContext, earlier: EarlierResult, answered: bool,
                chunks: dict[str, c.Chunk]) -> Kept:
    """The domain context's model fields (title, purpose, key parameters and their provenance)
    as the earlier run stored them, when this run's call failed and the earlier one found any;
    what code derives (outline, links, counts) is derived again."""
    previous = next(iter(earlier.entities), None)
    if answered or previous is None or not _still_cited(previous.provenance, chunks):
        return Kept([built], [])
    if previous.title is None and previous.purpose_verbatim is None and not previous.key_parameters:
        return Kept([built], [])
    domain = built.model_copy(update={
        "title": previous.title, "purpose_verbatim": previous.purpose_verbatim, "provenance": previous.provenance,
        "key_parameters": [c.KeyParameter(surface=k.surface) for k in previous.key_parameters],
    })
    return Kept([domain], [domain.domain_id])


def kept_rejections(earlier: EarlierResult, kept: Sequence[c.GlossaryEntry]) -> list[c.RejectedField]:
    """The earlier run's span-check rejections of the entries kept from it: a kept entry whose
    definition was rejected is still reviewed as one."""
    terms = {e.term for e in kept}
    return [r for r in earlier.rejected if r.entry_term in terms]
