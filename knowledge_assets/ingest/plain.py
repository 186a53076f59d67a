"""Blocks from plain page texts (PDF text layers, .txt files): headings are detected line by
line, and the other lines group into paragraphs. PDF text layers rarely keep blank lines, so a
line that ends a sentence also ends its paragraph; chunks are then cut between sentences
rather than inside a wrapped line."""

from __future__ import annotations

from pathlib import Path

from knowledge_assets.ingest.blocks import Block, PageBlocks, decode_utf8, lines_with_offsets
from knowledge_assets.ingest.headings import Outline

_PARAGRAPH_END = (".", ":", "!", "?")

PARSER_VERSION = "1"


def blocks_from_page_texts(page_texts: list[str]) -> list[PageBlocks]:
    outline = Outline()
    pages = []
    for page, text in enumerate(page_texts):
        blocks: list[Block] = []
        paragraph: tuple[int, int] | None = None
        for offset, line in lines_with_offsets(text):
            heading = outline.detect(line) if line.strip() else None
            if heading is not None or not line.strip():
                if paragraph:
                    blocks.append(Block(*paragraph))
                paragraph = None
            if heading is not None:
                lead = len(line) - len(line.lstrip())
                blocks.append(Block(offset + lead, offset + len(line.rstrip()), heading=heading))
            elif line.strip():
                start = offset + len(line) - len(line.lstrip())
                paragraph = (paragraph[0] if paragraph else start, offset + len(line.rstrip()))
                if line.rstrip().endswith(_PARAGRAPH_END):
                    blocks.append(Block(*paragraph))
                    paragraph = None
        if paragraph:
            blocks.append(Block(*paragraph))
        pages.append(PageBlocks(page, text, blocks))
    return pages


def parse_text_file(path: Path) -> list[PageBlocks]:
    """A .txt file is one page, or several separated by form feeds."""
    text = decode_utf8(path.read_bytes(), str(path))
    return blocks_from_page_texts(text.split("\f"))
