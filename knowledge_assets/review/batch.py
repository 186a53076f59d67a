"""Deciding many entries at once, and undoing decisions.

A batch is the same decision on each chosen entry, recorded entry by entry through
`record_decision`: one row per entry, under the reviewer's name, as if decided one at a time,
so the audit trail, the continuity rules and the export see nothing new.

Undo appends too, since the history is never rewritten, and brings back the state the entry
had before the undone decision: the decision before it is recorded again, under the name of
whoever undoes, as it was taken (on the content its reviewer saw), so it applies again if the
content is the same and leaves the entry `stale`, with the same reason, if a run changed the
content since (the undo of a re-approval after a change). With no decision before, the undone
one is `withdrawn` and the entry is unreviewed again. Only a decision that is still the latest
on its entry is undone: one a later decision superseded is left, and named.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from knowledge_assets.review.decisions import (
    Decision,
    Review,
    history,
    record_decision,
    restore_decision,
    validate_edit,
)
from knowledge_assets.review.entities import Reviewable, ReviewError
from knowledge_assets.review.status import review_statuses
from knowledge_assets.store.database import Store


def decide_all(store: Store, items: Sequence[Reviewable], decision: Decision, reviewer: str,
               note: str | None = None) -> list[Review]:
    """Records `decision` on every item, one row each; nothing when `items` is empty."""
    if decision not in ("approved", "rejected"):
        raise ReviewError("a batch approves or rejects; an edit is made entry by entry")
    return [record_decision(store, item, decision, reviewer, note) for item in items]


@dataclass(frozen=True)
class Undone:
    reviews: list[Review]  # the rows the undo appended
    superseded: list[str]  # refs whose undone decision is no longer their latest


def undo(store: Store, doc_id: str, review_ids: Sequence[str], reviewer: str) -> Undone:
    """Undoes each of the document's decisions `review_ids` that is still the latest on its entry."""
    wanted = set(review_ids)
    statuses = {s.key: s for s in review_statuses(store, doc_id)}
    by_key: dict = {}
    for review in history(store, doc_id):
        by_key.setdefault(review.key, []).append(review)
    appended, superseded = [], []
    for key, reviews in by_key.items():
        undone = [r for r in reviews if r.review_id in wanted]
        if not undone or key not in statuses:
            continue
        if reviews[-1].review_id not in wanted:
            superseded.append(key.ref)
            continue
        appended.append(_undo_latest(store, statuses[key].item, reviews, reviewer))
    return Undone(appended, sorted(superseded))


def _undo_latest(store: Store, item: Reviewable, reviews: list[Review], reviewer: str) -> Review:
    latest = reviews[-1]
    note = f"undo of {latest.describe()}"
    before = reviews[-2] if len(reviews) > 1 else None
    if before is None or before.decision == "withdrawn":
        return record_decision(store, item, "withdrawn", reviewer, note)
    if before.decision == "edited":  # the corrections still fit the entry's contract model
        validate_edit(item, before.edited_payload, "the decision restored by the undo")
    return restore_decision(store, item, before, reviewer, f"{note}; restores {before.describe()}"
                            + (f": {before.note}" if before.note else ""))
