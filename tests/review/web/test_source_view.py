"""Locating a span on a PDF page by PDFium's character boxes, the page image, and text excerpts."""

from __future__ import annotations

import struct
import zlib

import pypdfium2 as pdfium
from fpdf import FPDF

from knowledge_assets.review.web.source_view import (
    _lines,
    _png,
    cached_page_png,
    excerpt,
    page_highlight,
    render_page_png,
)


def _pdf(path, lines: list[str]):
    """A one-page A4 PDF we wrote ourselves: each line at a known height."""
    document = FPDF(format="A4", unit="pt")
    document.add_page()
    document.set_font("Helvetica", size=12)
    for number, line in enumerate(lines):
        document.text(72, 100 + 20 * number, line)
    document.output(str(path))
    return path


def _page_text(path, page: int = 0) -> str:
    document = pdfium.PdfDocument(str(path))
    try:
        return document[page].get_textpage().get_text_range()
    finally:
        document.close()


def test_a_span_over_two_lines_gets_one_box_per_line_around_its_words(tmp_path):
    pdf = _pdf(tmp_path / "two.pdf", ["The haul distance is measured", "from the loading point to the dump."])
    highlight = page_highlight(pdf, 0, "distance is measured\nfrom the loading point", _page_text(pdf), None)
    assert len(highlight.boxes) == 2
    first, second = highlight.boxes
    # fpdf writes each baseline at 100 and 120 pt from the top; a box surrounds its line's glyphs.
    assert first.top < 100 < first.top + first.height and second.top < 120 < second.top + second.height
    assert second.left < first.left  # the first line's box starts at "distance", the second at the margin
    assert round(highlight.width) == 595 and round(highlight.height) == 842


def test_a_repeated_span_is_boxed_where_the_parsed_text_places_it(tmp_path):
    pdf = _pdf(tmp_path / "repeat.pdf", ["Cycle time counts.", "Cycle time counts."])
    text = "Cycle time counts.\nCycle time counts."
    first = page_highlight(pdf, 0, "Cycle time", text, 0).boxes
    second = page_highlight(pdf, 0, "Cycle time", text, text.index("Cycle", 1)).boxes
    assert first[0].top < 100 < first[0].top + first[0].height
    assert second[0].top < 120 < second[0].top + second[0].height


def test_a_span_not_on_the_page_gets_no_box(tmp_path):
    pdf = _pdf(tmp_path / "none.pdf", ["Only this line."])
    assert page_highlight(pdf, 0, "not written here", "Only this line.", None).boxes == []


def test_character_boxes_on_one_line_merge_and_a_new_line_starts_a_new_box():
    boxes = [(10, 100, 15, 110), (15, 100, 20, 111), (5, 80, 9, 90)]
    assert _lines(boxes) == [(10, 100, 20, 111), (5, 80, 9, 90)]


def test_the_png_encoder_writes_a_valid_rgb_image():
    red_then_blue = bytes([255, 0, 0, 0, 0, 255, 9, 9])  # two pixels a row, two bytes of row padding
    data = _png(2, 1, 8, red_then_blue)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    assert (width, height, depth, colour) == (2, 1, 8, 2)
    idat = data.index(b"IDAT")
    length = struct.unpack(">I", data[idat - 4:idat])[0]
    assert zlib.decompress(data[idat + 4:idat + 4 + length]) == b"\x00" + red_then_blue[:6]


def test_a_page_is_rendered_once_into_its_cache_file(tmp_path):
    pdf = _pdf(tmp_path / "page.pdf", ["A page."])
    cache = tmp_path / "cache" / "page-1.png"
    assert cached_page_png(pdf, 0, cache).read_bytes() == render_page_png(pdf, 0)
    cache.write_bytes(b"kept")
    assert cached_page_png(pdf, 0, cache).read_bytes() == b"kept"  # not rendered again
    assert list(cache.parent.iterdir()) == [cache]  # no partial file left behind


def test_an_excerpt_splits_the_text_around_the_marked_part():
    shown = excerpt("before SPAN after", 7, 11, "§ 1")
    assert (shown.before, shown.marked, shown.after, shown.heading) == ("before ", "SPAN", " after", "§ 1")


def test_a_span_crossing_a_page_break_is_boxed_on_both_pages(tmp_path):
    from knowledge_assets.contracts import SpanPiece
    from knowledge_assets.review.web.source_view import piece_highlights
    from tests.documents import write_pdf

    pdf = write_pdf(tmp_path / "two.pdf", [["Batas dosis berlaku untuk pekerja dan", "- 2 -"],
                                            ["magang di atas 16 tahun.", "Pasal 3"]])
    texts = {page: _page_text(pdf, page) for page in (0, 1)}
    pieces = [SpanPiece(page=0, page_no=1, chunk_id="c0", span="berlaku untuk pekerja dan"),
              SpanPiece(page=1, page_no=2, chunk_id="c1", span="magang di atas 16 tahun.")]
    first, second = piece_highlights(pdf, pieces, texts)
    assert (first.page_no, second.page_no) == (1, 2)
    assert len(first.boxes) == 1 and len(second.boxes) == 1
