"""PDF text layers, read with pypdfium2 (PDFium's text layer; Apache-2.0/BSD-3 like PDFium, where
PyMuPDF's AGPL would bind our users). PDFium is also the renderer the review pages use, and it
reads text 3-4x faster than pypdf here (bench/bench_pdf_text.py).

A page's text is `PdfTextPage.get_text_bounded()` over the whole page box, not
`get_text_range()`: the latter is limited to UCS-2 (PDFium drops characters outside the Basic
Multilingual Plane, such as the math italic letters equation editors write) and includes text
outside the visible page box. PDFium's own conventions are then undone, so the stored text shows
what the page shows, line for line as pypdf read it before: "\n" line ends and line-end hyphens
(`page_text`), and the empty lines PDFium leaves out (`_with_empty_lines`). Chunks are slices
of this text, so what it holds is fixed by these rules alone."""

from __future__ import annotations

import ctypes
import threading
from contextlib import closing
from pathlib import Path

import pypdfium2
import pypdfium2.raw as pdfium_c

from knowledge_assets.ingest.blocks import PageBlocks
from knowledge_assets.ingest.errors import DocumentError
from knowledge_assets.ingest.plain import PARSER_VERSION as PLAIN_VERSION
from knowledge_assets.ingest.plain import blocks_from_page_texts

# The text layer's reader, our normalisation of it and the plain-text structure reading all
# shape the chunks; bump the middle number when `page_text` changes.
PARSER_VERSION = (
    f"pypdfium2-{pypdfium2.PYPDFIUM_INFO}+pdfium-{pypdfium2.PDFIUM_INFO.build}+text-1+plain-{PLAIN_VERSION}"
)
NO_TEXT_LAYER = (
    "no extractable text: OCR is not part of this pipeline; parse it with MinerU and ingest "
    "its content_list.json"
)
ENCRYPTED = "encrypted PDF: a password is required to read it; decrypt it and ingest again"

# PDFium is not thread-safe: one call into it at a time per process (the review pages render
# with it too and should take this lock).
PDFIUM_LOCK = threading.Lock()

# get_text_bounded ends lines with "\r\n"; where a line ends in a hyphen inside a word
# (`batas-` / `batas`), PDFium drops that line break and writes U+0002 for the hyphen.
_LINE_END_HYPHEN = "\x02"

# PDFium's own test for a text object it leaves out of the text (kSizeEpsilon).
_NO_WIDTH = 0.01

_LOAD_ERRORS = {
    pdfium_c.FPDF_ERR_FORMAT: "data format error",
    pdfium_c.FPDF_ERR_FILE: "file access error",
    pdfium_c.FPDF_ERR_PAGE: "page not found or content error",
    pdfium_c.FPDF_ERR_UNKNOWN: "unknown error",
}


def page_text(pdfium_text: str) -> str:
    """PDFium's page text with "\\r\\n" line ends as "\\n", and each line-end hyphen PDFium marked
    given back as the hyphen and line break the page shows ("-\\n", as pypdf and pdftotext
    read it): the word is not joined, since a hyphen at a line end may belong to the word
    (Indonesian reduplication, `batas-batas`)."""
    return pdfium_text.replace("\r\n", "\n").replace(_LINE_END_HYPHEN, "-\n")


def read_page_texts(path: Path) -> list[str]:
    data = path.read_bytes()
    if not data:
        raise DocumentError(path, "empty file (0 bytes)")
    if not data.lstrip()[:5] == b"%PDF-":
        raise DocumentError(path, "not a PDF file (no %PDF- header)")
    with PDFIUM_LOCK:
        try:
            # PDFium tries the empty user password itself, so owner-only protection reads.
            document = pypdfium2.PdfDocument(data)
        except pypdfium2.PdfiumError as exc:
            raise _load_error(path, exc) from None
        try:
            texts = [_read_page(path, document, index) for index in range(len(document))]
        finally:
            document.close()
    if not texts:
        raise DocumentError(path, "corrupt or truncated PDF (no pages)")
    if not any(text.strip() for text in texts):
        raise DocumentError(path, NO_TEXT_LAYER)
    return texts


