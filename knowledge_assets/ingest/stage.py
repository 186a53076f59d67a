"""The parsing stage as the `parsed_chunks` asset runs it: registered file → rows in DuckDB."""

from __future__ import annotations

import hashlib
import statistics
from dataclasses import replace

from knowledge_assets.contracts import ParsedDocument
from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.parse import parse_document
from knowledge_assets.store.held import drop_cached_pages
from knowledge_assets.store.parsed import write_parsed
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.registry import holds_its_path, latest_source, path_holder, register


def parse_registered(store: Store, doc_id: str) -> ParsedDocument:
    """Parses the doc_id's current file and replaces its parsed rows.

    A file edited since it was registered is parsed as it is now and recorded as a new
    revision, so the registry never claims content the store does not hold. A file another
    document was registered at since is that document's now, not an edit of this one.
    """
    latest = latest_source(store, doc_id)
    if latest is None:
        raise DocumentError(doc_id, "doc_id is not registered; run `knowledge-assets ingest FILE` first")
    source, _ = latest
    if not source.path.is_file():
        raise DocumentError(source.path, "the registered file no longer exists; ingest its new location")
    if not holds_its_path(store, source):
        holder, _ = path_holder(store, source.path)
        raise DocumentError(source.path, f"the file is registered as {holder.doc_id} now; "
                            f"ingest {doc_id}'s own file again to run it")
    sha = hashlib.sha256(source.path.read_bytes()).hexdigest()
    if sha != source.content_sha256:
        source = register(store, replace(source, content_sha256=sha)).source
    parsed = parse_document(source)
    write_parsed(store, parsed)
    drop_cached_pages(store)
    return parsed


def chunk_size_summary(parsed: ParsedDocument) -> dict[str, float]:
    sizes = [len(c.text) for c in parsed.chunks]
    return {
        "chunk_chars_min": min(sizes),
        "chunk_chars_median": statistics.median(sizes),
        "chunk_chars_max": max(sizes),
    }
