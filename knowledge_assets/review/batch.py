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
"""

from __future__ import annotations

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
from knowledge_assets.store.database import Store

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
