"""Each parser on real files made here, and each kind of bad input with its message."""

import json
from pathlib import Path

import pypdf
import pytest

from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.parse import parse_document
from knowledge_assets.ingest.pdf import NO_TEXT_LAYER
from tests.documents import write_image_only_pdf, write_pdf

PAGES = [
    ["PT Contoh | Standard", "1. TUJUAN PARAMETER", "Standard Parameter ini merupakan pedoman.",
     "2. PENJELASAN PARAMETER", "2.1. Production Parameter", "Production = MOHH x Qty x PA"],
    ["PT Contoh | Standard", "2.2. Quantity (Qty)", "Adalah jumlah equipment/unit yang digunakan."],
]


def _parse(path: Path, doc_id: str = "DOC-1"):
    return parse_document(identify(path, doc_id))


def test_pdf_text_layer_is_parsed_into_sections_per_page(tmp_path):
    parsed = _parse(write_pdf(tmp_path / "std.pdf", PAGES))
    assert parsed.page_count == 2 and parsed.parser == "pdf"
    by_section = {}
    for chunk in parsed.chunks:
        by_section.setdefault(chunk.section_no, chunk)
    assert by_section["2.2"].page == 1 and by_section["2.2"].page_no == 2
    assert by_section["2.2"].heading_path == ["2. PENJELASAN PARAMETER", "2.2. Quantity (Qty)"]
    assert "Production = MOHH x Qty x PA" in by_section["2.1"].text


def test_every_chunk_is_a_verbatim_slice_of_its_page(tmp_path):
    parsed = _parse(write_pdf(tmp_path / "std.pdf", PAGES))
    for chunk in parsed.chunks:
        assert parsed.pages[chunk.page].text[chunk.char_start : chunk.char_end] == chunk.text
    assert [c.chunk_id for c in parsed.chunks] == [f"DOC-1::{i:04d}" for i in range(len(parsed.chunks))]


def test_empty_pdf_file(tmp_path):
    path = tmp_path / "empty.pdf"
    path.write_bytes(b"")
    with pytest.raises(DocumentError, match=r"empty\.pdf: empty file"):
        identify(path)


