"""The `documents` registry: which file holds each doc_id now, and its revision history.

The registry's record, `DocumentSource`, lives here with its table: ingest computes one from a
file (ingest/documents.py:identify) and the store keeps it, so the store never imports ingest.

A path belongs to one document at a time: the one registered there last. A document whose path
another document was registered at later (`--new-document`, or another key given for the file)
keeps its rows and revisions but no longer has a file (`holds_its_path` is false), so nothing
reads that file as its content.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from knowledge_assets.store.protocol import Store
from knowledge_assets.store.rows import DOC_IDS_PER_STATEMENT, batched, in_list
from knowledge_assets.store.schema import column_list

DocumentKind = Literal["pdf", "markdown", "restructuredtext", "docx", "html", "text", "mineru"]
# How the file was matched to its doc_id: a key it declares (`--doc-id`, a sidecar), the hash of
# a content seen for the first time, the path a document was registered at (an edit in place),
# or the content a document was registered with (a rename or a move). docs/decisions.md D52.
KeySource = Literal["explicit", "sidecar", "file_name", "content_hash", "registered_path", "registered_content"]


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


@dataclass(frozen=True)
class ContentMatch:
    """A document one of whose revisions has the content looked for."""

    source: DocumentSource  # the document's latest registration
    revision: int  # the revision that has the content
    latest_revision: int

    @property
    def is_latest(self) -> bool:
        return self.revision == self.latest_revision


# Each document's latest row, the registry's "now".
_LATEST = (f"SELECT {column_list('documents')} FROM (SELECT *, row_number() OVER (PARTITION BY doc_id "
           "ORDER BY registered_at DESC, revision DESC) AS recency FROM documents) ranked WHERE recency = 1")


def _source(row: dict) -> DocumentSource:
    return DocumentSource(
        doc_id=row["doc_id"],
        path=Path(row["source_path"]),
        kind=row["kind"],
        content_sha256=row["content_sha256"],
        key_source=row["key_source"],
    )


def latest_source(store: Store, doc_id: str) -> tuple[DocumentSource, int] | None:
    return latest_sources(store, [doc_id]).get(doc_id)


def latest_sources(store: Store, doc_ids: Sequence[str]) -> dict[str, tuple[DocumentSource, int]]:
    """Each registered document's latest registration and revision: its row registered last
    (of two at the same moment, the higher revision). Picked here from a plain read of the
    documents' rows (a handful each): an ORDER BY … LIMIT costs DuckDB several times the read."""
    rows: list[dict] = []
    for some in batched(doc_ids, DOC_IDS_PER_STATEMENT):
        rows += store.fetch(f"SELECT * FROM documents WHERE {in_list('doc_id', len(some))}", list(some))
    return {doc_id: (_source(row), row["revision"]) for doc_id, row in _latest_rows(rows).items()}


def _latest_rows(rows: Iterable[dict]) -> dict[str, dict]:
    """Each document's row registered last among `rows` (of two at the same moment, the higher revision)."""
    latest: dict[str, dict] = {}
    for row in rows:
        held = latest.get(row["doc_id"])
        if held is None or (row["registered_at"], row["revision"]) > (held["registered_at"], held["revision"]):
            latest[row["doc_id"]] = row
    return latest


def path_holder(store: Store, path: Path) -> tuple[DocumentSource, int] | None:
    """The document registered last at `path` (a resolved path), with its latest revision: of the
    documents ever registered there, those whose latest registration is still there, the one
    registered last. Read as the rows of those documents, picked in Python (`latest_sources`;
    a window over every document's rows cost a folder run 5 ms a document, growing with the
    registry)."""
    rows = store.fetch("SELECT * FROM documents WHERE doc_id IN (SELECT doc_id FROM documents WHERE source_path = ?)",
                       [str(path)])
    there = [row for row in _latest_rows(rows).values() if row["source_path"] == str(path)]
    if not there:
        return None
    row = max(there, key=lambda r: (r["registered_at"], r["revision"], r["doc_id"]))
    return _source(row), row["revision"]


