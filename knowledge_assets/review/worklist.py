"""What `review list` shows: the document's pending entries, read live, in queue order (the
list itself is `review.document_queues.worklist`, the pending part of the document's whole queue).

Terms and uncorroborated key parameters come in the contract queue's order (conflicts, key
parameters, mention count), then the domain context, formulas and rules, which the contract
queue does not hold but an expert gates too (docs/contract.md v3 §9.3). A stale entry keeps its
place and says what changed; any other keeps the queue's reason, and an entry the contract queue
does not hold is a routine confirmation, as the queue calls its own plain rows: one word for one
situation. A decided entry's reason is its decision (`approved by alice on …`). An entry the
latest run kept from an earlier one, because its model call failed (D58), says so and which
revision it came from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from knowledge_assets import contracts as c
from knowledge_assets.review.entities import EntityKey
from knowledge_assets.review.status import ReviewStatus
from knowledge_assets.store.knowledge import KeptRow, stored_rows
from knowledge_assets.store.protocol import Store

QueueRows = dict[EntityKey, tuple[int, str]]
# Entries outside the contract queue (and any a stale queue table lacks) follow in this order.
_KIND_ORDER = ("term", "key_parameter", "domain", "formula", "rule")


def kind_order(kind: str) -> int:
    """Terms first, then what the domain context names, then formulas and rules; a kind a newer
    branch brings follows them."""
    return _KIND_ORDER.index(kind) if kind in _KIND_ORDER else len(_KIND_ORDER)


@dataclass(frozen=True)
class WorkItem:
    rank: int
    kind: str
    id: str
    label: str
    state: str
    reason: str
    page_no: int | None
    section_no: str | None
    span: str
    fingerprint: str  # of the content listed: what `review approve … --seen` passes back
    kept: str | None = None
    # The content the fingerprint hashes (full name, definition, formula, rule text, …): what a
    # decision is taken on, so a garbled field is seen before it is approved.
    content: dict | None = None


def queue_rows(store: Store, doc_id: str) -> QueueRows:
    """The contract queue's rank and reason of each entry it holds."""
    keyed = {}
    for row in stored_rows(store, "review_queue", doc_id):
        if row["row_kind"] == "key_parameter":
            key = EntityKey("key_parameter", row["domain_id"], row["term"])
        else:
            key = EntityKey("term", row["term_id"])
        keyed[key] = (row["rank"], row["review_reason"])
    return keyed


def kept_note(mark: KeptRow | None) -> str | None:
    """What a reviewer reads of an entry kept from an earlier run."""
    if mark is None:
        return None
    return (f"kept from revision {mark.kept_from_revision} (run {mark.kept_from_run_id[:8]}): "
            "its model call failed in the latest run")


def review_order(queue: QueueRows) -> Callable[[ReviewStatus], tuple[int, int]]:
    """The sort key of the queue's order: its rank, then kind for what it does not hold."""
    unranked = len(queue) + 1

    def order(status: ReviewStatus) -> tuple[int, int]:
        return queue.get(status.key, (unranked, ""))[0], kind_order(status.key.kind)

    return order


def reason_for(status: ReviewStatus, queue: QueueRows) -> str:
    """Why the entry is where it is: what changed, the queue's reason, or the decision that applies."""
    if status.stale_reason:
        return status.stale_reason
    if not status.pending and status.latest is not None:
        return status.latest.describe()
    return queue.get(status.key, (0, c.REVIEW_REASON_ROUTINE))[1]
