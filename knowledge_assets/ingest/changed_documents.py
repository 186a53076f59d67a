"""Which documents hold other content now than their parsed rows came from: the scheduled
re-extraction re-parses exactly those (Dagster cannot see a file edited outside a run)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from knowledge_assets.store.parsed import parsed_content_hashes
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.registry import holds_its_path, latest_source


def current_sha256(store: Store, doc_id: str) -> str | None:
    """The content hash of the doc_id's registered file as it is now; the registry's latest
    hash when the file is gone or another document's now (a removed file deletes nothing and
    changes nothing)."""
    latest = latest_source(store, doc_id)
    if latest is None:
        return None
    source, _ = latest
    if source.path.is_file() and holds_its_path(store, source):
        return hashlib.sha256(source.path.read_bytes()).hexdigest()
    return source.content_sha256


def changed_documents(store: Store, doc_ids: Iterable[str]) -> set[str]:
    """Parsed documents whose current content differs from what was parsed. A document never
    parsed is not listed: it is missing, not changed."""
    parsed = parsed_content_hashes(store)
    changed = set()
    for doc_id in doc_ids:
        if doc_id in parsed and current_sha256(store, doc_id) not in (None, parsed[doc_id]):
            changed.add(doc_id)
    return changed