def holds_its_path(store: Store, source: DocumentSource) -> bool:
    """False once another document was registered at the path this one was last registered at."""
    holder = path_holder(store, source.path)
    return holder is not None and holder[0].doc_id == source.doc_id


def content_matches(store: Store, content_sha256: str) -> list[ContentMatch]:
    """Every document that has had this content, those whose latest revision has it first."""
    rows = store.fetch(
        f"SELECT l.*, m.matching FROM ({_LATEST}) l JOIN (SELECT doc_id, max(revision) AS matching "
        "FROM documents WHERE content_sha256 = ? GROUP BY doc_id) m USING (doc_id) "
        "ORDER BY m.matching = l.revision DESC, l.registered_at",
        [content_sha256],
    )
    return [ContentMatch(_source(row), row["matching"], row["revision"]) for row in rows]


def unused_doc_id(store: Store, wanted: str) -> str:
    """`wanted` if no document has it, else the first of `wanted-2`, `wanted-3`, … none has."""
    taken = {r["doc_id"] for r in store.fetch(
        "SELECT DISTINCT doc_id FROM documents WHERE doc_id = ? OR starts_with(doc_id, ?)", [wanted, f"{wanted}-"])}
    doc_id, n = wanted, 1
    while doc_id in taken:
        n += 1
        doc_id = f"{wanted}-{n}"
    return doc_id


def document_title(store: Store, doc_id: str) -> str | None:
    """The title the document's domain context located, once extracted, for display."""
    return document_titles(store, [doc_id]).get(doc_id)


def document_titles(store: Store, doc_ids: Sequence[str]) -> dict[str, str]:
    """`document_title` of each document that has one, on one line: the located title is verbatim,
    line breaks and runs of spaces of the page included, and stays so in the store and the export's
    domain context; a listing, the index and the UI show its words one space apart."""
    titles: dict[str, str] = {}
    for some in batched(doc_ids, DOC_IDS_PER_STATEMENT):
        for row in store.fetch(f"SELECT doc_id, title FROM domain_context "
                               f"WHERE title IS NOT NULL AND {in_list('doc_id', len(some))}", list(some)):
            shown = shown_title(row["title"])
            if shown:
                titles.setdefault(row["doc_id"], shown)
    return titles


def shown_title(title: str | None) -> str | None:
    """A located title as every listing shows it: its words one space apart (the page's line
    breaks and runs of spaces stay in the stored, verbatim title), None when it has none."""
    words = " ".join((title or "").split())
    return words or None


def register(store: Store, source: DocumentSource) -> Registration:
    """Records the file as the doc_id's current source; a content change is a new revision.

    Re-registering the same content at the same path writes nothing, so ingest is idempotent;
    a document that lost its path to another one takes it back with a new row.
    """
    latest = latest_source(store, source.doc_id)
    if latest is not None:
        known, revision = latest
        if (known.content_sha256 == source.content_sha256 and known.path == source.path
                and holds_its_path(store, known)):
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


def parsed_registration(store: Store, doc_id: str) -> dict | None:
    """The latest registration whose content is the one the document's parsed text came from
    (doc_id, source_path, kind, content_sha256); None for a document never parsed."""
    rows = store.fetch(
        "SELECT d.doc_id, d.source_path, d.kind, d.content_sha256 FROM documents d JOIN parsed_documents p "
        "ON p.doc_id = d.doc_id AND p.content_sha256 = d.content_sha256 WHERE d.doc_id = ? "
        "ORDER BY d.registered_at DESC, d.revision DESC LIMIT 1", [doc_id])
    return rows[0] if rows else None


def latest_registrations(store: Store) -> dict[str, dict]:
    """doc_id → its latest registration (doc_id, revision, kind, file_name), for every document."""
    rows = store.fetch(f"SELECT doc_id, revision, kind, file_name FROM ({_LATEST}) latest")
    return {row["doc_id"]: row for row in rows}


def registered_doc_ids(store: Store) -> list[str]:
    return [r["doc_id"] for r in store.fetch("SELECT DISTINCT doc_id FROM documents ORDER BY doc_id")]
