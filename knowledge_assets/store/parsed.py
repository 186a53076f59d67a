"""Writes a ParsedDocument as the partition's rows and reads it back for later stages."""

from __future__ import annotations

from datetime import datetime, timezone

from knowledge_assets.contracts import Chunk, ParsedDocument, ParsedPage
from knowledge_assets.store.database import Store

PARSED_TABLES = ("parsed_documents", "parsed_pages", "parsed_chunks")


def write_parsed(store: Store, parsed: ParsedDocument) -> None:
    header = parsed.model_dump(exclude={"pages", "chunks"})
    header |= {"chunk_count": len(parsed.chunks), "parsed_at": datetime.now(timezone.utc).replace(tzinfo=None)}
    store.replace_partition(
        parsed.doc_id,
        {
            "parsed_documents": [header],
            "parsed_pages": [{"doc_id": parsed.doc_id, **p.model_dump()} for p in parsed.pages],
            "parsed_chunks": [{"doc_id": parsed.doc_id, **c.model_dump()} for c in parsed.chunks],
        },
    )


def load_parsed(store: Store, doc_id: str) -> ParsedDocument | None:
    headers = store.fetch("SELECT * FROM parsed_documents WHERE doc_id = ?", [doc_id])
    if not headers:
        return None
    header = {k: v for k, v in headers[0].items() if k not in ("chunk_count", "parsed_at")}
    pages = store.fetch("SELECT * EXCLUDE (doc_id) FROM parsed_pages WHERE doc_id = ? ORDER BY page", [doc_id])
    chunks = store.fetch("SELECT * EXCLUDE (doc_id) FROM parsed_chunks WHERE doc_id = ? ORDER BY seq", [doc_id])
    return ParsedDocument(
        **header,
        pages=[ParsedPage(**p) for p in pages],
        chunks=[Chunk(**c) for c in chunks],
    )


def page_text(store: Store, doc_id: str, page: int) -> str:
    """The parsed text of the document's 0-based `page` ("" for a page the store does not hold)."""
    rows = store.fetch("SELECT text FROM parsed_pages WHERE doc_id = ? AND page = ?", [doc_id, page])
    return rows[0]["text"] if rows else ""
