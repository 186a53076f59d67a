"""Removing a document from the store: its rows in every table that holds a `doc_id`.

The tables are found from the schema (store/schema.py), so a table added later is covered
without a change here. Two kinds of rows are not the document's own and stay:

- `llm_cache` has no doc_id: an answer is keyed by the request, which another document (or the
  same file registered again) may send;
- `knowledge_reviews`, the experts' decisions, and `review_batches`, which of them were taken
  together (an undo of a batch needs it), unless asked: kept, they apply again if the document
  comes back with the same content (review/status.py), so removing a document by mistake loses
  no review work. `approved_knowledge` is derived from them and always goes.

The review pages' images of the document (`review_pages/<doc_id>/` beside the store file) go
with its rows: they are drawings of a document the store no longer holds, and a document added
later under the same id must not be shown another's pages.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from knowledge_assets.store.protocol import Store
from knowledge_assets.store.schema import TABLES

DECISIONS_TABLE = "knowledge_reviews"
# The decisions' record: kept unless the decisions are removed too.
DECISION_TABLES = (DECISIONS_TABLE, "review_batches")


def review_page_cache(state_dir: Path, doc_id: str) -> Path:
    """The folder of the document's page images the review pages drew, in the state folder."""
    return state_dir / "review_pages" / doc_id


def document_tables(with_decisions: bool) -> list[str]:
    """Every table with a doc_id column, the decisions' only when `with_decisions`."""
    return [table for table, columns in TABLES.items()
            if "doc_id" in columns and (with_decisions or table not in DECISION_TABLES)]


def document_row_counts(store: Store, doc_id: str) -> dict[str, int]:
    """How many rows the document has in each table that holds any (decisions included)."""
    counts = {}
    for table in document_tables(with_decisions=True):
        n = store.fetch(f'SELECT count(*) AS n FROM "{table}" WHERE doc_id = ?', [doc_id])[0]["n"]
        if n:
            counts[table] = n
    return counts


def remove_document_rows(store: Store, doc_id: str, with_decisions: bool) -> dict[str, int]:
    """Deletes the document's rows from every table of `document_tables`, in one transaction;
    returns the rows deleted per table (tables it had none in left out)."""
    before = document_row_counts(store, doc_id)
    tables = [table for table in document_tables(with_decisions) if table in before]
    store.replace_partition(doc_id, {table: [] for table in tables})
    if Path(doc_id).name == doc_id and doc_id not in (".", ".."):  # a folder of its own, nothing above it
        shutil.rmtree(review_page_cache(store.state_dir, doc_id), ignore_errors=True)
    return {table: before[table] for table in tables}
