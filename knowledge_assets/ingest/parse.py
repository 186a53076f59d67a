"""One entry point from a registered document to its ParsedDocument, and its parts for a
parse that writes the chunks as they are cut (`ingest.stage`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from knowledge_assets.contracts import PARSED_SCHEMA_VERSION, Chunk, ParsedDocument, ParsedPage
from knowledge_assets.ingest import docx, html, markdown, mineru, pdf, plain, restructuredtext
from knowledge_assets.ingest.blocks import PageBlocks
from knowledge_assets.ingest.chunking import DEFAULT_MAX_CHARS, chunk_pages
from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.store.registry import DocumentKind, DocumentSource

_PARSERS: dict[DocumentKind, tuple[Callable[[Path], list[PageBlocks]], str]] = {
    "pdf": (pdf.parse_pdf, pdf.PARSER_VERSION),
    "markdown": (markdown.parse_markdown, markdown.PARSER_VERSION),
    "restructuredtext": (restructuredtext.parse_restructuredtext, restructuredtext.PARSER_VERSION),
    "text": (plain.parse_text_file, plain.PARSER_VERSION),
    "mineru": (mineru.parse_content_list, mineru.PARSER_VERSION),
    "docx": (docx.parse_docx, docx.PARSER_VERSION),
    "html": (html.parse_html, html.PARSER_VERSION),
}


def parser_versions() -> str:
    """Feeds the parsing asset's code_version: a parser upgrade makes parsed chunks stale."""
    return ";".join(f"{kind}={version}" for kind, (_, version) in sorted(_PARSERS.items()))


# Text formats whose bytes are the text itself: a NUL byte there is a binary or corrupt file,
# never prose, and it would be stored and shown as if it were.
_TEXT_KINDS: frozenset[DocumentKind] = frozenset({"markdown", "restructuredtext", "text", "mineru", "html"})


def _refuse_nul_bytes(source: DocumentSource, pages: list[PageBlocks]) -> None:
    for page in pages:
        offset = page.text.find("\x00")
        if offset >= 0:
            raise DocumentError(
                source.path,
                f"the text contains a NUL byte (page {page.page + 1}, character {offset}); "
                "a text document has none, so the file is binary or corrupt",
            )


def _parse_pages(source: DocumentSource) -> list[PageBlocks]:
    parse, _ = _PARSERS[source.kind]
    pages = parse(source.path)
    if source.kind in _TEXT_KINDS:
        _refuse_nul_bytes(source, pages)
    return pages


def _each_chunk(source: DocumentSource, pages: list[PageBlocks], max_chars: int) -> Iterator[Chunk]:
    cut = 0
    for cut, chunk in enumerate(chunk_pages(source.doc_id, pages, max_chars=max_chars), start=1):
        yield chunk
    if not cut:
        raise DocumentError(source.path, "no text found in the document")


def document_parts(
    source: DocumentSource, max_chars: int = DEFAULT_MAX_CHARS
) -> tuple[dict[str, str | int], Iterator[ParsedPage], Iterator[Chunk]]:
    """The document's ParsedDocument fields but its pages and chunks; its pages; and its chunks,
    cut one at a time as they are asked for (a document without one is refused once they are
    done). Only the two iterators hold the parsed text, so it goes when both have ended: a
    caller that writes the pages and then the chunks as they come holds neither every chunk nor
    the text once they are written."""
    pages = _parse_pages(source)
    header = {
        "doc_id": source.doc_id,
        "source_file": source.path.name,
        "content_sha256": source.content_sha256,
        "parser": source.kind,
        "parser_version": _PARSERS[source.kind][1],
        "schema_version": PARSED_SCHEMA_VERSION,
        "page_count": len(pages),
    }
    page_models = (ParsedPage(page=p.page, page_no=p.page + 1, text=p.text) for p in pages)
    return header, page_models, _each_chunk(source, pages, max_chars)


def parse_document(source: DocumentSource, max_chars: int = DEFAULT_MAX_CHARS) -> ParsedDocument:
    header, pages, chunks = document_parts(source, max_chars)
    return ParsedDocument(**header, pages=list(pages), chunks=list(chunks))
