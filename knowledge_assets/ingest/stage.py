"""The parsing stage as the `parsed_chunks` asset runs it: registered file → rows in DuckDB."""

from __future__ import annotations

import hashlib
import statistics
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from knowledge_assets.contracts import Chunk
from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.parse import document_parts
from knowledge_assets.store.held import drop_cached_pages
from knowledge_assets.store.parsed import write_parsed
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.registry import holds_its_path, latest_source, path_holder, register

# The chunks a parse report keeps whole, for the asset's preview.
PREVIEW_CHUNKS = 8


@dataclass
class ParseReport:
    """What a parse wrote, for the asset's metadata: the document's header, each chunk's length
    and the first chunks, not every chunk (for a long document, the whole text again)."""

    header: dict[str, Any]
    chunk_chars: list[int] = field(default_factory=list)
    first_chunks: list[Chunk] = field(default_factory=list)

    def noting(self, chunks: Iterable[Chunk]) -> Iterator[Chunk]:
        """`chunks`, passed on one at a time as each is noted."""
        for chunk in chunks:
            self.chunk_chars.append(len(chunk.text))
            if len(self.first_chunks) < PREVIEW_CHUNKS:
                self.first_chunks.append(chunk)
            yield chunk


def parse_registered(store: Store, doc_id: str) -> ParseReport:
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
    header, pages, chunks = document_parts(source)
    report = ParseReport(header)
    # The chunks are cut as the store writes them, never all held (D102).
    write_parsed(store, header, pages, report.noting(chunks))
    drop_cached_pages(store)
    return report


def chunk_size_summary(report: ParseReport) -> dict[str, float]:
    sizes = report.chunk_chars
    return {
        "chunk_chars_min": min(sizes),
        "chunk_chars_median": statistics.median(sizes),
        "chunk_chars_max": max(sizes),
    }
