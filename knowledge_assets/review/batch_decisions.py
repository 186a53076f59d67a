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

Each entry of a batch, and of an undo, carries what the page showed of it (`Shown`). A batch is
all or nothing (D82): when any entry changed since it was shown, nothing of it is recorded and
every changed entry is named with its difference (`EntriesChanged`), because the reviewer
confirmed these entries as a set, and a part of it is a set nobody confirmed.

A batch is recorded in the store (`review_batches`: its id beside each review id it wrote), so
it can be undone whole from any page that names it, after the reviewer left the page it was
decided on or the server restarted (D88).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from knowledge_assets.review.decisions import (
    ContentChanged,
    Decision,
    Review,
    Shown,
    content_changed,
    history,
    record_decision,
    restore_decision,
    validate_edit,
)
from knowledge_assets.review.entities import EntityKey, Reviewable, ReviewError
from knowledge_assets.review.status import review_statuses
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.review import append_batch, batch_rows

ShownEntries = Mapping[EntityKey, Shown]


class EntriesChanged(ReviewError):
    """Entries of a batch or an undo whose content changed since they were shown: nothing of it
    is written; `refusals` names each, with its difference."""

    def __init__(self, refusals: list[ContentChanged]):
        self.refusals = refusals
        super().__init__("\n".join([f"not recorded: {len(refusals)} of the entries changed since they were shown, "
                                    "so nothing of the batch was written", *map(str, refusals)]))


def refuse_changed(store: Store, items: Iterable[Reviewable], shown: ShownEntries | None) -> None:
    """Raises `EntriesChanged` naming every item whose content is not what `shown` says was shown
    of it; an item `shown` says nothing of is refused too. None: the caller decides on `items`
    as it read them."""
    if shown is None:
        return
    refusals = []
    for item in items:
        if item.key not in shown:
            raise ReviewError(f"not recorded: nothing says what was shown of {item.key.ref}; decide it from a "
                              "page or a command that shows it")
        refusal = content_changed(store, item, shown[item.key])
        if refusal is not None:
            refusals.append(refusal)
    if refusals:
        raise EntriesChanged(refusals)


def decide_all(store: Store, items: Sequence[Reviewable], decision: Decision, reviewer: str,
               note: str | None = None, shown: ShownEntries | None = None) -> list[Review]:
    """Records `decision` on every item, one row each, if none changed since `shown`; nothing
    when `items` is empty."""
    if decision not in ("approved", "rejected"):
        raise ReviewError("a batch approves or rejects; an edit is made entry by entry")
    refuse_changed(store, items, shown)
    return [record_decision(store, item, decision, reviewer, note, shown=_of(shown, item)) for item in items]


def record_batch(store: Store, doc_id: str, reviews: Sequence[Review]) -> str:
    """Records `reviews` (what one `decide_all` wrote) as one batch; returns its id. Called in
    the transaction that wrote them, so a batch is recorded exactly when its decisions are."""
    batch_id = "bt_" + uuid.uuid4().hex
    append_batch(store, batch_id, doc_id, [review.review_id for review in reviews])
    return batch_id


@dataclass(frozen=True)
class Batch:
    """One bulk action's decisions, oldest first, and those of them still the latest on their entry."""

    batch_id: str
    reviews: tuple[Review, ...]
    still_latest: tuple[Review, ...]

    @property
    def first(self) -> Review:
        return self.reviews[0]

    @property
    def refs(self) -> frozenset[str]:
        """The refs of the entries an undo of the batch would change now."""
        return frozenset(review.key.ref for review in self.still_latest)

    @property
    def review_ids(self) -> tuple[str, ...]:
        return tuple(review.review_id for review in self.reviews)


def batches(store: Store, doc_id: str) -> list[Batch]:
    """The document's batches, the latest first."""
    reviews = history(store, doc_id)
    by_id = {review.review_id: review for review in reviews}
    latest_ids = {review.key: review.review_id for review in reviews}
    members: dict[str, list[Review]] = {}
    for row in batch_rows(store, doc_id):
        if row["review_id"] in by_id:
            members.setdefault(row["batch_id"], []).append(by_id[row["review_id"]])
    order = {review.review_id: n for n, review in enumerate(reviews)}
    found = []
    for batch_id, rows in members.items():
        rows.sort(key=lambda review: order[review.review_id])
        found.append(Batch(batch_id, tuple(rows),
                           tuple(r for r in rows if latest_ids[r.key] == r.review_id)))
    return sorted(found, key=lambda batch: order[batch.reviews[-1].review_id], reverse=True)


def undoable_batches(store: Store, doc_id: str, limit: int) -> list[Batch]:
    """The document's latest `limit` batches of which some decision is still the latest on its entry."""
    return [batch for batch in batches(store, doc_id) if batch.still_latest][:limit]


def _of(shown: ShownEntries | None, item: Reviewable) -> Shown | None:
    return None if shown is None else shown[item.key]


@dataclass(frozen=True)
class Undone:
    reviews: list[Review]  # the rows the undo appended
    superseded: list[str]  # refs whose undone decision is no longer their latest


def undo(store: Store, doc_id: str, review_ids: Sequence[str], reviewer: str,
         shown: ShownEntries | None = None) -> Undone:
    """Undoes each of the document's decisions `review_ids` that is still the latest on its entry,
    if no entry to undo changed since `shown` (what the page the undo was pressed on showed)."""
    wanted = set(review_ids)
    statuses = {s.key: s for s in review_statuses(store, doc_id)}
    by_key: dict = {}
    for review in history(store, doc_id):
        by_key.setdefault(review.key, []).append(review)
    latest, superseded = [], []
    for key, reviews in by_key.items():
        undone = [r for r in reviews if r.review_id in wanted]
        if not undone or key not in statuses:
            continue
        if reviews[-1].review_id not in wanted:
            superseded.append(key.ref)
            continue
        latest.append((statuses[key].item, reviews))
    refuse_changed(store, [item for item, _ in latest], shown)
    appended = [_undo_latest(store, item, reviews, reviewer, _of(shown, item)) for item, reviews in latest]
    return Undone(appended, sorted(superseded))


def _undo_latest(store: Store, item: Reviewable, reviews: list[Review], reviewer: str, shown: Shown | None) -> Review:
    latest = reviews[-1]
    note = f"undo of {latest.describe()}"
    before = reviews[-2] if len(reviews) > 1 else None
    if before is None or before.decision == "withdrawn":
        return record_decision(store, item, "withdrawn", reviewer, note, shown=shown)
    if before.decision == "edited":  # the corrections still fit the entry's contract model
        validate_edit(item, before.edited_payload, "the decision restored by the undo")
    return restore_decision(store, item, before, reviewer, f"{note}; restores {before.describe()}"
                            + (f": {before.note}" if before.note else ""), shown=shown)
