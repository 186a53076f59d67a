"""Reads of a document's term funnel: its cluster rows, and its mentions after the noise filter.

The rows come back as DuckDB returns them; `terms/store.py` turns them into its own types
(the store never imports the terms package)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from knowledge_assets.store.protocol import Store
from knowledge_assets.store.rows import each_tuple


def cluster_rows(store: Store, doc_id: str) -> list[dict[str, Any]]:
    """The document's `term_clusters` rows in review order (rank 1 first)."""
    return store.fetch("SELECT * FROM term_clusters WHERE doc_id = ? ORDER BY rank", [doc_id])


def clustered_mentions(store: Store, doc_id: str) -> Iterator[tuple[str, int, int, str]]:
    """(chunk_id, char_start, char_end, term_id) of every mention kept by the noise filter
    and assigned to a cluster, in reading order: the rows as the engine's tuples, not a dict
    each, fetched a batch at a time (`each_tuple`). RFC 9002 repeated to 50 MB has a million,
    and all of them at once were the glossary stage's peak (D106)."""
    return each_tuple(
        store,
        "SELECT chunk_id, char_start, char_end, term_id FROM term_mentions "
        "WHERE doc_id = ? AND noise IS NULL AND term_id IS NOT NULL ORDER BY chunk_id, char_start",
        [doc_id],
    )


def definition_candidate_rows(store: Store, doc_id: str) -> list[str]:
    """The document's definition candidates as the JSON each was stored as, in document order."""
    with store.connect() as con:
        rows = con.execute("SELECT candidate FROM definition_candidates WHERE doc_id = ? ORDER BY position",
                           [doc_id]).fetchall()
    return [candidate for (candidate,) in rows]


def kept_mention_count(store: Store, doc_id: str) -> int:
    """How many of the document's mentions the noise filter kept (clustered or not)."""
    (kept,) = store.fetch("SELECT count(*) AS n FROM term_mentions WHERE doc_id = ? AND noise IS NULL", [doc_id])
    return kept["n"]


def term_mentions_in_text(store: Store, doc_id: str, term_id: str) -> list[dict[str, Any]]:
    """Every mention of the term with its chunk's text and place (char_start, char_end, text,
    page_no, section_no, seq), in reading order."""
    return store.fetch(
        """SELECT m.char_start, m.char_end, c.text, c.page_no, c.section_no, c.seq FROM term_mentions m
           JOIN parsed_chunks c ON c.doc_id = m.doc_id AND c.chunk_id = m.chunk_id
           WHERE m.doc_id = ? AND m.term_id = ? ORDER BY c.seq, m.char_start""",
        [doc_id, term_id],
    )
