"""Real documents made by the tests: PDFs with and without a text layer."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF


def write_pdf(path: Path, pages: list[list[str]]) -> Path:
    """A real PDF with a text layer: one list of lines per page."""
    pdf = FPDF(format="A4")
    pdf.set_font("Helvetica", size=11)
    pdf.set_auto_page_break(auto=False)
    for lines in pages:
        pdf.add_page()
        for line in lines:
            pdf.cell(0, 7, line, new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))
    return path


def write_image_only_pdf(path: Path) -> Path:
    """A PDF whose pages hold drawings but no text: what a scan looks like to a text parser."""
    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.rect(20, 20, 100, 60, style="F")
    pdf.output(str(path))
    return path
