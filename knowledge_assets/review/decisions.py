"""The `knowledge_reviews` history: decisions are appended, never updated or deleted.

Each row records what the reviewer saw (the content fields and their fingerprint), so a later
re-extraction can tell whether the decision still applies to the content now stored.

A decision is recorded here and nowhere else, so every surface (the CLI, the web form, a bulk
action, an undo) meets the same refusals:
  - an entry whose asset is not at the document's current revision, or whose blocking checks
    did not end or failed (store/revisions.py), takes no decision;
  - a decision names the content it was taken on (`Shown`: the fingerprint the page or command
    showed, and the content itself when the surface carried it). When the content stored now
    has another fingerprint — a run changed it after the page was opened or `review show`
    printed it — the decision is refused (`ContentChanged`, carrying the content now and the
    fields that changed), so nothing is ever recorded on text its reviewer did not see (D82).
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from knowledge_assets.review.entities import KEY_PARAMETER, MODELS, EntityKey, Reviewable, ReviewError, kind_branch
from knowledge_assets.review.fingerprint import changed_fields, fingerprint, reviewed_content, short_fingerprint
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.review import decision_rows
from knowledge_assets.store.revisions import revision_state

# `withdrawn` undoes a decision that had none before it: the entity is unreviewed again.
Decision = Literal["approved", "edited", "rejected", "withdrawn"]
# A name and a note are read on every page of the history and travel into exports: bounded
# here, where the CLI and the web form both record, so neither can store a page-sized one.
REVIEWER_MAX_CHARS = 200
NOTE_MAX_CHARS = 5_000
# A fingerprint as a person types it: `sha256:` optional, and at least its first 12 hex digits
# (48 bits: no two contents an entry has had share them by chance).
SEEN_MIN_DIGITS = 12
_SEEN = re.compile(rf"(?:sha256:)?([0-9a-f]{{{SEEN_MIN_DIGITS},64}})")


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


@dataclass(frozen=True)
class Shown:
    """What a surface showed a reviewer of an entry: its content fingerprint (`sha256:<hex>`, or at
    least its first 12 hex digits as a person types them) and, when the surface carried it, the
    content itself. The content only names the difference on a refusal, and only when it hashes
    to the fingerprint: a form cannot claim to have shown other content than its fingerprint's."""

    fingerprint: str
    content: dict[str, Any] | None = None


class ContentChanged(ReviewError):
    """A decision taken on content other than the entry's content stored now: nothing is written.

    Carries the content now and, when what was shown is known (the surface carried it, or an
    earlier decision recorded it), the content shown, so every surface can show the difference."""

    def __init__(self, item: Reviewable, shown: str, now: str, content_now: dict[str, Any],
                 content_shown: dict[str, Any] | None):
        self.item = item
        self.shown = shown  # the fingerprint shown, in full when it is known
        self.now = now
        self.content_now = content_now
        self.content_shown = content_shown
        super().__init__("\n".join([self.summary, *self.details]))

    @property
    def changed(self) -> list[str] | None:
        """The content fields that differ from what was shown; None when that is not known."""
        return None if self.content_shown is None else changed_fields(self.content_shown, self.content_now)

    @property
    def summary(self) -> str:
        """`not recorded: t_… (MTTR) changed since it was shown: definition (shown sha256:…, now sha256:…); …`."""
        what = f": {', '.join(self.changed)}" if self.changed else ""
        shown, now = short_fingerprint(self.shown), short_fingerprint(self.now)
        return (f"not recorded: {self.item.key.ref} ({self.item.label}) changed since it was shown{what} "
                f"(shown {shown}, stored now {now}); look at it again and decide on what is stored now")

    @property
    def details(self) -> list[str]:
        """One line a field: `definition: "was" → "now"`, or what is stored now if the shown is not known."""
        if self.content_shown is None:
            return ["  what was shown is not known; stored now:",
                    *(f"  {name}: {_quoted(value)}" for name, value in self.content_now.items())]
        return [f"  {name}: {_quoted(self.content_shown.get(name))} → {_quoted(self.content_now[name])}"
                for name in self.changed or ()]


