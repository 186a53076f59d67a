"""UTC timestamps as ISO 8601 strings with microseconds, so order is preserved by comparison."""

from __future__ import annotations

from datetime import datetime, timezone

from knowledge_assets.semantic_review.refusal import Refusal


def now_utc() -> datetime:
    return datetime.now(timezone.utc)


def format_time(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def parse_time(value: object, what: str) -> datetime:
    """A zone-less time could be read in any zone, so order checks against it would mean nothing."""
    if not isinstance(value, str):
        raise Refusal(f"{what}: expected an ISO 8601 time, got {value!r}")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise Refusal(f"{what}: {value!r} is not an ISO 8601 time") from None
    if moment.tzinfo is None:
        raise Refusal(f"{what}: {value!r} has no time zone")
    return moment
