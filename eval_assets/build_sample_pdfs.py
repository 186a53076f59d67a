"""Render the sample corpus PDF from its Markdown source (dev script).

Usage, from the repository root (needs the ``dev`` extra, which brings fpdf2)::

    python eval_assets/build_sample_pdfs.py

Reads ``eval_assets/sources/std_parameter_produksi.md`` and writes
``eval_assets/documents/std_parameter_produksi.pdf``. The PDF is generated,
not downloaded: the text is the project's own fictional document of
"PT Samudra Karya Tambang" (SKT-STD-PRM-001).

The Markdown subset understood here is deliberately small:

* ``#``/``##``/``###`` lines are headings; the ``#`` marks are dropped and the
  heading text (which carries its section number, e.g.
  ``2.1.3. Physical of Availability (PA)``) is printed bold and larger on a
  line of its own;
* every other non-blank line is printed as its own left-aligned paragraph
  (so formula lines and legend lines stay on their own lines); lines that
  start with ``- `` or ``N. `` are indented as list items;
* a blank line adds paragraph spacing.

Every page carries a running header
(``PT Samudra Karya Tambang | SKT-STD-PRM-001 Standard Parameter``) and a footer
``Halaman N dari M``, like a real controlled document. Text is left-aligned
(never justified) so that text extraction gives clean words and lines.

The output is deterministic: the creation date is fixed, so re-running the
script on the same source with the same fpdf2 version gives identical bytes.
Only core fonts (Helvetica) are used, so the source must be Latin-1 text.
"""

from __future__ import annotations

import re
import sys
from datetime import datetime, timezone
from pathlib import Path

from fpdf import FPDF

ROOT = Path(__file__).resolve().parent
SOURCE = ROOT / "sources" / "std_parameter_produksi.md"
OUTPUT = ROOT / "documents" / "std_parameter_produksi.pdf"

HEADER_TEXT = "PT Samudra Karya Tambang | SKT-STD-PRM-001 Standard Parameter"
FOOTER_TEMPLATE = "Halaman {page} dari {total}"
TOTAL_PAGES_ALIAS = "{nb}"
CREATION_DATE = datetime(2025, 2, 3, 8, 0, 0, tzinfo=timezone.utc)

FONT = "Helvetica"
BODY_SIZE = 10.0
BODY_LINE_HEIGHT = 4.9
PARAGRAPH_GAP = 2.2
LIST_INDENT = 6.0
# Heading level -> (font size, gap above, gap below)
HEADING_STYLE = {1: (13.0, 4.0, 2.0), 2: (12.0, 3.0, 1.5), 3: (11.0, 2.5, 1.0)}
TITLE_SIZE = 15.0
# A heading needs at least this much room below it, otherwise it starts a new
# page (no heading stranded at the bottom of a page).
KEEP_WITH_NEXT = 22.0

HEADING_RE = re.compile(r"^(#{1,6})\s+(.*\S)\s*$")
LIST_RE = re.compile(r"^(-|\d+\.)\s+")
NUMBERED_RE = re.compile(r"^\d+(\.\d+)*\.\s")


class StandardDocPDF(FPDF):
    """A4 portrait document with running header and page-numbered footer."""

    def header(self) -> None:
        self.set_font(FONT, "", 8)
        self.set_text_color(80, 80, 80)
        self.cell(0, 5, HEADER_TEXT, align="L", new_x="LMARGIN", new_y="NEXT")
        y = self.get_y() + 0.5
        self.set_draw_color(120, 120, 120)
        self.line(self.l_margin, y, self.w - self.r_margin, y)
        self.set_text_color(0, 0, 0)
        self.set_y(y + 4)

    def footer(self) -> None:
        self.set_y(-15)
        self.set_font(FONT, "", 8)
        self.set_text_color(80, 80, 80)
        text = FOOTER_TEMPLATE.format(page=self.page_no(), total=TOTAL_PAGES_ALIAS)
        self.cell(0, 5, text, align="C")
        self.set_text_color(0, 0, 0)


def _heading(pdf: FPDF, level: int, text: str) -> None:
    numbered = bool(NUMBERED_RE.match(text))
    if not numbered and level == 1:
        size, above, below = TITLE_SIZE, 0.0, 3.0
    else:
        size, above, below = HEADING_STYLE.get(level, HEADING_STYLE[3])
    if pdf.get_y() + KEEP_WITH_NEXT > pdf.page_break_trigger:
        pdf.add_page()
    elif pdf.get_y() > pdf.t_margin + 10:
        pdf.ln(above)
    pdf.set_font(FONT, "B", size)
    pdf.multi_cell(0, size * 0.5, text, align="L", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(below)
    pdf.set_font(FONT, "", BODY_SIZE)


def _body_line(pdf: FPDF, text: str) -> None:
    pdf.set_font(FONT, "", BODY_SIZE)
    if LIST_RE.match(text):
        pdf.set_x(pdf.l_margin + LIST_INDENT)
        width = pdf.w - pdf.r_margin - pdf.l_margin - LIST_INDENT
        pdf.multi_cell(width, BODY_LINE_HEIGHT, text, align="L", new_x="LMARGIN", new_y="NEXT")
    else:
        pdf.multi_cell(0, BODY_LINE_HEIGHT, text, align="L", new_x="LMARGIN", new_y="NEXT")


def render(markdown: str) -> bytes:
    pdf = StandardDocPDF(orientation="P", unit="mm", format="A4")
    pdf.set_margins(left=22, top=15, right=20)
    pdf.set_auto_page_break(auto=True, margin=22)
    pdf.alias_nb_pages(TOTAL_PAGES_ALIAS)
    pdf.set_creation_date(CREATION_DATE)
    pdf.set_title("Standard Parameter - Production Parameter and Equipment Capacity Analysis (ECA)")
    pdf.set_author("PT Samudra Karya Tambang")
    pdf.set_subject("SKT-STD-PRM-001")
    pdf.set_creator("eval_assets/build_sample_pdfs.py")
    pdf.add_page()
    pdf.set_font(FONT, "", BODY_SIZE)

    previous_blank = True
    for raw in markdown.splitlines():
        line = raw.rstrip()
        if not line.strip():
            if not previous_blank:
                pdf.ln(PARAGRAPH_GAP)
            previous_blank = True
            continue
        previous_blank = False
        match = HEADING_RE.match(line)
        if match:
            _heading(pdf, len(match.group(1)), match.group(2))
            previous_blank = True  # the heading already spaced itself
        else:
            _body_line(pdf, line.strip())
    return bytes(pdf.output())


def main() -> int:
    text = SOURCE.read_text(encoding="utf-8")
    try:
        text.encode("latin-1")
    except UnicodeEncodeError as exc:
        print(f"{SOURCE}: not Latin-1 encodable (core fonts only): {exc}", file=sys.stderr)
        return 1
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_bytes(render(text))
    print(f"wrote {OUTPUT.relative_to(ROOT.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
