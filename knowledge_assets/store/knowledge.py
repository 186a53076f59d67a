"""Contract entities in and out of their tables: a row is the entity's JSON shape plus doc_id.

Every branch writes through `write_branch`, so what one branch's write replaces, and what it
appends, is the same for all of them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel

from knowledge_assets import contracts as c
from knowledge_assets.branches import FORMULA, GLOSSARY, RULE, BranchSpec, BranchTable
from knowledge_assets.store.database import Store

Entity = TypeVar("Entity", bound=BaseModel)

# Each branch's stored order is the registry's; the two audit tables beside them keep theirs.
ORDER_BY: BranchTable[str] = BranchTable(
    lambda spec: spec.table, lambda spec: spec.order_by,
    extra={"review_queue": "rank", "rejected_fields": "branch, entry_term, field"},
)


def entity_rows(doc_id: str, entities: list[BaseModel]) -> list[dict]:
    return [{"doc_id": doc_id, **entity.model_dump()} for entity in entities]


def load_entities(store: Store, table: str, doc_id: str, model: type[Entity]) -> list[Entity]:
    rows = store.fetch(f'SELECT * EXCLUDE (doc_id) FROM "{table}" WHERE doc_id = ? ORDER BY {ORDER_BY[table]}',
                       [doc_id])
    return [model.model_validate({k: v for k, v in row.items() if v is not None or k in model.model_fields})
            for row in rows]


def load_branch(store: Store, branch: BranchSpec, doc_id: str) -> list:
    """The document's entities of one branch, as its contract model, in the stored order."""
    return load_entities(store, branch.table, doc_id, branch.model)


def write_branch(
    store: Store,
    branch: BranchSpec,
    doc_id: str,
    entities: Sequence[BaseModel],
    rejected: Sequence[c.RejectedField],
    usage: list[dict],
    history: dict[str, list[dict]] | None = None,
) -> None:
    """One branch's extraction of a document, in one transaction: its entities replace the
    document's rows of the branch's table, its rejected fields replace the branch's share of
    `rejected_fields` (shared by every branch), and its calls' usage rows and any history rows
    are appended."""
    store.replace_partition(
        doc_id,
        {branch.table: entity_rows(doc_id, list(entities)), "rejected_fields": entity_rows(doc_id, list(rejected))},
        scope={"rejected_fields": {"branch": branch.contract_branch}},
        appends={**(history or {}), "llm_usage": usage},
    )


def write_review_queue(store: Store, doc_id: str, rows: Sequence[BaseModel]) -> None:
    """Replaces the document's queue. A term row carries no domain_id key (decision D4); its
    column is null."""
    store.replace_partition(doc_id, {"review_queue": [{"doc_id": doc_id, "domain_id": None, **row.model_dump()}
                                                      for row in rows]})


def latest_glossary_version(store: Store, doc_id: str) -> dict[str, str | None]:
    """term_id -> definition, as the document's latest glossary run stored them (empty before
    its first run): what the diff stage compares this run against."""
    rows = store.fetch(
        "SELECT term_id, definition FROM glossary_versions WHERE doc_id = ? AND run_id = ("
        "SELECT run_id FROM glossary_versions WHERE doc_id = ? ORDER BY created_at DESC LIMIT 1)",
        [doc_id, doc_id],
    )
    return {r["term_id"]: r["definition"] for r in rows}


def rejected_entry_terms(store: Store, doc_id: str, branch: BranchSpec, field: str) -> set[str]:
    """The entries of a branch whose `field` the span guard rejected in the document."""
    rows = store.fetch(
        "SELECT DISTINCT entry_term FROM rejected_fields WHERE doc_id = ? AND branch = ? AND field = ?",
        [doc_id, branch.contract_branch, field],
    )
    return {r["entry_term"] for r in rows}


def document_rows(store: Store, table: str, doc_id: str) -> list[dict]:
    """The document's rows of a knowledge table exactly as DuckDB returns them (doc_id included),
    for the checks, which re-verify what is stored rather than what a model would read back."""
    return store.fetch(f'SELECT * FROM "{table}" WHERE doc_id = ?', [doc_id])


def entity_ids(store: Store, branch: BranchSpec, doc_id: str) -> set[str]:
    rows = store.fetch(f'SELECT "{branch.id_field}" AS id FROM "{branch.table}" WHERE doc_id = ?', [doc_id])
    return {row["id"] for row in rows}


def chunk_sources(store: Store, doc_id: str) -> dict[str, tuple[str, str | None]]:
    """chunk_id -> (text, latex) of the document's parsed chunks, in reading order: what every
    span is checked against (a span crossing a page break, D56, against two consecutive ones)."""
    rows = store.fetch("SELECT chunk_id, text, latex FROM parsed_chunks WHERE doc_id = ? ORDER BY seq", [doc_id])
    return {row["chunk_id"]: (row["text"], row["latex"]) for row in rows}


def cluster_canonicals(store: Store, doc_id: str) -> dict[str, str]:
    """term_id -> canonical of the document's term clusters: what a term_id is derived from."""
    rows = store.fetch("SELECT term_id, canonical FROM term_clusters WHERE doc_id = ?", [doc_id])
    return {row["term_id"]: row["canonical"] for row in rows}


def document_counts(store: Store, doc_id: str) -> dict[str, int]:
    """How many pages the document has, and how many definitions, formulas and rules it yielded."""
    def count(sql: str) -> int:
        return store.fetch(sql, [doc_id])[0]["n"]

    return dict(
        pages=count("SELECT coalesce(max(page_count), 0) AS n FROM parsed_documents WHERE doc_id = ?"),
        definitions=count(f"SELECT count(*) AS n FROM {GLOSSARY.table} WHERE doc_id = ? AND definition IS NOT NULL"),
        formulas=count(f"SELECT count(*) AS n FROM {FORMULA.table} WHERE doc_id = ?"),
        rules=count(f"SELECT count(*) AS n FROM {RULE.table} WHERE doc_id = ?"),
    )
