"""MinerU's `content_list.json`: a flat list of items with `type`, `text`, `page_idx`, and
`text_level` on headings. Equations arrive as LaTeX (`text_format: latex`) and are kept as
the chunk's `latex`, which the formula branch verifies transcriptions against. Page furniture
is left out of the page text: the items MinerU itself types `header`, `footer` and
`page_number`, and text items that are furniture by `ingest.furniture` (a catchword, `- 2 -`)."""

from __future__ import annotations

import json
from pathlib import Path

from knowledge_assets.ingest.blocks import Block, PageBlocks, decode_utf8
from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.furniture import is_page_furniture
from knowledge_assets.ingest.headings import Outline

PARSER_VERSION = "2"
_ITEM_SEPARATOR = "\n\n"
_FURNITURE_TYPES = frozenset({"header", "footer", "page_number"})


def _item_text(item: dict) -> str:
    if item.get("type") == "table":
        parts = [*item.get("table_caption", []), item.get("table_body", ""), *item.get("table_footnote", [])]
        return "\n".join(p for p in parts if isinstance(p, str) and p.strip())
    if item.get("type") == "image":
        return "\n".join(p for p in item.get("img_caption", []) if isinstance(p, str))
    text = item.get("text", "")
    return text if isinstance(text, str) else ""


def _strip_math_delimiters(latex: str) -> str:
    latex = latex.strip()
    for left, right in (("$$", "$$"), ("\\[", "\\]"), ("$", "$")):
        if latex.startswith(left) and latex.endswith(right) and len(latex) > len(left) + len(right):
            return latex[len(left) : -len(right)].strip()
    return latex


def blocks_from_content_list(items: list, origin: str) -> list[PageBlocks]:
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise DocumentError(origin, "not a MinerU content_list.json (expected a JSON list of objects)")
    if not items:
        raise DocumentError(origin, "MinerU content list holds no items")
    by_page: dict[int, list[dict]] = {}
    for item in items:
        page = item.get("page_idx", 0)
        if not isinstance(page, int) or page < 0:
            raise DocumentError(origin, f"MinerU item has an invalid page_idx: {page!r}")
        by_page.setdefault(page, []).append(item)

    outline = Outline()
    pages = []
    for page in range(max(by_page) + 1):
        text, blocks = "", []
        for item in by_page.get(page, []):
            item_text = _item_text(item).strip()
            if not item_text or item.get("type") in _FURNITURE_TYPES or (
                    item.get("type") == "text" and "\n" not in item_text and is_page_furniture(item_text)):
                continue
            if text:
                text += _ITEM_SEPARATOR
            start, text = len(text), text + item_text
            if item.get("type") == "text" and item.get("text_level"):
                blocks.append(Block(start, len(text), heading=outline.explicit(item_text)))
            elif item.get("type") == "equation":
                blocks.append(Block(start, len(text), latex=_strip_math_delimiters(item_text)))
            else:
                blocks.append(Block(start, len(text)))
        pages.append(PageBlocks(page, text, blocks))
    if not any(p.blocks for p in pages):
        raise DocumentError(origin, "MinerU content list holds no text")
    return pages


def parse_content_list(path: Path) -> list[PageBlocks]:
    try:
        items = json.loads(decode_utf8(path.read_bytes(), str(path)))
    except json.JSONDecodeError as exc:
        raise DocumentError(path, f"not valid JSON: {exc}") from None
    return blocks_from_content_list(items, str(path))
