"""Real documents for the term stage: the parsed samples, and small documents written to disk
and parsed by the real parsers."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge_assets.contracts import Chunk, ParsedDocument
from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.parse import parse_document
from tests.conftest import SAMPLE_MARKDOWN, SAMPLE_PDF
from tests.documents import write_pdf


@pytest.fixture(scope="session")
def sample_pdf() -> ParsedDocument:
    return parse_document(identify(SAMPLE_PDF))


@pytest.fixture(scope="session")
def sample_markdown() -> ParsedDocument:
    return parse_document(identify(SAMPLE_MARKDOWN))


def markdown_document(directory: Path, text: str, doc_id: str = "DOC-1") -> ParsedDocument:
    path = directory / f"{doc_id}.md"
    path.write_text(text, encoding="utf-8")
    return parse_document(identify(path, doc_id))


def pdf_document(directory: Path, pages: list[list[str]], doc_id: str = "PDF-1") -> ParsedDocument:
    return parse_document(identify(write_pdf(directory / f"{doc_id}.pdf", pages), doc_id))


def chunk(text: str, heading_path: list[str] | None = None, seq: int = 0, doc_id: str = "DOC-1") -> Chunk:
    return Chunk(
        chunk_id=f"{doc_id}::{seq:04d}",
        seq=seq,
        page=0,
        page_no=1,
        heading_path=heading_path or [],
        text=text,
        char_start=0,
        char_end=len(text),
    )


def repeated_document(parsed: ParsedDocument, copies: int) -> ParsedDocument:
    """The document's pages and chunks over again, renumbered: a long document of real text."""
    pages, chunks = [], []
    for copy in range(copies):
        shift = copy * parsed.page_count
        pages += [p.model_copy(update={"page": p.page + shift, "page_no": p.page_no + shift}) for p in parsed.pages]
        for c in parsed.chunks:
            seq = len(chunks)
            chunks.append(
                c.model_copy(
                    update={"seq": seq, "chunk_id": f"{parsed.doc_id}::{seq:04d}", "page": c.page + shift,
                            "page_no": c.page_no + shift}
                )
            )
    return parsed.model_copy(update={"pages": pages, "chunks": chunks, "page_count": len(pages)})
