"""What the review reads beside the entities: the experts' decisions, the documents that have
approved knowledge, and each document's figures for the list of documents.

What a decision means and how the states follow from it belong to the review package
(`review/decisions.py`, `review/status.py`); this module only keeps the rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from knowledge_assets import branches
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.registry import latest_registrations, shown_title


def decision_rows(store: Store, doc_id: str) -> list[dict]:
    """The document's `knowledge_reviews` rows, oldest first (a tie in time by review id)."""
    return store.fetch("SELECT * FROM knowledge_reviews WHERE doc_id = ? ORDER BY reviewed_at, review_id", [doc_id])


def append_batch(store: Store, batch_id: str, doc_id: str, review_ids: Sequence[str]) -> None:
    """Records that the decisions `review_ids` were written together, as batch `batch_id`."""
    store.append("review_batches", [{"batch_id": batch_id, "doc_id": doc_id, "review_id": review_id}
                                    for review_id in review_ids])


def batch_rows(store: Store, doc_id: str) -> list[dict]:
    """The document's `review_batches` rows: each batch id with one of its review ids."""
    return store.fetch("SELECT batch_id, review_id FROM review_batches WHERE doc_id = ?", [doc_id])


def approved_doc_ids(store: Store) -> set[str]:
    """The documents that have rows in `approved_knowledge`."""
    return {row["doc_id"] for row in store.fetch("SELECT DISTINCT doc_id FROM approved_knowledge")}


@dataclass(frozen=True)
class DocumentFigures:
    """One document as the list of documents shows it: its latest registration (None fields
    for a document extracted but no longer registered), its parse and its extraction's counts."""

    doc_id: str
    extracted: bool  # any branch's table holds rows of it
    title: str | None
    revision: int | None
    kind: str | None
    file_name: str | None
    pages: int | None
    parsed_at: datetime | None
    terms: int
    definitions: int
    formulas: int
    rules: int
    last_call_at: datetime | None  # when its latest model call was recorded


def document_figures(store: Store) -> list[DocumentFigures]:
    """Every registered or extracted document, sorted by doc_id, one query per table."""
    def by_doc(sql: str) -> dict[str, dict]:
        return {row["doc_id"]: row for row in store.fetch(sql)}

    registry = latest_registrations(store)
    parsed = by_doc("SELECT doc_id, page_count, parsed_at FROM parsed_documents")
    glossary = by_doc(f"SELECT doc_id, count(*) AS terms, count(definition) AS definitions FROM "
                      f"{branches.GLOSSARY.table} GROUP BY doc_id")
    formulas = by_doc(f"SELECT doc_id, count(*) AS n FROM {branches.FORMULA.table} GROUP BY doc_id")
    rules = by_doc(f"SELECT doc_id, count(*) AS n FROM {branches.RULE.table} GROUP BY doc_id")
    titles = by_doc(f"SELECT doc_id, min(title) AS title FROM {branches.DOMAIN_CONTEXT.table} GROUP BY doc_id")
    calls = by_doc("SELECT doc_id, max(created_at) AS at FROM llm_usage GROUP BY doc_id")
    extracted = set(glossary) | set(formulas) | set(rules) | set(titles)
    return [
        DocumentFigures(
            doc_id=doc_id,
            extracted=doc_id in extracted,
            title=shown_title(titles.get(doc_id, {}).get("title")),
            revision=registry.get(doc_id, {}).get("revision"),
            kind=registry.get(doc_id, {}).get("kind"),
            file_name=registry.get(doc_id, {}).get("file_name"),
            pages=parsed.get(doc_id, {}).get("page_count"),
            parsed_at=parsed.get(doc_id, {}).get("parsed_at"),
            terms=glossary.get(doc_id, {}).get("terms", 0),
            definitions=glossary.get(doc_id, {}).get("definitions", 0),
            formulas=formulas.get(doc_id, {}).get("n", 0),
            rules=rules.get(doc_id, {}).get("n", 0),
            last_call_at=calls.get(doc_id, {}).get("at"),
        )
        for doc_id in sorted(set(registry) | extracted)
    ]
