"""Writes a document's seven contract payloads (contract §2-§3) as files, read back from DuckDB:
bare JSON arrays (the domain context: one object), 0-based `page` beside 1-based `page_no`.
A document whose assets were derived from different revisions (a run killed half-way) is
refused, naming the assets that are behind: a mix is never exported."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, TypeAdapter

from knowledge_assets import branches
from knowledge_assets import contracts as c
from knowledge_assets.errors import KnowledgeError
from knowledge_assets.store.database import Store
from knowledge_assets.store.knowledge import load_entities
from knowledge_assets.store.revisions import revision_state

_QUEUE = TypeAdapter(list[c.ReviewQueueRow])
_USAGE_FIELDS = list(c.CallUsage.model_fields)


class ExportError(KnowledgeError):
    """A document or option that cannot be exported; the message names it."""


def _review_queue(store: Store, doc_id: str) -> list[BaseModel]:
    rows = store.fetch('SELECT * EXCLUDE (doc_id) FROM review_queue WHERE doc_id = ? ORDER BY rank', [doc_id])
    return _QUEUE.validate_python(
        [{k: v for k, v in row.items() if not (k == "domain_id" and v is None)} for row in rows]
    )


def _usage(store: Store, doc_id: str) -> list[c.CallUsage]:
    """The calls of each branch's latest materialisation."""
    columns = ", ".join(f'u."{f}"' for f in _USAGE_FIELDS)
    rows = store.fetch(
        f"SELECT {columns} FROM llm_usage u JOIN ("
        "  SELECT branch, arg_max(run_id, created_at) AS run_id FROM llm_usage WHERE doc_id = ? GROUP BY branch"
        ") latest USING (branch, run_id) WHERE u.doc_id = ? ORDER BY u.branch, u.created_at",
        [doc_id, doc_id],
    )
    return [c.CallUsage(**row) for row in rows]


def payloads(store: Store, doc_id: str) -> dict[str, object]:
    domain = branches.DOMAIN_CONTEXT
    domains = load_entities(store, domain.table, doc_id, domain.model)
    if not domains:
        raise ExportError(f"{doc_id}: no domain context in {store.path}; materialise the document first")
    revisions = revision_state(store, doc_id)
    if revisions.behind:
        raise ExportError(revisions.describe())
    entities: dict[str, object] = {}
    for spec in branches.registered():
        rows = domains if spec is domain else load_entities(store, spec.table, doc_id, spec.model)
        entities[spec.export_file] = rows[0] if spec.one_per_document else rows
    return {
        **entities,
        "review_queue.json": _review_queue(store, doc_id),
        "rejected.json": load_entities(store, "rejected_fields", doc_id, c.RejectedField),
        "usage.json": _usage(store, doc_id),
    }


def _json(value: object) -> object:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return [_json(item) for item in value]  # type: ignore[union-attr]


def export_document(store: Store, doc_id: str, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, value in payloads(store, doc_id).items():
        path = out_dir / name
        path.write_text(json.dumps(_json(value), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        written.append(path)
    return written