def test_truncated_pdf_is_reported_as_corrupt(tmp_path):
    good = write_pdf(tmp_path / "good.pdf", PAGES).read_bytes()
    path = tmp_path / "cut.pdf"
    path.write_bytes(good[: len(good) // 3])
    with pytest.raises(DocumentError, match=r"cut\.pdf: (corrupt or truncated PDF|" + NO_TEXT_LAYER[:20] + ")"):
        _parse(path)


def test_garbage_with_pdf_extension_is_reported(tmp_path):
    path = tmp_path / "fake.pdf"
    path.write_bytes(b"this is not a pdf at all")
    with pytest.raises(DocumentError, match=r"fake\.pdf: not a PDF file"):
        _parse(path)
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> garbage\n%%EOF")
    with pytest.raises(DocumentError, match=r"broken\.pdf: corrupt or truncated PDF"):
        _parse(broken)


def test_encrypted_pdf_asks_for_the_password(tmp_path):
    writer = pypdf.PdfWriter(clone_from=write_pdf(tmp_path / "plain.pdf", PAGES))
    writer.encrypt(user_password="s3cret", algorithm="RC4-128")
    path = tmp_path / "locked.pdf"
    with path.open("wb") as fh:
        writer.write(fh)
    with pytest.raises(DocumentError, match=r"locked\.pdf: encrypted PDF: a password is required"):
        _parse(path)


def test_pdf_encrypted_with_an_empty_user_password_is_read(tmp_path):
    writer = pypdf.PdfWriter(clone_from=write_pdf(tmp_path / "plain.pdf", PAGES))
    writer.encrypt(user_password="", owner_password="owner", algorithm="RC4-128")
    path = tmp_path / "owner-only.pdf"
    with path.open("wb") as fh:
        writer.write(fh)
    assert _parse(path).page_count == 2


def test_pdf_without_text_layer_points_to_mineru(tmp_path):
    with pytest.raises(DocumentError, match="no extractable text: OCR is not part of this pipeline"):
        _parse(write_image_only_pdf(tmp_path / "scan.pdf"))


def test_markdown_headings_and_verbatim_text(tmp_path):
    path = tmp_path / "kpi.md"
    path.write_text(
        "# Maintenance KPI\n\n## 1. Purpose\n\nThis procedure defines KPIs.\n\n"
        "### 3.1. Mean Time To Repair (MTTR)\n\nMTTR means the average repair time.\n\n"
        "```\n# not a heading\n```\n",
        encoding="utf-8",
    )
    parsed = _parse(path)
    last = parsed.chunks[-1]
    assert last.section_no == "3.1"
    # Markup decides nesting: "###" sits under the last "##", whatever its number says.
    assert last.heading_path == ["Maintenance KPI", "1. Purpose", "3.1. Mean Time To Repair (MTTR)"]
    assert last.text.startswith("3.1. Mean Time To Repair (MTTR)") and "# not a heading" in last.text


def test_text_file_pages_split_on_form_feed(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("1. Scope\nApplies to haul trucks.\f2. Terms\nMTBF is defined as uptime.", encoding="utf-8")
    parsed = _parse(path)
    assert parsed.page_count == 2
    assert [(c.page, c.section_no) for c in parsed.chunks] == [(0, "1"), (1, "2")]


def test_non_utf8_text_is_named_with_the_offending_byte(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("Ketersediaan fisik é".encode("latin-1"))
    with pytest.raises(DocumentError, match=r"latin1\.txt: not valid UTF-8 \(byte 0xe9 at offset 19\)"):
        _parse(path)


def test_mineru_content_list_keeps_equations_as_latex(tmp_path):
    items = [
        {"type": "text", "text": "2.1. Production Parameter", "text_level": 1, "page_idx": 0},
        {"type": "text", "text": "2.1.1. Production", "text_level": 1, "page_idx": 1},
        {"type": "equation", "text": "$$\nProduction = MOHH x Qty x PA\n$$", "text_format": "latex", "page_idx": 1},
        {"type": "text", "text": "Satuan produksi adalah BCM.", "page_idx": 1},
    ]
    path = tmp_path / "std_content_list.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    parsed = _parse(path)
    chunk = next(c for c in parsed.chunks if c.section_no == "2.1.1")
    assert chunk.latex == "Production = MOHH x Qty x PA"
    assert chunk.heading_path == ["2.1. Production Parameter", "2.1.1. Production"]
    assert chunk.page == 1 and "Satuan produksi adalah BCM." in chunk.text


def test_mineru_page_furniture_is_left_out_of_the_page_text(tmp_path):
    items = [
        {"type": "header", "text": "PT Contoh | Standard", "page_idx": 0},
        {"type": "text", "text": "Pasal 1", "text_level": 1, "page_idx": 0},
        {"type": "text", "text": "Alat wajib diuji.", "page_idx": 0},
        {"type": "text", "text": "Pasal 2 ...", "page_idx": 0},
        {"type": "page_number", "text": "1", "page_idx": 0},
    ]
    path = tmp_path / "reg_content_list.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    assert _parse(path).pages[0].text == "Pasal 1\n\nAlat wajib diuji."


def test_mineru_file_that_is_not_a_list_is_refused(tmp_path):
    path = tmp_path / "x_content_list.json"
    path.write_text(json.dumps({"pages": []}), encoding="utf-8")
    with pytest.raises(DocumentError, match="not a MinerU content_list.json"):
        _parse(path)


def test_kramdown_front_matter_markers_and_extensions_are_not_text(tmp_path):
    path = tmp_path / "draft.md"
    path.write_text(
        "---\ntitle: \"Widget Transport\"\nabbrev: Widgets\nauthor:\n  - name: A. Person\n"
        "informative:\n  REF1:\n    title: Another Document\n\n--- abstract\n\nThis document specifies widgets.\n\n"
        "--- middle\n\n# Introduction\n\n{::boilerplate bcp14-tagged}\n\n---\n\nWidgets are small.\n"
        "{: #intro}\n\n# Model\n\nText\n",
        encoding="utf-8",
    )
    parsed = _parse(path)
    texts = [(c.heading_path, c.text) for c in parsed.chunks]
    assert texts[0] == ([], 'title: "Widget Transport"')
    assert texts[1] == (["abstract"], "abstract\n\nThis document specifies widgets.")
    assert texts[2] == (["Introduction"], "Introduction\n\n{::boilerplate bcp14-tagged}\n\n---\n\nWidgets are small.")
    assert not any("Another Document" in text or "A. Person" in text for _, text in texts)
    assert all(parsed.pages[0].text[c.char_start : c.char_end] == c.text for c in parsed.chunks)


def test_markdown_converted_regulation_keeps_its_statutory_outline_and_drops_furniture(tmp_path):
    path = tmp_path / "reg.md"
    path.write_text(
        "# Converted file\n\nPERATURAN CONTOH\n\nBAB I\nKETENTUAN UMUM\n\n"
        "Pasal 1\nDalam Peraturan ini yang dimaksud dengan:\n"
        "1. Widget adalah alat.\n\f-2-\n\n2. Gadget adalah alat lain.\n\nPasal 2 ...\n\nPasal 2\nWidget wajib diuji.\n",
        encoding="utf-8",
    )
    chunks = _parse(path).chunks
    assert [(c.section_no, c.heading_path[-1]) for c in chunks][-3:] == [
        ("Pasal 1", "Pasal 1"), ("Pasal 1", "Pasal 1"), ("Pasal 2", "Pasal 2")]
    assert chunks[-3].heading_path == ["Converted file", "BAB I KETENTUAN UMUM", "Pasal 1"]
    assert chunks[-2].text == "2. Gadget adalah alat lain."  # the page number and catchword are in no chunk
    assert not any("-2-" in c.text or "..." in c.text for c in chunks)


def test_rfc_text_page_headers_and_footers_are_in_no_chunk(tmp_path):
    path = tmp_path / "rfc.txt"
    path.write_text(
        "1.  Introduction\n\n   Widgets are small and the sender MUST\n"
        "Person & Other            Standards Track                    [Page 1]\n\f"
        "RFC 9999                  Widget Transport                   June 2030\n\n"
        "   count them.\n\n2.  Model\n\n   Text.\n",
        encoding="utf-8",
    )
    chunks = _parse(path).chunks
    assert [(c.page, c.section_no, c.text) for c in chunks] == [
        (0, "1", "1.  Introduction\n\n   Widgets are small and the sender MUST"),
        (1, "1", "count them."), (1, "2", "2.  Model\n\n   Text.")]
