"""Writes a parsed document as the partition's rows and reads it back for later stages.

Rows are read back straight into their models a batch at a time, without a list of every
row as a dict beside them; the extraction stages read the chunks alone (`load_chunks`), not
the page text, which for a text file is the whole file again."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timezone
from typing import Any, TypeVar

from knowledge_assets.contracts import Chunk, ParsedDocument, ParsedPage
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.rows import each_row
from knowledge_assets.store.schema import column_list, placeholders

PARSED_TABLES = ("parsed_documents", "parsed_pages", "parsed_chunks")

_Model = TypeVar("_Model")
_PAGES_SQL = f"SELECT {column_list('parsed_pages', 'doc_id')} FROM parsed_pages WHERE doc_id = ? ORDER BY page"
_CHUNKS_SQL = f"SELECT {column_list('parsed_chunks', 'doc_id')} FROM parsed_chunks WHERE doc_id = ? ORDER BY seq"


def write_parsed(store: Store, header: dict[str, Any], pages: Iterable[ParsedPage], chunks: Iterable[Chunk]) -> None:
    """Replaces the document's parsed rows by `header` (a ParsedDocument's fields but its pages
    and chunks), its pages and its chunks.

    `pages` and `chunks` may be generators (`ingest.parse.document_parts`): the store inserts a
    table's rows a batch at a time, in the order given here, so a long document's chunks are
    never all held, as models or as rows. The pages go first, while the document holds nothing
    else (a text file's page row is the whole file, and DuckDB makes several copies of it while
    inserting it); the chunks next, after which no generator holds the page text, so it is let
    go before the commit, where DuckDB copies the transaction's rows again; the header last, so
    it counts the chunks written before it."""
    doc_id = header["doc_id"]
    chunk_count = 0

    def chunk_rows() -> Iterator[dict[str, Any]]:
        nonlocal chunk_count
        for chunk in chunks:
            chunk_count += 1
            yield {"doc_id": doc_id, **chunk.model_dump()}

    def header_row() -> Iterator[dict[str, Any]]:
        yield header | {"chunk_count": chunk_count, "parsed_at": datetime.now(timezone.utc).replace(tzinfo=None)}

    store.replace_partition(
        doc_id,
        {
            "parsed_pages": ({"doc_id": doc_id, **page.model_dump()} for page in pages),
            "parsed_chunks": chunk_rows(),
            "parsed_documents": header_row(),
        },
    )


def _models(store: Store, sql: str, doc_id: str, model: Callable[..., _Model]) -> list[_Model]:
    """Each row of `sql` as a model, fetched a batch at a time."""
    return [model(**row) for row in each_row(store, sql, [doc_id])]


def _is_parsed(store: Store, doc_id: str) -> bool:
    return bool(store.fetch("SELECT 1 FROM parsed_documents WHERE doc_id = ?", [doc_id]))


def load_chunks(store: Store, doc_id: str) -> list[Chunk] | None:
    """The document's chunks in order, or None when it has not been parsed."""
    if not _is_parsed(store, doc_id):
        return None
    return _models(store, _CHUNKS_SQL, doc_id, Chunk)


def load_parsed(store: Store, doc_id: str) -> ParsedDocument | None:
    headers = store.fetch("SELECT * FROM parsed_documents WHERE doc_id = ?", [doc_id])
    if not headers:
        return None
    header = {k: v for k, v in headers[0].items() if k not in ("chunk_count", "parsed_at")}
    return ParsedDocument(
        **header,
        pages=_models(store, _PAGES_SQL, doc_id, ParsedPage),
        chunks=_models(store, _CHUNKS_SQL, doc_id, Chunk),
    )


def page_text(store: Store, doc_id: str, page: int) -> str:
    """The parsed text of the document's 0-based `page` ("" for a page the store does not hold)."""
    rows = store.fetch("SELECT text FROM parsed_pages WHERE doc_id = ? AND page = ?", [doc_id, page])
    return rows[0]["text"] if rows else ""


def page_count(store: Store, doc_id: str) -> int | None:
    """How many pages the parsed document has; None for a document never parsed."""
    rows = store.fetch("SELECT page_count FROM parsed_documents WHERE doc_id = ?", [doc_id])
    return rows[0]["page_count"] if rows else None


def parsed_content_hashes(store: Store) -> dict[str, str]:
    """doc_id → the content hash its parsed rows came from, for every parsed document."""
    rows = store.fetch("SELECT doc_id, content_sha256 FROM parsed_documents")
    return {row["doc_id"]: row["content_sha256"] for row in rows}


def chunk_row(store: Store, doc_id: str, chunk_id: str) -> dict | None:
    """The chunk's `parsed_chunks` row as the store returns it (doc_id included), None if absent."""
    rows = store.fetch("SELECT * FROM parsed_chunks WHERE doc_id = ? AND chunk_id = ?", [doc_id, chunk_id])
    return rows[0] if rows else None


def chunk_texts(store: Store, doc_id: str, seqs: list[int]) -> dict[int, str]:
    """seq → text of the document's chunks at those positions (those that exist)."""
    if not seqs:
        return {}
    rows = store.fetch(f"SELECT seq, text FROM parsed_chunks WHERE doc_id = ? AND seq IN ({placeholders(len(seqs))})",
                       [doc_id, *seqs])
    return {row["seq"]: row["text"] for row in rows}
