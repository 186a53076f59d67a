"""The `documents` registry: which file holds each doc_id now, and its revision history.

The registry's record, `DocumentSource`, lives here with its table: ingest computes one from a
file (ingest/documents.py:identify) and the store keeps it, so the store never imports ingest.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from knowledge_assets.store.database import Store

DocumentKind = Literal["pdf", "markdown", "text", "mineru"]
KeySource = Literal["explicit", "sidecar", "content_hash"]


@dataclass(frozen=True)
class DocumentSource:
    """Which file a doc_id stands for, how it was keyed, and its content's digest."""

    doc_id: str
    path: Path
    kind: DocumentKind
    content_sha256: str
    key_source: KeySource


@dataclass(frozen=True)
class Registration:
    source: DocumentSource
    revision: int
    changed: bool  # a new revision (content changed) or a first registration


def latest_source(store: Store, doc_id: str) -> tuple[DocumentSource, int] | None:
    rows = store.fetch(
        "SELECT * FROM documents WHERE doc_id = ? ORDER BY registered_at DESC, revision DESC LIMIT 1",
        [doc_id],
    )
    if not rows:
        return None
    row = rows[0]
    source = DocumentSource(
        doc_id=row["doc_id"],
        path=Path(row["source_path"]),
        kind=row["kind"],
        content_sha256=row["content_sha256"],
        key_source=row["key_source"],
    )
    return source, row["revision"]


def register(store: Store, source: DocumentSource) -> Registration:
    """Records the file as the doc_id's current source; a content change is a new revision.

    Re-registering the same content at the same path writes nothing, so ingest is idempotent.
    """
    latest = latest_source(store, source.doc_id)
    if latest is not None:
        known, revision = latest
        if known.content_sha256 == source.content_sha256 and known.path == source.path:
            return Registration(known, revision, changed=False)
        changed = known.content_sha256 != source.content_sha256
        revision = revision + 1 if changed else revision
    else:
        changed, revision = True, 1
    store.append(
        "documents",
        [
            {
                "doc_id": source.doc_id,
                "revision": revision,
                "content_sha256": source.content_sha256,
                "kind": source.kind,
                "key_source": source.key_source,
                "source_path": str(source.path),
                "file_name": source.path.name,
                "registered_at": datetime.now(timezone.utc).replace(tzinfo=None),
            }
        ],
    )
    return Registration(source, revision, changed)


def registered_doc_ids(store: Store) -> list[str]:
    return [r["doc_id"] for r in store.fetch("SELECT DISTINCT doc_id FROM documents ORDER BY doc_id")]
