"""Continuity: each current entity against the latest decision on its id.

The latest decision applies while the entity's fingerprint is the one the reviewer saw. When
the content changed, the decision stays in the history but no longer applies: the entity is
`stale`, back in the queue, with a reason naming the fields that changed, then and now. An
approval is never carried onto different content, and never lost without a trace. A withdrawn
decision (an undo with nothing earlier to go back to) leaves the entity `unreviewed`.

`STATES` and `STATE_MEANINGS` are the one vocabulary of states: the web pages, `review list`
and `documents` all say these words, with these meanings.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from knowledge_assets import contracts as c
from knowledge_assets.branches import BranchSpec
from knowledge_assets.review.decisions import Review, latest_decisions
from knowledge_assets.review.entities import EntityKey, Reviewable, current_entities
from knowledge_assets.review.fingerprint import changed_fields, fingerprint, reviewed_content
from knowledge_assets.store.protocol import Store

State = Literal["unreviewed", "approved", "edited", "rejected", "stale"]
STATES: tuple[State, ...] = get_args(State)
DECIDED: tuple[State, ...] = ("approved", "edited", "rejected")
STATE_MEANINGS: dict[State, str] = {
    "unreviewed": "never decided: in the queue",
    "approved": "approved as extracted",
    "edited": "approved with the expert's corrections",
    "rejected": "rejected: never reaches approved knowledge",
    "stale": "decided before, but a later run changed it: back in the queue",
}
_SHOWN_CHARS = 60


@dataclass(frozen=True)
class ReviewStatus:
    item: Reviewable
    content: dict[str, Any]
    fingerprint: str
    latest: Review | None

    @property
    def key(self) -> EntityKey:
        return self.item.key

    @property
    def state(self) -> State:
        if self.latest is None or self.latest.decision == "withdrawn":
            return "unreviewed"
        if self.latest.fingerprint != self.fingerprint:
            return "stale"
        return self.latest.decision

    @property
    def pending(self) -> bool:
        """In the queue: never decided, or decided on content that has since changed."""
        return self.state in ("unreviewed", "stale")

    @property
    def stale_reason(self) -> str | None:
        """`definition changed since approved by alice on …: was "…", now "…"`."""
        if self.state != "stale":
            return None
        assert self.latest is not None
        before = self.latest.reviewed_content
        fields = changed_fields(before, self.content)
        details = "; ".join(
            f"{name} was {_shown(before.get(name), self.content[name])}, "
            f"now {_shown(self.content[name], before.get(name))}"
            for name in fields
        )
        if not fields:  # the same content hashed another way, e.g. by an older version of this module
            return f"content changed since {self.latest.describe()}"
        return f"{', '.join(fields)} changed since {self.latest.describe()}: {details}"


def _shown(value: object, other: object) -> str:
    """The value quoted; a long one cut to a window around where it first differs from `other`."""
    text, against = ("null" if v is None else str(v) for v in (value, other))
    if len(text) <= _SHOWN_CHARS:
        return f'"{text}"'
    common = next((i for i, (a, b) in enumerate(zip(text, against)) if a != b), min(len(text), len(against)))
    start = max(0, min(common - _SHOWN_CHARS // 3, len(text) - _SHOWN_CHARS))
    window = text[start:start + _SHOWN_CHARS]
    return '"' + ("…" if start else "") + window + ("…" if start + _SHOWN_CHARS < len(text) else "") + '"'


def statuses_of(items: Iterable[Reviewable], latest: dict[EntityKey, Review]) -> list[ReviewStatus]:
    statuses = []
    for item in items:
        content = reviewed_content(item.key.kind, item.entity)
        statuses.append(ReviewStatus(item, content, fingerprint(content), latest.get(item.key)))
    return statuses


def review_statuses(store: Store, doc_id: str, loaded: Mapping[str, list] | None = None,
                    among: Collection[BranchSpec] | None = None) -> list[ReviewStatus]:
    """Every current entity of the document with the decision that applies to it, if any
    (`loaded`: branches read already; `among`: only these branches; `current_entities`)."""
    return statuses_of(current_entities(store, doc_id, loaded, among), latest_decisions(store, doc_id))


def queue_key(row: c.TermQueueRow | c.KeyParameterQueueRow) -> EntityKey:
    if isinstance(row, c.KeyParameterQueueRow):
        return EntityKey("key_parameter", row.domain_id, row.term)
    return EntityKey("term", row.term_id)


def still_pending(
    rows: Sequence[c.TermQueueRow | c.KeyParameterQueueRow], statuses: Iterable[ReviewStatus]
) -> list[c.TermQueueRow | c.KeyParameterQueueRow]:
    """The queue without the rows whose latest decision still applies, ranked 1…n again.

    For the review-queue stage: a stale row stays, at its place in the contract's order.
    """
    decided = {status.key for status in statuses if not status.pending}
    kept = [row for row in rows if queue_key(row) not in decided]
    return [row.model_copy(update={"rank": rank}) for rank, row in enumerate(kept, start=1)]