def _quoted(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _seen_digits(seen: str) -> str:
    found = _SEEN.fullmatch(seen.strip().lower())
    if found is None:
        raise ReviewError(f"{seen!r} is not a content fingerprint: give sha256:<hex>, or at least its first "
                          f"{SEEN_MIN_DIGITS} hex digits, as `review list` and `review show` print it")
    return found.group(1)


def content_changed(store: Store, item: Reviewable, shown: Shown) -> ContentChanged | None:
    """None when `shown` names the entry's content stored now; else the refusal, with what changed.

    A fingerprint given in part must be the start of one content only, of those the entry has
    now and has had decided on; what was shown is the surface's content if it hashes to the
    fingerprint, else the content an earlier decision recorded under it, else not known."""
    digits = _seen_digits(shown.fingerprint)
    content = reviewed_content(item.key.kind, item.entity)
    now = fingerprint(content)
    if now == "sha256:" + digits:
        return None
    decided = {r.fingerprint: r.reviewed_content for r in history(store, item.doc_id) if r.key == item.key}
    matching = {seen for seen in (now, *decided) if seen.startswith("sha256:" + digits)}
    if len(matching) > 1:
        raise ReviewError(f"{shown.fingerprint!r} is the start of more than one content of {item.key.ref}; "
                          "give more of its digits")
    if now in matching:
        return None
    seen = matching.pop() if matching else "sha256:" + digits
    carried = shown.content if isinstance(shown.content, dict) and fingerprint(shown.content) == seen else None
    return ContentChanged(item, seen, now, content, carried if carried is not None else decided.get(seen))


def record_decision(
    store: Store,
    item: Reviewable,
    decision: Decision,
    reviewer: str,
    note: str | None = None,
    edited: BaseModel | None = None,
    *,
    shown: Shown | None = None,
) -> Review:
    """Appends one decision on the entity as it is now stored, if it is of the current revision
    and, when `shown` says what the reviewer was shown, if that is the content stored now.

    Every surface where a person decides passes `shown` (the page's forms, `review … --seen`);
    None is for a caller that read `item` itself and decides on it as it is (a script, a test)."""
    if (decision == "edited") != (edited is not None):
        raise ReviewError("an edited payload goes with the decision 'edited', and only with it")
    content = reviewed_content(item.key.kind, item.entity)
    return _append(store, item, decision, reviewer, note,
                   None if edited is None else edited.model_dump(mode="json"), content, shown)


def restore_decision(store: Store, item: Reviewable, earlier: Review, reviewer: str, note: str, *,
                     shown: Shown | None = None) -> Review:
    """Appends `earlier` again under `reviewer`'s name, on the content its reviewer saw (its
    fingerprint and reviewed content, its edited payload): the entry gets back the state it had
    under that decision, `stale` if the content changed since it was taken. What an undo writes.

    `shown` is what the page the undo was pressed on showed: it must still be the content stored
    now, as for any decision, though the row records the earlier decision's content."""
    return _append(store, item, earlier.decision, reviewer, note, earlier.edited_payload, earlier.reviewed_content,
                   shown)


def _append(store: Store, item: Reviewable, decision: Decision, reviewer: str, note: str | None,
            edited_payload: dict[str, Any] | None, content: dict[str, Any], shown: Shown | None) -> Review:
    if not reviewer.strip():
        raise ReviewError("a reviewer name is required")
    _within_limit("a reviewer name", reviewer.strip(), REVIEWER_MAX_CHARS)
    _within_limit("a note", (note or "").strip(), NOTE_MAX_CHARS)
    if decision == "rejected" and not (note or "").strip():
        raise ReviewError("a rejection needs a note saying why")
    _of_current_revision(store, item)
    changed = None if shown is None else content_changed(store, item, shown)
    if changed is not None:
        raise changed
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