def _read_page(path: Path, document: pypdfium2.PdfDocument, index: int) -> str:
    try:
        with closing(document[index]) as page, closing(page.get_textpage()) as textpage:
            text = textpage.get_text_bounded()
            empty_lines = _empty_line_heights(page)
            if empty_lines:
                text = _with_empty_lines(text, textpage, empty_lines)
            return page_text(text)
    except pypdfium2.PdfiumError:
        raise DocumentError(path, f"corrupt or truncated PDF (page {index + 1} cannot be read)") from None


def _empty_line_heights(page: pypdfium2.PdfPage) -> list[float]:
    """Where the page holds a text object of no width (a word processor's empty paragraph, a
    lone space): PDFium leaves such objects out of the text, pypdf and pdftotext show them as
    an empty line, and an empty line is what ends a paragraph in the plain reading. Only the
    page's own objects are looked at (not those inside form XObjects, whose bounds are in the
    form's space), through the raw API: the helper objects cost more than the text itself."""
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    heights = []
    for index in range(pdfium_c.FPDFPage_CountObjects(page)):
        obj = pdfium_c.FPDFPage_GetObject(page, index)
        if pdfium_c.FPDFPageObj_GetType(obj) != pdfium_c.FPDF_PAGEOBJ_TEXT:
            continue
        has_bounds = pdfium_c.FPDFPageObj_GetBounds(obj, left, bottom, right, top)
        if has_bounds and right.value - left.value < _NO_WIDTH:
            heights.append((bottom.value + top.value) / 2)
    return heights


def _with_empty_lines(text: str, textpage: pypdfium2.PdfTextPage, heights: list[float]) -> str:
    """The text with an empty line at each line break that has an empty-line object between
    the two lines' boxes. The line holds a space, as pypdf reads these objects (the offline
    extractor's sentence splitter ends a paragraph at a whitespace line, not at an empty one).
    The geometry comes from `get_text_range()`, whose text indices map to PDFium's characters;
    it breaks lines where `get_text_bounded()` does, and if the two ever disagree the text is
    left as it is."""
    lines = text.split("\r\n")
    gaps = _line_gaps(textpage)
    if len(gaps) != len(lines) - 1:
        return text
    out = [lines[0]]
    for (below_previous, above_next), line in zip(gaps, lines[1:], strict=True):
        empty = any(above_next < y < below_previous for y in heights)
        out.append("\r\n \r\n" + line if empty else "\r\n" + line)
    return "".join(out)


def _line_gaps(textpage: pypdfium2.PdfTextPage) -> list[tuple[float, float]]:
    """For each line break of the page text: the bottom of the line above and the top of the
    line below (PDF units, y upwards; loose character boxes, which span the font's height)."""
    text, count = textpage.get_text_range(), textpage.count_chars()
    gaps, at = [], text.find("\r\n")
    while at != -1:
        char = pdfium_c.FPDFText_GetCharIndexFromTextIndex(textpage, at)
        above, below = _written_char(textpage, char - 1, -1, count), _written_char(textpage, char + 2, 1, count)
        if above is None or below is None:
            return []
        gaps.append((textpage.get_charbox(above, loose=True)[1], textpage.get_charbox(below, loose=True)[3]))
        at = text.find("\r\n", at + 2)
    return gaps


def _written_char(textpage: pypdfium2.PdfTextPage, index: int, step: int, count: int) -> int | None:
    """The nearest character from `index` on (in direction `step`) that the page draws: not one
    PDFium generated (spaces, line breaks) and not a space."""
    while 0 <= index < count:
        generated = pdfium_c.FPDFText_IsGenerated(textpage, index) == 1
        if not generated and not chr(pdfium_c.FPDFText_GetUnicode(textpage, index)).isspace():
            return index
        index += step
    return None


def _load_error(path: Path, exc: pypdfium2.PdfiumError) -> DocumentError:
    code = getattr(exc, "err_code", None)
    if code == pdfium_c.FPDF_ERR_PASSWORD:
        return DocumentError(path, ENCRYPTED)
    if code == pdfium_c.FPDF_ERR_SECURITY:
        return DocumentError(
            path, "encrypted PDF: its security handler is not supported; decrypt it and ingest again"
        )
    cause = _LOAD_ERRORS.get(code, f"error code {code}")
    return DocumentError(path, f"corrupt or truncated PDF (PDFium: {cause})")


def parse_pdf(path: Path) -> list[PageBlocks]:
    return blocks_from_page_texts(read_page_texts(path))
