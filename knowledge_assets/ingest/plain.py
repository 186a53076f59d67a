"""Blocks from plain page texts (PDF text layers, .txt files): headings are detected line by
line, and the other lines group into paragraphs. PDF text layers rarely keep blank lines, so a
line that ends a sentence also ends its paragraph; chunks are then cut between sentences
rather than inside a wrapped line. Page furniture (`ingest.furniture`) ends a paragraph and is
kept out of every chunk; a statutory label alone on its line (`BAB I`) takes the next line as
its title, so the heading block covers both lines."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from knowledge_assets.ingest.blocks import Block, PageBlocks, decode_utf8, lines_with_offsets
from knowledge_assets.ingest.furniture import is_page_furniture
from knowledge_assets.ingest.headings import Outline

_PARAGRAPH_END = (".", ":", "!", "?")

PARSER_VERSION = "2"


def blocks_from_page_texts(page_texts: list[str]) -> list[PageBlocks]:
    """The pages, each with its blocks found as they are read, so a long text's blocks are
    never all held: they are read once, page after page (as chunking does), since the outline
    they build runs on from one page to the next."""
    outline = Outline()
    return [PageBlocks(page, text, _page_blocks(text, outline)) for page, text in enumerate(page_texts)]


def _page_blocks(text: str, outline: Outline) -> Iterator[Block]:
    blocks: list[Block] = []
    paragraph: tuple[int, int] | None = None
    for offset, line in lines_with_offsets(text):
        lead, end = len(line) - len(line.lstrip()), offset + len(line.rstrip())
        furniture = is_page_furniture(line)
        after_heading = bool(blocks) and blocks[-1].heading is not None and paragraph is None
        titled = outline.title_line(line) if after_heading and line.strip() and not furniture else None
        heading = None if furniture or titled or not line.strip() else outline.detect(line)
        if furniture or titled or heading is not None or not line.strip():
            if paragraph:
                blocks.append(Block(*paragraph))
            paragraph = None
        if furniture:
            blocks.append(Block(offset + lead, end, furniture=True))
        elif titled is not None:
            blocks[-1] = Block(blocks[-1].start, end, heading=titled)
        elif heading is not None:
            blocks.append(Block(offset + lead, end, heading=heading))
        elif line.strip():
            paragraph = (paragraph[0] if paragraph else offset + lead, end)
            if line.rstrip().endswith(_PARAGRAPH_END):
                blocks.append(Block(*paragraph))
                paragraph = None
        # The latest block is held back: the next line may be its title, which extends it.
        if len(blocks) > 1:
            yield from blocks[:-1]
            del blocks[:-1]
    if paragraph:
        blocks.append(Block(*paragraph))
    yield from blocks


def parse_text_file(path: Path) -> list[PageBlocks]:
    """A .txt file is one page, or several separated by form feeds."""
    text = decode_utf8(path.read_bytes(), str(path))
    return blocks_from_page_texts(text.split("\f"))
