"""Chunking of the sample documents and of long sections."""

import pytest

from knowledge_assets.ingest.chunking import DEFAULT_MAX_CHARS, chunk_pages
from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.markdown import blocks_from_markdown
from knowledge_assets.ingest.parse import parse_document
from tests.conftest import SAMPLE_MARKDOWN, SAMPLE_PDF


@pytest.fixture(scope="module")
def sample_pdf():
    return parse_document(identify(SAMPLE_PDF))


@pytest.fixture(scope="module")
def sample_markdown():
    return parse_document(identify(SAMPLE_MARKDOWN))


def test_sample_pdf_sections_come_out_in_order_with_their_numbers(sample_pdf):
    assert sample_pdf.doc_id == "SKT-STD-PRM-001" and sample_pdf.page_count == 9
    sections = list(dict.fromkeys(c.section_no for c in sample_pdf.chunks if c.section_no))
    assert sections == [
        "1", "2", "2.1", *[f"2.1.{i}" for i in range(1, 12)], "2.2",
        *[f"2.2.{i}" for i in range(1, 6)], "3", "3.1", "3.2", "3.3", "4",
    ]


def test_sample_pdf_heading_paths_keep_the_documents_wording(sample_pdf):
    pa = next(c for c in sample_pdf.chunks if c.section_no == "2.1.3")
    assert pa.heading_path == [
        "2. PENJELASAN PARAMETER",
        "2.1. Production Parameter",
        "2.1.3. Physical of Availability (PA)",
    ]
    assert pa.text.startswith("2.1.3. Physical of Availability (PA)\nAdalah persentase waktu unit")
    assert pa.page_no == 3


def test_sample_pdf_formula_line_is_kept_verbatim(sample_pdf):
    production = [c for c in sample_pdf.chunks if c.section_no == "2.1.1"]
    assert any("Production = MOHH x Qty x PA x UA x Pty" in c.text for c in production)


def test_chunks_never_span_two_sections_or_two_pages_and_respect_the_cap(sample_pdf, sample_markdown):
    for parsed in (sample_pdf, sample_markdown):
        headings = {c.heading_path[-1] for c in parsed.chunks if c.heading_path}
        for chunk in parsed.chunks:
            assert parsed.pages[chunk.page].text[chunk.char_start : chunk.char_end] == chunk.text
            assert len(chunk.text) <= DEFAULT_MAX_CHARS
            lines = {line.lstrip("# ").strip() for line in chunk.text.splitlines()}
            # at most the chunk's own heading appears as a line inside it
            assert lines & headings <= set(chunk.heading_path[-1:])


def test_sample_markdown_sections(sample_markdown):
    assert sample_markdown.doc_id == "SKT-MNT-KPI-002"
    mttr = next(c for c in sample_markdown.chunks if c.section_no == "3.2")
    assert mttr.heading_path == ["Maintenance KPI Procedure", "3. Definitions", "3.2. Mean Time To Repair (MTTR)"]
    assert "MTTR means" in mttr.text


def test_a_long_section_splits_on_paragraph_boundaries_under_the_cap():
    paragraphs = [f"Paragraph {i} " + "kata " * 40 for i in range(30)]
    text = "## 1. Long\n\n" + "\n\n".join(paragraphs) + "\n"
    chunks = list(chunk_pages("D", blocks_from_markdown(text), max_chars=600))
    assert len(chunks) > 1
    assert all(c.section_no == "1" and len(c.text) <= 600 for c in chunks)
    assert all(c.text.rstrip().endswith("kata") for c in chunks)  # cut between paragraphs
    assert "".join(c.text for c in chunks).count("Paragraph") == 30


def test_a_single_overlong_line_is_cut_at_spaces_and_loses_no_text():
    text = "## 1. One line\n\n" + " ".join(f"w{i}" for i in range(2000)) + "\n"
    chunks = list(chunk_pages("D", blocks_from_markdown(text), max_chars=500))
    assert all(len(c.text) <= 500 for c in chunks)
    assert [w for w in " ".join(c.text for c in chunks).split() if w.startswith("w")] == [
        f"w{i}" for i in range(2000)
    ]


def test_a_long_paragraph_is_cut_where_a_line_ends_a_sentence():
    items = [f"{i}. Istilah {i} adalah kata yang\nmenjelaskan hal nomor {i} dengan rinci." for i in range(1, 40)]
    text = "## 1. Ketentuan\n\n" + "\n".join(items) + "\n"
    chunks = list(chunk_pages("D", blocks_from_markdown(text), max_chars=500))
    assert len(chunks) > 1 and all(len(c.text) <= 500 for c in chunks)
    assert all(c.text.rstrip().endswith("rinci.") for c in chunks)
