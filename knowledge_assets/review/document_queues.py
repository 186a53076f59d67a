"""What a review session starts from: the documents in the store, and a document's whole queue.

`review list` shows the pending entries only; a reviewer in the browser also looks back at what
was decided, so `queue_entries` lists every current entity — pending ones in the worklist's
order (the contract queue's, then domain, formulas and rules), decided ones after them — each
with the status the continuity rules give it. The ordering and reasons are the worklist's own.
`progress` counts what is decided of each kind, the figure a reviewer works down.

The page images of a PDF come from the registration whose content was parsed (the revision the
entries were extracted from), not from the latest registration: after `--new-document` or a
new revision not yet run, the latest path holds other content.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from knowledge_assets.review.entities import require_document
from knowledge_assets.review.status import DECIDED, ReviewStatus, review_statuses
from knowledge_assets.review.worklist import WorkItem, kept_note, kind_order, queue_rows, reason_for, review_order
from knowledge_assets.store.knowledge import kept_marks
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.registry import parsed_registration
from knowledge_assets.store.review import document_figures


@dataclass(frozen=True)
class RunState:
    """A document's latest run as the Dagster instance knows it (`knowledge-assets documents`'
    outcome: failed, running, not run, …), with its cause and, for a failure, when (UTC). The
    review reads it through the reader it is given, never importing the Dagster wiring."""

    outcome: str
    cause: str | None = None
    failed_at: datetime | None = None


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
    def name(self) -> str:
        """What a person recognises the document by: its title, else its file name, else its id."""
        return self.title or self.file_name or self.doc_id

    @property
    def decided(self) -> int:
        return sum(self.states[state] for state in DECIDED)

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


def document_summaries(store: Store, only: list[str] | None = None, with_states: bool = True) -> list[DocumentSummary]:
    """Every registered or extracted document (or those in `only`), sorted by doc_id, with its
    counts and review states (left empty without `with_states`: a page that only names the
    document need not compute every entry's state again)."""
    summaries = []
    for found in document_figures(store):
        if only is not None and found.doc_id not in only:
            continue
        states = (Counter(s.state for s in review_statuses(store, found.doc_id))
                  if found.extracted and with_states else Counter())
        moments = [m for m in (found.parsed_at, found.last_call_at) if m]
        summaries.append(DocumentSummary(
            doc_id=found.doc_id,
            title=found.title,
            revision=found.revision,
            kind=found.kind,
            file_name=found.file_name,
            pages=found.pages,
            terms=found.terms,
            definitions=found.definitions,
            formulas=found.formulas,
            rules=found.rules,
            states=states,
            last_run=max(moments) if moments else None,
        ))
    return summaries


def queue_entries(store: Store, doc_id: str) -> list[QueueEntry]:
    """Every current entity of the document: pending first, in the worklist's order, then decided."""
    require_document(store, doc_id)
    queue = queue_rows(store, doc_id)
    order = review_order(queue)
    kept = kept_marks(store, doc_id)
    statuses = sorted(review_statuses(store, doc_id), key=lambda s: (not s.pending, *order(s)))
    return [QueueEntry(position, status, reason_for(status, queue), kept_note(kept.get(status.key.entity_id)))
            for position, status in enumerate(statuses, start=1)]


@dataclass(frozen=True)
class Progress:
    """How many entries of a kind (or of every kind: `kind` None) are decided, of how many."""

    kind: str | None
    decided: int
    total: int


def worklist(store: Store, doc_id: str) -> list[WorkItem]:
    """The document's pending entries, ranked 1…n in the worklist's order: what `review list` shows."""
    return pending_work(queue_entries(store, doc_id))


def pending_work(entries: list[QueueEntry]) -> list[WorkItem]:
    """The pending entries of a document's queue (`queue_entries`) as the worklist's items."""
    items = []
    for rank, entry in enumerate((e for e in entries if e.status.pending), start=1):
        status, provenance = entry.status, entry.status.item.provenance
        items.append(WorkItem(
            rank=rank, kind=status.key.kind, id=status.key.ref, label=status.item.label, state=status.state,
            reason=entry.reason, page_no=provenance.page_no, section_no=provenance.section_no, span=provenance.span,
            fingerprint=status.fingerprint, kept=entry.kept, content=status.content,
        ))
    return items


def progress(entries: list[QueueEntry]) -> list[Progress]:
    """Decided of total for the whole document first, then for each kind, in queue order."""
    kinds = sorted({e.kind for e in entries}, key=kind_order)
    return [Progress(kind, sum(not e.status.pending for e in chosen), len(chosen))
            for kind, chosen in [(None, entries), *((k, [e for e in entries if e.kind == k]) for k in kinds)]]


@dataclass(frozen=True)
class ReviewedSource:
    doc_id: str
    path: Path
    kind: str
    content_sha256: str


def reviewed_source(store: Store, doc_id: str) -> ReviewedSource | None:
    """The registration of the content the current extraction was parsed from (the latest one
    with that content); None for a document never parsed."""
    row = parsed_registration(store, doc_id)
    if row is None:
        return None
    return ReviewedSource(row["doc_id"], Path(row["source_path"]), row["kind"], row["content_sha256"])
