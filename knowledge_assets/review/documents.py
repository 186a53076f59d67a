"""What a review session starts from: the documents in the store, and a document's whole queue.

`review list` shows the pending entries only; a reviewer in the browser also looks back at what
was decided, so `queue_entries` lists every current entity — pending ones in the worklist's
order (the contract queue's, then domain, formulas and rules), decided ones after them — each
with the status the continuity rules give it. The ordering and reasons are the worklist's own.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from knowledge_assets.review.entities import require_document
from knowledge_assets.review.status import ReviewStatus, review_statuses
from knowledge_assets.review.worklist import _KIND_ORDER, AWAITING_FIRST_REVIEW, _queue_rows, kept_note
from knowledge_assets.store.database import Store
from knowledge_assets.store.knowledge import kept_marks

STATES = ("unreviewed", "approved", "edited", "rejected", "stale")


@dataclass(frozen=True)
class DocumentSummary:
    doc_id: str
    title: str | None
    revision: int | None
    kind: str | None
    file_name: str | None
    pages: int | None
    terms: int
    definitions: int
    formulas: int
    rules: int
    states: Counter[str]
    last_run: datetime | None

    @property
    def extracted(self) -> bool:
        return self.terms + self.formulas + self.rules > 0 or self.title is not None or sum(self.states.values()) > 0


@dataclass(frozen=True)
class QueueEntry:
    """One current entity in review order; `reason` is the queue's, or what changed if stale;
    `kept` says so of an entity the latest run kept from an earlier one (D58)."""

    position: int
    status: ReviewStatus
    reason: str
    kept: str | None = None

    @property
    def ref(self) -> str:
        return self.status.key.ref

    @property
    def kind(self) -> str:
        return self.status.key.kind

    @property
    def state(self) -> str:
        return self.status.state


def _by_doc(store: Store, sql: str) -> dict[str, dict]:
    return {row["doc_id"]: row for row in store.fetch(sql)}


def document_summaries(store: Store, only: list[str] | None = None) -> list[DocumentSummary]:
    """Every registered or extracted document (or those in `only`), sorted by doc_id, with its
    counts and review states."""
    registry = _by_doc(store, """
        SELECT doc_id, arg_max(revision, registered_at) AS revision, arg_max(kind, registered_at) AS kind,
               arg_max(file_name, registered_at) AS file_name
        FROM documents GROUP BY doc_id""")
    parsed = _by_doc(store, "SELECT doc_id, page_count, parsed_at FROM parsed_documents")
    glossary = _by_doc(
        store, "SELECT doc_id, count(*) AS terms, count(definition) AS definitions FROM glossary GROUP BY doc_id"
    )
    formulas = _by_doc(store, "SELECT doc_id, count(*) AS n FROM formulas GROUP BY doc_id")
    rules = _by_doc(store, "SELECT doc_id, count(*) AS n FROM rules GROUP BY doc_id")
    titles = _by_doc(store, "SELECT doc_id, min(title) AS title FROM domain_context GROUP BY doc_id")
    runs = _by_doc(store, "SELECT doc_id, max(created_at) AS at FROM llm_usage GROUP BY doc_id")
    doc_ids = sorted(set(registry) | set(glossary) | set(formulas) | set(rules) | set(titles))
    doc_ids = [d for d in doc_ids if only is None or d in only]
    summaries = []
    for doc_id in doc_ids:
        extracted = doc_id in glossary or doc_id in formulas or doc_id in rules or doc_id in titles
        states = Counter(s.state for s in review_statuses(store, doc_id)) if extracted else Counter()
        moments = [m for m in (parsed.get(doc_id, {}).get("parsed_at"), runs.get(doc_id, {}).get("at")) if m]
        summaries.append(DocumentSummary(
            doc_id=doc_id,
            title=titles.get(doc_id, {}).get("title"),
            revision=registry.get(doc_id, {}).get("revision"),
            kind=registry.get(doc_id, {}).get("kind"),
            file_name=registry.get(doc_id, {}).get("file_name"),
            pages=parsed.get(doc_id, {}).get("page_count"),
            terms=glossary.get(doc_id, {}).get("terms", 0),
            definitions=glossary.get(doc_id, {}).get("definitions", 0),
            formulas=formulas.get(doc_id, {}).get("n", 0),
            rules=rules.get(doc_id, {}).get("n", 0),
            states=states,
            last_run=max(moments) if moments else None,
        ))
    return summaries


def queue_entries(store: Store, doc_id: str) -> list[QueueEntry]:
    """Every current entity of the document: pending first, in the worklist's order, then decided."""
    require_document(store, doc_id)
    queue = _queue_rows(store, doc_id)
    unranked = len(queue) + 1
    kept = kept_marks(store, doc_id)

    def order(status: ReviewStatus) -> tuple[bool, int, int]:
        return not status.pending, queue.get(status.key, (unranked, ""))[0], _KIND_ORDER.index(status.key.kind)

    statuses = sorted(review_statuses(store, doc_id), key=order)
    return [
        QueueEntry(position, status, status.stale_reason or queue.get(status.key, (0, AWAITING_FIRST_REVIEW))[1],
                   kept_note(kept.get(status.key.entity_id)))
        for position, status in enumerate(statuses, start=1)
    ]
