"""Markdown: `#` headings are explicit; paragraphs split at blank lines; fenced code is text.

Lines that are markup rather than text never become a paragraph, a title or a heading:
- a YAML front matter block (`---` … `---` or `...` at the top, the Jekyll / Pandoc
  convention; kramdown-rfc ends it at its first part marker, `--- abstract`) is metadata. Only
  its top-level `title:` line is kept, as a block of its own: that value is the document's own
  title (kramdown-rfc's `title:` is the RFC title). The authors, references and venue in it
  are no text of the document;
- kramdown-rfc's part markers: `--- abstract` and `--- note_…` open a section named by the
  marker, `--- middle` and `--- back` only divide;
- kramdown extensions `{::boilerplate bcp14-tagged}` and attribute lists `{: #id …}`, and
  horizontal rules (`---`, `***`, `___`);
- page furniture left by a PDF converter (`ingest.furniture`): it ends a paragraph and is
  kept out of every chunk.
Statutory labels written as plain lines (`BAB I`, `Pasal 1`, as converters of Indonesian
regulations leave them) are headings, nested under the file's own `#` headings.
"""

from __future__ import annotations

import re
from pathlib import Path

from knowledge_assets.ingest.blocks import Block, PageBlocks, decode_utf8, lines_with_offsets
from knowledge_assets.ingest.furniture import is_page_furniture
from knowledge_assets.ingest.headings import Outline

PARSER_VERSION = "2"
_ATX_HEADING = re.compile(r"(?P<marks>#{1,6})\s+(?P<text>.*?)(?:\s+#+)?\s*")
_FENCE = re.compile(r"\s*(```|~~~)")
_FRONT_MATTER_OPEN = "---"
_FRONT_MATTER_CLOSE = ("---", "...")
_FRONT_MATTER_TITLE = re.compile(r"title:\s*\S.*")
_PART_MARKER = re.compile(r"---\s+(?P<name>abstract|note_\S+|middle|back)\s*")
_DIVIDING_PARTS = ("middle", "back")
_EXTENSION = re.compile(r"\s*\{::?[^}]*\}?\s*")
# Only after a blank line: under a paragraph line, dashes underline a setext heading or draw a
# fraction bar, and stay text.
_RULE = re.compile(r"\s*(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})")


def _front_matter_end(lines: list[tuple[int, str]]) -> int:
    """How many leading lines the front matter takes (0 when the file has none)."""
    if not lines or lines[0][1].rstrip() != _FRONT_MATTER_OPEN:
        return 0
    for index, (_, line) in enumerate(lines[1:], start=1):
        if line.rstrip() in _FRONT_MATTER_CLOSE:
            return index + 1
        if _PART_MARKER.fullmatch(line):
            return index  # kramdown-rfc ends its YAML header at the first part marker
    return 0


def blocks_from_markdown(text: str) -> list[PageBlocks]:
    outline = Outline()
    blocks: list[Block] = []
    paragraph: tuple[int, int] | None = None
    in_fence = False
    lines = list(lines_with_offsets(text))
    front_matter = _front_matter_end(lines)
    for offset, line in lines[:front_matter]:
        if _FRONT_MATTER_TITLE.fullmatch(line.rstrip()):
            blocks.append(Block(offset, offset + len(line.rstrip())))
    for offset, line in lines[front_matter:]:
        if _FENCE.match(line):
            in_fence = not in_fence
        heading_match = None if in_fence else _ATX_HEADING.fullmatch(line)
        part = None if in_fence else _PART_MARKER.fullmatch(line)
        markup = not in_fence and (
            part is not None or bool(_EXTENSION.fullmatch(line)) or (paragraph is None and bool(_RULE.fullmatch(line)))
        )
        furniture = not in_fence and is_page_furniture(line)
        legal = None if in_fence or heading_match or markup or furniture else outline.detect_legal(line)
        if heading_match or markup or furniture or legal or not line.strip():
            if paragraph:
                blocks.append(Block(*paragraph))
            paragraph = None
        start = offset + len(line) - len(line.lstrip())
        if heading_match and heading_match["text"]:
            heading = outline.explicit(heading_match["text"], level=len(heading_match["marks"]))
            start = offset + heading_match.start("text")
            blocks.append(Block(start, start + len(heading_match["text"]), heading=heading))
        elif part is not None and part["name"] not in _DIVIDING_PARTS:
            heading = outline.explicit(part["name"], level=1)
            start = offset + part.start("name")
            blocks.append(Block(start, start + len(part["name"]), heading=heading))
        elif furniture:
            blocks.append(Block(start, max(start, offset + len(line.rstrip())), furniture=True))
        elif legal is not None:
            blocks.append(Block(start, offset + len(line.rstrip()), heading=legal))
        elif line.strip() and not heading_match and not markup and not furniture:
            titled = outline.title_line(line) if paragraph is None and blocks and blocks[-1].heading else None
            if titled is not None:
                blocks[-1] = Block(blocks[-1].start, offset + len(line.rstrip()), heading=titled)
            else:
                paragraph = (paragraph[0] if paragraph else start, offset + len(line.rstrip()))
    if paragraph:
        blocks.append(Block(*paragraph))
    return [PageBlocks(0, text, blocks)]


def parse_markdown(path: Path) -> list[PageBlocks]:
    return blocks_from_markdown(decode_utf8(path.read_bytes(), str(path)))
