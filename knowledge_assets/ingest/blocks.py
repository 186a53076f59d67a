"""What every parser produces: per page, the page text as the source has it and the blocks
(headings, paragraphs, equations) located in it by character offsets."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

# Where `str.splitlines` ends a line, so a line here is a line there.
_LINE_BREAK = re.compile("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


@dataclass(frozen=True)
class Heading:
    text: str
    section_no: str | None
    path: tuple[str, ...]


@dataclass(frozen=True)
class Block:
    """A heading, a paragraph or an equation at `start:end` of the page text; a `furniture`
    block (a running header, a page number) is never chunked and no chunk spans it."""

    start: int
    end: int
    heading: Heading | None = None
    latex: str | None = None
    furniture: bool = False


@dataclass
class PageBlocks:
    """A page's text and its blocks in reading order. The pages `plain.blocks_from_page_texts`
    gives (a text file's, a PDF's) find their blocks as they are read: `blocks` is then iterable
    once, the pages in order; other parsers give lists."""

    page: int
    text: str
    blocks: Iterable[Block] = field(default_factory=list)


def decode_utf8(data: bytes, origin: str) -> str:
    from knowledge_assets.ingest.document_error import DocumentError

    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = data[exc.start]
        raise DocumentError(
            origin,
            f"not valid UTF-8 (byte 0x{bad:02x} at offset {exc.start}); save the file as UTF-8 "
            "and ingest it again",
        ) from None


def lines_with_offsets(text: str) -> Iterator[tuple[int, str]]:
    """Each line (without its line break) with the offset where it starts, one at a time: a
    50 MB text file is one page of about a million lines, read without holding them all."""
    offset = 0
    for line_break in _LINE_BREAK.finditer(text):
        yield offset, text[offset : line_break.end()].rstrip("\r\n")
        offset = line_break.end()
    if offset < len(text):
        yield offset, text[offset:]
