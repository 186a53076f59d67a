"""Revision consistency of a document's assets.

Every asset records, when it materialises, the registry revision of the parsed text it was
derived from (the parsed document's content hash, looked up in the `documents` registry). A
document is consistent when every one of its assets holds the registry's latest revision; a
run killed half-way leaves the later assets behind, and `assets_behind` names them, so the
blocking check and `export` refuse the mix instead of reading it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from knowledge_assets.store.database import Store

# The per-document assets export and the review read, in the order a run materialises them.
DOCUMENT_ASSETS = ("parsed_chunks", "term_clusters", "formulas", "glossary", "rules", "domain_context", "review_queue")


@dataclass(frozen=True)
class Behind:
    asset: str
    revision: int | None  # None: never materialised for this document


@dataclass(frozen=True)
class RevisionState:
    doc_id: str
    latest: int | None
    behind: list[Behind]

    def describe(self) -> str:
        held = ", ".join(f"{b.asset} ({'none' if b.revision is None else f'revision {b.revision}'})"
                         for b in self.behind)
        return (f"{self.doc_id}: the document is at revision {self.latest} but these assets are behind: {held}; "
                "run `knowledge-assets run` on it again to complete them")


def record_revision(store: Store, doc_id: str, asset: str, run_id: str) -> int | None:
    """Stamps `asset` with the revision of the parsed text now in the store; returns it."""
    rows = store.fetch(
        "SELECT p.content_sha256, max(d.revision) AS revision FROM parsed_documents p "
        "JOIN documents d ON d.doc_id = p.doc_id AND d.content_sha256 = p.content_sha256 "
        "WHERE p.doc_id = ? GROUP BY p.content_sha256",
        [doc_id],
    )
    if not rows:
        return None
    row = {"doc_id": doc_id, "asset": asset, "revision": rows[0]["revision"],
           "content_sha256": rows[0]["content_sha256"], "run_id": run_id,
           "recorded_at": datetime.now(timezone.utc).replace(tzinfo=None)}
    store.replace_partition(doc_id, {"asset_revisions": [row]}, scope={"asset_revisions": {"asset": asset}})
    return row["revision"]


def revision_state(store: Store, doc_id: str, assets: Sequence[str] = DOCUMENT_ASSETS) -> RevisionState:
    latest = store.fetch("SELECT max(revision) AS revision FROM documents WHERE doc_id = ?", [doc_id])[0]["revision"]
    held = {r["asset"]: r["revision"] for r in store.fetch(
        "SELECT asset, revision FROM asset_revisions WHERE doc_id = ?", [doc_id])}
    behind = [Behind(asset, held.get(asset)) for asset in assets if held.get(asset) != latest]
    return RevisionState(doc_id, latest, behind)
