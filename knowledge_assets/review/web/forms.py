"""What the decision forms carry, read into what review/ records: the content each entry was
shown with, the entries a bulk form picked, an edit's values, the queue's filters to go back to.

Every decision form carries the content fingerprint of each entry as the page showed it
(`seen`; the entry page its content too, `seen_content`), so that review/decisions.py can
refuse a decision on content a run changed since (D82); a form that says nothing of what it
showed is refused here, before anything is read from the store.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

from starlette.exceptions import HTTPException

from knowledge_assets.review.decisions import Shown
from knowledge_assets.review.document_queues import QueueEntry
from knowledge_assets.review.entities import EntityKey, Reviewable
from knowledge_assets.review.fingerprint import CONTENT_FIELDS

# Written by code, not by the model: shown, never offered for editing.
_SET_BY_CODE = {"source_wording"}
EDITABLE: dict[str, tuple[str, ...]] = {
    kind: tuple(name for name in fields if name not in _SET_BY_CODE) for kind, fields in CONTENT_FIELDS.items()
}
# The queue's filters, each a query parameter of its page.
FILTERS = ("kind", "reason", "state")
# What a queue URL keeps besides its filters: the search text and the page.
_KEPT = (*FILTERS, "q", "page")
NOT_SHOWN = ("This form does not say which content of the entry it showed (a page opened before the server was "
             "updated?). Reload the page and decide again; nothing was written.")


def value(fields: dict[str, list[str]], name: str) -> str:
    return (fields.get(name) or [""])[0]


def filters_query(filters: dict[str, list[str]]) -> str:
    """`?kind=…&q=…&page=…`: the queue's own filters, search and page only, whatever else the form carried."""
    kept = {name: filters[name][0] for name in _KEPT if filters.get(name, [""])[0]}
    return "?" + urlencode(kept) if kept else ""


def shown(fields: dict[str, list[str]]) -> Shown:
    """What an entry page showed: the fingerprint, and the content it hashes (checked where the
    decision is recorded: content that does not hash to the fingerprint is not believed)."""
    seen = value(fields, "seen")
    if not seen:
        raise HTTPException(400, NOT_SHOWN)
    try:
        content = json.loads(value(fields, "seen_content") or "null")
    except json.JSONDecodeError:
        content = None
    return Shown(seen, content if isinstance(content, dict) else None)


def picked(fields: dict[str, list[str]]) -> dict[str, Shown]:
    """The entries a bulk form names, each `entry` value `<fingerprint shown> <ref>`, in its order."""
    found: dict[str, Shown] = {}
    for entry in fields.get("entry", []):
        seen, _, ref = entry.partition(" ")
        if not seen or not ref:
            raise HTTPException(400, NOT_SHOWN)
        found.setdefault(ref, Shown(seen))
    return found


def shown_entries(entries: Sequence[QueueEntry], picked: dict[str, Shown]) -> dict[EntityKey, Shown]:
    return {e.status.key: picked[e.ref] for e in entries}


def unsaved_edit(fields: dict[str, list[str]]) -> list[tuple[str, str]]:
    """The edit form's values, shown back on a refusal so that the reviewer's corrections are not lost."""
    return [(name.removeprefix("field.").replace("_", " "), "; ".join(v for v in values if v.strip()))
            for name, values in fields.items() if name.startswith("field.") and any(v.strip() for v in values)]


def edit_fields(item: Reviewable) -> dict[str, Any]:
    """What the edit form shows: the model-written content fields, from the stored entity."""
    data = item.entity.model_dump(mode="json")
    return {name: data[name] for name in EDITABLE[item.key.kind]}


def _text(fields: dict[str, list[str]], name: str) -> str | None:
    text = (fields.get(f"field.{name}") or [""])[0].strip()
    return text or None


def _lines(fields: dict[str, list[str]], name: str) -> list[str]:
    return [line.strip() for line in (fields.get(f"field.{name}") or [""])[0].splitlines() if line.strip()]


def edited_payload(item: Reviewable, fields: dict[str, list[str]]) -> dict[str, Any]:
    """The stored entity with its editable fields replaced by the form's; ids, links and audit
    fields are carried over from the entity, never read from the form."""
    payload = item.entity.model_dump(mode="json")
    for name in EDITABLE[item.key.kind]:
        if name == "subdomain_tags":
            payload[name] = fields.get("field.subdomain_tags", [])
        elif name == "outline":
            payload[name] = _lines(fields, name)
        elif name == "key_parameters":
            known = {p["surface"]: p["term_id"] for p in payload[name]}
            payload[name] = [{"surface": s, "term_id": known.get(s)} for s in _lines(fields, name)]
        elif name == "variables":
            known = {v["symbol"]: v["term_id"] for v in payload[name]}
            symbols, meanings = fields.get("field.variables.symbol", []), fields.get("field.variables.meaning", [])
            payload[name] = [
                {"symbol": s.strip(), "meaning": m.strip() or None, "term_id": known.get(s.strip())}
                for s, m in zip(symbols, meanings) if s.strip()
            ]
        elif name == "rule_type":
            payload[name] = (fields.get("field.rule_type") or [payload[name]])[0]
        elif name in ("term", "surface"):
            payload[name] = _text(fields, name) or ""
        else:
            payload[name] = _text(fields, name)
    return payload
