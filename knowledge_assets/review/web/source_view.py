"""An entry's source, as the reviewer checks it: the PDF page with the span's words boxed, or
the text around the span, or the term's mentions.

PDF pages are rendered and their character boxes read with pypdfium2 (PDFium; Apache-2.0/BSD —
PyMuPDF's AGPL would bind our users). The parser read the text layer with pypdf, whose text
differs from PDFium's in whitespace and line breaks only, so the span is found in PDFium's
characters by comparing both without whitespace (NFKC, as the span check compares); where the
span occurs more than once on the page, the occurrence nearest the chunk's own position wins.
A span crossing a page break (D56) is boxed piece by piece on each piece's page
(`piece_highlights`), and its text source marks the first piece at its chunk's end.
"""

from __future__ import annotations

import struct
import threading
import unicodedata
import zlib
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from knowledge_assets.contracts import SpanPiece
from knowledge_assets.store.parsed import chunk_row, chunk_texts
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.terms import term_mentions_in_text
from knowledge_assets.verify.spans import crossing_pieces

# PDFium is not thread-safe; the server answers requests on a thread pool.
_PDFIUM = threading.Lock()
RENDER_SCALE = 2.0  # 144 dpi: small print stays legible on the page image
_CONTEXT_CHARS = 90
_MAX_MENTIONS = 12


@dataclass(frozen=True)
class Box:
    """A rectangle on the page in PDF points, origin at the page's top-left corner."""

    left: float
    top: float
    width: float
    height: float


@dataclass(frozen=True)
class PageHighlight:
    page_no: int
    width: float
    height: float
    boxes: list[Box]


@dataclass(frozen=True)
class Excerpt:
    """Text split around a highlighted part; `before`/`after` are the neighbouring text."""

    before: str
    marked: str
    after: str
    heading: str = ""


def _without_space(text: str) -> tuple[str, list[int]]:
    """`text` NFKC-normalised with whitespace dropped, and each character's index in `text`."""
    out, origin = [], []
    for index, char in enumerate(text):
        for piece in unicodedata.normalize("NFKC", char):
            if not piece.isspace() and piece != "\u00ad":
                out.append(piece)
                origin.append(index)
    return "".join(out), origin


def _occurrences(haystack: str, needle: str) -> list[int]:
    found, start = [], haystack.find(needle)
    while start != -1:
        found.append(start)
        start = haystack.find(needle, start + 1)
    return found


def _lines(boxes: list[tuple[float, float, float, float]]) -> list[tuple[float, float, float, float]]:
    """Character boxes (left, bottom, right, top) merged into one rectangle per line of text."""
    lines: list[list[float]] = []
    for left, bottom, right, top in boxes:
        current = lines[-1] if lines else None
        same_line = current is not None and bottom < current[3] and top > current[1] and left >= current[0] - 1
        if same_line:
            current[0], current[1] = min(current[0], left), min(current[1], bottom)
            current[2], current[3] = max(current[2], right), max(current[3], top)
        else:
            lines.append([left, bottom, right, top])
    return [tuple(line) for line in lines]  # type: ignore[misc]


def _span_char_boxes(textpage, span: str, expected_offset: int | None) -> list[tuple[float, float, float, float]]:
    """PDFium's character boxes (left, bottom, right, top, in page points) of the span's
    non-space characters; empty when the span is not on the page.

    `expected_offset`: how many non-space characters of the parsed page text precede the span,
    to choose among repeated occurrences.
    """
    wanted, _ = _without_space(span)
    if not wanted:
        return []
    chars = "".join(chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, i)) for i in range(textpage.count_chars()))
    flat, origin = _without_space(chars)
    starts = _occurrences(flat, wanted)
    if not starts:
        return []
    start = min(starts, key=lambda s: abs(s - (expected_offset or 0)))
    indices = sorted({origin[i] for i in range(start, start + len(wanted))})
    return [textpage.get_charbox(i) for i in indices]


def page_highlight(pdf: Path, page: int, span: str, page_text: str, span_start: int | None) -> PageHighlight:
    """Where the span lies on the rendered 0-based `page`: one box per line of its words.
    `span_start`: the span's offset in the parsed page text, when known."""
    expected = len(_without_space(page_text[:span_start])[0]) if span_start is not None else None
    with _PDFIUM:
        document = pdfium.PdfDocument(str(pdf))
        try:
            pdf_page = document[page]
            left, bottom, right, top = pdf_page.get_bbox()
            chars = _span_char_boxes(pdf_page.get_textpage(), span, expected)
        finally:
            document.close()
    pad = 1.5
    boxes = [
        Box(x0 - left - pad, top - y1 - pad, (x1 - x0) + 2 * pad, (y1 - y0) + 2 * pad)
        for x0, y0, x1, y1 in _lines(chars)
    ]
    return PageHighlight(page + 1, right - left, top - bottom, boxes)


