"""Writes a document's seven contract payloads (contract §2-§3) as files, read back from DuckDB:
bare JSON arrays (the domain context: one object), 0-based `page` beside 1-based `page_no`.
A document that is not current (store/revisions.py: assets derived from different revisions,
a run killed half-way, or blocking checks that did not end or failed) is refused, naming what
is behind: a mix, or unchecked rows, are never exported.

Nor is a mix of two exports: the folder is written whole beside the target, under a hidden
name, and renamed into place; an earlier export there is renamed aside first and removed
after. A kill while writing leaves the earlier export as it was; between the two renames (two
system calls) the target is absent for a moment, never part old and part new. What a killed
export left beside the target is removed by the next export to it. A target that holds
anything but an export's files is refused rather than replaced."""

from __future__ import annotations

import glob
import json
import os
import secrets
import shutil
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
# Beside the target while an export is written, and an earlier export while it is replaced.
_WRITING, _REPLACED = ".writing-", ".replaced-"


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
    if not revisions.current:
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
    return write_folder(out_dir, payloads(store, doc_id))


def write_folder(target: Path, documents: dict[str, object]) -> list[Path]:
    """`target` holding exactly `documents` (file name → payload, each written as JSON), put in
    place whole: by one rename, or, over an earlier export, by two."""
    folder = Path(os.path.abspath(target))  # "." and ".." named, symbolic links not followed
    _refuse_foreign(folder, set(documents))
    folder.parent.mkdir(parents=True, exist_ok=True)
    _remove_leftovers(folder)
    # os.mkdir, not tempfile.mkdtemp: the folder keeps the umask's permissions once in place.
    staging = folder.with_name(f".{folder.name}{_WRITING}{secrets.token_hex(6)}")
    staging.mkdir()
    try:
        for name, value in documents.items():
            text = json.dumps(_json(value), ensure_ascii=False, indent=2) + "\n"
            (staging / name).write_text(text, encoding="utf-8")
        if folder.exists():
            previous = folder.with_name(staging.name.replace(_WRITING, _REPLACED))
            os.rename(folder, previous)
            os.rename(staging, folder)
            shutil.rmtree(previous)
        else:
            os.rename(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return [target / name for name in documents]


def _refuse_foreign(target: Path, names: set[str]) -> None:
    """Replacing a folder removes what it held: only an earlier export (or nothing) may go."""
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise ExportError(f"{target} is not a folder; export to a folder of its own")
    if Path.cwd().is_relative_to(target):
        raise ExportError(f"{target} holds the current folder; export to a folder of its own")
    if target.is_dir():
        foreign = sorted(path.name for path in target.iterdir() if path.name not in names)
        if foreign:
            raise ExportError(f"{target} holds {len(foreign)} files that are not an export's "
                              f"({', '.join(foreign[:3])}); export to a new folder or over an earlier export")


def _remove_leftovers(target: Path) -> None:
    """What exports killed before their rename left beside the target."""
    for marker in (_WRITING, _REPLACED):
        for leftover in target.parent.glob(f".{glob.escape(target.name)}{marker}*"):
            shutil.rmtree(leftover, ignore_errors=True)
