"""Writes a document's term funnel as its partition's rows and reads the clusters back
(the SQL is in `store/terms.py`)."""

from __future__ import annotations

from knowledge_assets.candidates.model import Candidate
from knowledge_assets.contracts import Provenance
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.terms import cluster_rows, definition_candidate_rows
from knowledge_assets.store.terms import clustered_mentions as clustered_mentions  # extract/stages.py reads it here
from knowledge_assets.terms.clusters import TermCluster
from knowledge_assets.terms.funnel import TermFunnel


def write_terms(store: Store, funnel: TermFunnel) -> None:
    """Replaces the document's mentions, definition candidates and clusters together, so they
    never disagree. The rows are generators, which the store inserts a batch at a time."""
    store.replace_partition(
        funnel.doc_id,
        {
            "term_mentions": (
                {
                    "doc_id": funnel.doc_id,
                    "chunk_id": m.chunk_id,
                    "char_start": m.start,
                    "char_end": m.end,
                    "surface": m.surface,
                    "kind": m.kind,
                    "noise": m.noise,
                    "term_id": m.term_id,
                }
                for m in funnel.mentions
            ),
            "definition_candidates": (
                {"doc_id": funnel.doc_id, "position": position, "candidate": candidate.model_dump_json()}
                for position, candidate in enumerate(funnel.definitions)
            ),
            "term_clusters": (
                {
                    "doc_id": c.doc_id,
                    "term_id": c.term_id,
                    "canonical": c.canonical,
                    "abbreviation": c.abbreviation,
                    "long_forms": list(c.long_forms),
                    "surfaces": list(c.surfaces),
                    "mention_count": c.mention_count,
                    "rank": c.rank,
                    "provenance": c.provenance.model_dump(),
                }
                for c in funnel.clusters
            ),
        },
    )


def load_definitions(store: Store, doc_id: str) -> list[Candidate]:
    """The definition candidates the term stage found in the document, in document order; empty
    when none were stored (none found, or terms written before they were stored)."""
    return [Candidate.model_validate_json(row) for row in definition_candidate_rows(store, doc_id)]


def load_clusters(store: Store, doc_id: str) -> list[TermCluster]:
    """The document's clusters in review order (rank 1 first); empty if none were written."""
    return [
        TermCluster(
            doc_id=row["doc_id"],
            term_id=row["term_id"],
            canonical=row["canonical"],
            abbreviation=row["abbreviation"],
            long_forms=tuple(row["long_forms"]),
            surfaces=tuple(row["surfaces"]),
            mention_count=row["mention_count"],
            rank=row["rank"],
            provenance=Provenance(**row["provenance"]),
        )
        for row in cluster_rows(store, doc_id)
    ]