def piece_highlights(pdf: Path, pieces: list[SpanPiece], page_texts: dict[int, str]) -> list[PageHighlight]:
    """A span that crosses a page break (D56), boxed piece by piece, each on its own page:
    the first piece ends its page's text and the others open theirs."""
    highlights = []
    for index, piece in enumerate(pieces):
        text = page_texts.get(piece.page, "")
        start = text.rfind(piece.span) if index == 0 else text.find(piece.span)
        highlights.append(page_highlight(pdf, piece.page, piece.span, text, start if start >= 0 else None))
    return highlights


def page_count(pdf: Path) -> int:
    with _PDFIUM:
        document = pdfium.PdfDocument(str(pdf))
        try:
            return len(document)
        finally:
            document.close()


def _png(width: int, height: int, stride: int, rgb: bytes) -> bytes:
    """An 8-bit RGB PNG (the format needs only zlib; no imaging library for one call)."""
    rows = b"".join(b"\x00" + rgb[y * stride:y * stride + width * 3] for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b"")


def render_page_png(pdf: Path, page: int, scale: float = RENDER_SCALE) -> bytes:
    with _PDFIUM:
        document = pdfium.PdfDocument(str(pdf))
        try:
            bitmap = document[page].render(scale=scale, rev_byteorder=True)
            width, height, stride = bitmap.width, bitmap.height, bitmap.stride
            pixels = bytes(bitmap.buffer)
        finally:
            document.close()
    return _png(width, height, stride, pixels)


def cached_page_png(pdf: Path, page: int, cache: Path) -> Path:
    """The rendered page under `cache` (written once, atomically, so a reader never sees half)."""
    if not cache.is_file():
        cache.parent.mkdir(parents=True, exist_ok=True)
        partial = cache.with_suffix(f".{threading.get_ident()}.part")
        partial.write_bytes(render_page_png(pdf, page))
        partial.replace(cache)
    return cache


def excerpt(text: str, start: int, end: int, heading: str = "") -> Excerpt:
    return Excerpt(text[:start], text[start:end], text[end:], heading)


def _chunk(store: Store, doc_id: str, chunk_id: str | None) -> dict | None:
    if chunk_id is None:
        return None
    return chunk_row(store, doc_id, chunk_id)


@dataclass(frozen=True)
class TextSource:
    """The span in its chunk, with the chunks before and after it as context."""

    excerpt: Excerpt | None
    previous: str
    following: str
    chunk: dict | None
    span_start_in_page: int | None


def text_source(store: Store, doc_id: str, chunk_id: str | None, span: str) -> TextSource:
    chunk = _chunk(store, doc_id, chunk_id)
    if chunk is None:
        return TextSource(None, "", "", None, None)
    neighbours = chunk_texts(store, doc_id, [chunk["seq"] - 1, chunk["seq"] + 1])
    start = chunk["text"].find(span) if span else -1
    following = neighbours.get(chunk["seq"] + 1, "")
    if start == -1 and (split := crossing_pieces(span, chunk["text"], following)):
        # A span that runs on into the next chunk (D56): its first piece is marked here, at
        # the chunk's end, and the next chunk, where the second piece opens, follows it.
        span = split[0]
        start = chunk["text"].rfind(span)
    heading = " › ".join(chunk["heading_path"] or [])
    if start == -1:
        found, page_start = Excerpt(chunk["text"], "", "", heading), None
    else:
        found, page_start = excerpt(chunk["text"], start, start + len(span), heading), chunk["char_start"] + start
    return TextSource(found, neighbours.get(chunk["seq"] - 1, ""), following, chunk, page_start)


@dataclass(frozen=True)
class MentionExcerpt:
    page_no: int
    section_no: str | None
    excerpt: Excerpt


def mentions(store: Store, doc_id: str, term_id: str) -> tuple[int, list[MentionExcerpt]]:
    """How often the term is mentioned, and the first mentions each in a window of its text."""
    rows = term_mentions_in_text(store, doc_id, term_id)
    shown = []
    for row in rows[:_MAX_MENTIONS]:
        text, start, end = row["text"], row["char_start"], row["char_end"]
        lo, hi = max(0, start - _CONTEXT_CHARS), min(len(text), end + _CONTEXT_CHARS)
        window = excerpt(text[lo:hi], start - lo, end - lo)
        window = Excerpt(("…" if lo else "") + window.before, window.marked,
                         window.after + ("…" if hi < len(text) else ""))
        shown.append(MentionExcerpt(row["page_no"], row["section_no"], window))
    return len(rows), shown
