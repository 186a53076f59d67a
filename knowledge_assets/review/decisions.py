"""The `knowledge_reviews` history: decisions are appended, never updated or deleted.

Each row records what the reviewer saw (the content fields and their fingerprint), so a later
re-extraction can tell whether the decision still applies to the content now stored.

A decision is recorded here and nowhere else, so every surface (the CLI, the web form, a bulk
action) meets the same refusal: an entry whose asset is not at the document's current revision,
or whose blocking checks did not end or failed (store/revisions.py), takes no decision.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from knowledge_assets.review.entities import KEY_PARAMETER, MODELS, EntityKey, Reviewable, ReviewError, kind_branch
from knowledge_assets.review.fingerprint import fingerprint, reviewed_content
from knowledge_assets.store.database import Store
from knowledge_assets.store.review import decision_rows
from knowledge_assets.store.revisions import revision_state

# `withdrawn` undoes a decision that had none before it: the entity is unreviewed again.
Decision = Literal["approved", "edited", "rejected", "withdrawn"]
# A name and a note are read on every page of the history and travel into exports: bounded
# here, where the CLI and the web form both record, so neither can store a page-sized one.
REVIEWER_MAX_CHARS = 200
NOTE_MAX_CHARS = 5_000


@dataclass(frozen=True)
class Review:
    review_id: str
    doc_id: str
    key: EntityKey
    decision: Decision
    edited_payload: dict[str, Any] | None
    reviewer: str
    reviewed_at: datetime
    note: str | None
    fingerprint: str
    reviewed_content: dict[str, Any]

    def row(self) -> dict[str, Any]:
        return {
            "review_id": self.review_id,
            "doc_id": self.doc_id,
            "entity_kind": self.key.kind,
            "entity_id": self.key.entity_id,
            "surface": self.key.surface,
            "decision": self.decision,
            "edited_payload": (None if self.edited_payload is None
                               else json.dumps(self.edited_payload, ensure_ascii=False)),
            "reviewer": self.reviewer,
            "reviewed_at": self.reviewed_at,
            "note": self.note,
            "fingerprint": self.fingerprint,
            "reviewed_content": json.dumps(self.reviewed_content, ensure_ascii=False),
        }

    def describe(self) -> str:
        """`approved by alice on 2026-09-10 14:03 UTC`."""
        return f"{self.decision} by {self.reviewer} on {self.reviewed_at:%Y-%m-%d %H:%M} UTC"


def _review(row: dict[str, Any]) -> Review:
    return Review(
        review_id=row["review_id"],
        doc_id=row["doc_id"],
        key=EntityKey(row["entity_kind"], row["entity_id"], row["surface"]),
        decision=row["decision"],
        edited_payload=None if row["edited_payload"] is None else json.loads(row["edited_payload"]),
        reviewer=row["reviewer"],
        reviewed_at=row["reviewed_at"],
        note=row["note"],
        fingerprint=row["fingerprint"],
        reviewed_content=json.loads(row["reviewed_content"]),
    )


def history(store: Store, doc_id: str) -> list[Review]:
    """Every decision on the document's entities, oldest first."""
    return [_review(row) for row in decision_rows(store, doc_id)]


def latest_decisions(store: Store, doc_id: str) -> dict[EntityKey, Review]:
    latest: dict[EntityKey, Review] = {}
    for review in history(store, doc_id):
        latest[review.key] = review
    return latest


def validate_edit(item: Reviewable, payload: object, source: str) -> BaseModel:
    """The corrected entry, validated against its contract model and tied to the same entity."""
    model = MODELS[item.key.kind]
    try:
        edited = model.model_validate(payload)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or '(payload)'}: {error['msg']}" for error in exc.errors()
        )
        raise ReviewError(f"{source}: not a valid {model.__name__} for {item.key.ref}: {problems}") from None
    # A key parameter carries no id of its own: its surface is what the edit may correct.
    id_field = None if item.key.kind == KEY_PARAMETER else kind_branch(item.key.kind).id_field
    if id_field is not None and getattr(edited, id_field) != item.key.entity_id:
        raise ReviewError(
            f"{source}: {id_field} is {getattr(edited, id_field)!r}, but the entry under review is "
            f"{item.key.entity_id}; an edit corrects an entry, it cannot create another"
        )
    provenance = getattr(edited, "provenance", None)
    if provenance is not None and provenance.doc_id != item.doc_id:
        raise ReviewError(f"{source}: provenance.doc_id is {provenance.doc_id!r}, the entry belongs to {item.doc_id}")
    return edited


def _within_limit(what: str, text: str, limit: int) -> None:
    if len(text) > limit:
        raise ReviewError(f"{what} has at most {limit:,} characters; this one has {len(text):,}")


def _of_current_revision(store: Store, item: Reviewable) -> None:
    asset = kind_branch(item.key.kind).table
    state = revision_state(store, item.doc_id)
    if not state.holds_current(asset):
        raise ReviewError(f"not recorded: {item.key.ref} is in {asset}, which is not current. {state.describe()}")


def record_decision(
    store: Store,
    item: Reviewable,
    decision: Decision,
    reviewer: str,
    note: str | None = None,
    edited: BaseModel | None = None,
) -> Review:
    """Appends one decision on the entity as it is now stored, if it is of the current revision."""
    if (decision == "edited") != (edited is not None):
        raise ReviewError("an edited payload goes with the decision 'edited', and only with it")
    content = reviewed_content(item.key.kind, item.entity)
    return _append(store, item, decision, reviewer, note,
                   None if edited is None else edited.model_dump(mode="json"), content)


def restore_decision(store: Store, item: Reviewable, earlier: Review, reviewer: str, note: str) -> Review:
    """Appends `earlier` again under `reviewer`'s name, on the content its reviewer saw (its
    fingerprint and reviewed content, its edited payload): the entry gets back the state it had
    under that decision, `stale` if the content changed since it was taken. What an undo writes."""
    return _append(store, item, earlier.decision, reviewer, note, earlier.edited_payload, earlier.reviewed_content)


def _append(store: Store, item: Reviewable, decision: Decision, reviewer: str, note: str | None,
            edited_payload: dict[str, Any] | None, content: dict[str, Any]) -> Review:
    if not reviewer.strip():
        raise ReviewError("a reviewer name is required")
    _within_limit("a reviewer name", reviewer.strip(), REVIEWER_MAX_CHARS)
    _within_limit("a note", (note or "").strip(), NOTE_MAX_CHARS)
    if decision == "rejected" and not (note or "").strip():
        raise ReviewError("a rejection needs a note saying why")
    _of_current_revision(store, item)
    review = Review(
        review_id="rv_" + uuid.uuid4().hex,
        doc_id=item.doc_id,
        key=item.key,
        decision=decision,
        edited_payload=edited_payload,
        reviewer=reviewer.strip(),
        reviewed_at=datetime.now(timezone.utc).replace(tzinfo=None),
        note=(note or "").strip() or None,
        fingerprint=fingerprint(content),
        reviewed_content=content,
    )
    store.append("knowledge_reviews", [review.row()])
    return review
