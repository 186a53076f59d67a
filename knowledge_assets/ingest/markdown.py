"""Markdown: `#` headings are explicit; paragraphs split at blank lines; fenced code is text."""

from __future__ import annotations

import re
from pathlib import Path

from knowledge_assets.ingest.blocks import Block, PageBlocks, decode_utf8, lines_with_offsets
from knowledge_assets.ingest.headings import Outline

PARSER_VERSION = "1"
_ATX_HEADING = re.compile(r"(?P<marks>#{1,6})\s+(?P<text>.*?)(?:\s+#+)?\s*")
_FENCE = re.compile(r"\s*(```|~~~)")


def blocks_from_markdown(text: str) -> list[PageBlocks]:
    outline = Outline()
    blocks: list[Block] = []
    paragraph: tuple[int, int] | None = None
    in_fence = False
    for offset, line in lines_with_offsets(text):
        if _FENCE.match(line):
            in_fence = not in_fence
        heading_match = None if in_fence else _ATX_HEADING.fullmatch(line)
        if heading_match or not line.strip():
            if paragraph:
                blocks.append(Block(*paragraph))
            paragraph = None
        if heading_match and heading_match["text"]:
            heading = outline.explicit(heading_match["text"], level=len(heading_match["marks"]))
            start = offset + heading_match.start("text")
            blocks.append(Block(start, start + len(heading_match["text"]), heading=heading))
        elif line.strip() and not heading_match:
            start = offset + len(line) - len(line.lstrip())
            paragraph = (paragraph[0] if paragraph else start, offset + len(line.rstrip()))
    if paragraph:
        blocks.append(Block(*paragraph))
    return [PageBlocks(0, text, blocks)]


def parse_markdown(path: Path) -> list[PageBlocks]:
    return blocks_from_markdown(decode_utf8(path.read_bytes(), str(path)))
