"""Word documents: the styled headings become sections, tables pipe rows, numbered and bulleted
paragraphs list lines; every span the offline pipeline extracts is a slice of the text; a file
that is no readable .docx fails alone, on one line."""

from __future__ import annotations

import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

import pytest

from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.documents import document_kind, identify
from knowledge_assets.ingest.parse import parse_document
from tests.ingest.test_html import FIXTURES, assert_chunks_are_page_slices, assert_the_manual_is_extracted

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_CONTENT_TYPES = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml"
 ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
<Override PartName="/word/styles.xml"
 ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>
<Override PartName="/word/numbering.xml"
 ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/>
</Types>"""
_PACKAGE_RELS = f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="{_R}/officeDocument" Target="word/document.xml"/>
</Relationships>"""
_DOCUMENT_RELS = f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="{_R}/styles" Target="styles.xml"/>
<Relationship Id="rId2" Type="{_R}/numbering" Target="numbering.xml"/>
</Relationships>"""
_STYLES = f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="{_W}">
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style>
</w:styles>"""
# numId 1 is a bulleted list, numId 2 a numbered one.
_NUMBERING = f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:numbering xmlns:w="{_W}">
<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl>
<w:lvl w:ilvl="1"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>
</w:numbering>"""


def _paragraph(text: str, style: str | None = None, numbering: tuple[int, int] | None = None) -> str:
    properties = f'<w:pStyle w:val="{style}"/>' if style else ""
    if numbering:
        properties += f'<w:numPr><w:ilvl w:val="{numbering[1]}"/><w:numId w:val="{numbering[0]}"/></w:numPr>'
    return f'<w:p><w:pPr>{properties}</w:pPr><w:r><w:t xml:space="preserve">{escape(text)}</w:t></w:r></w:p>'


def _table(rows: list[list[str]]) -> str:
    cells = "".join("<w:tr>" + "".join(f"<w:tc>{_paragraph(cell)}</w:tc>" for cell in row) + "</w:tr>" for row in rows)
    return f"<w:tbl>{cells}</w:tbl>"


def write_docx(path: Path, body: list[str]) -> Path:
    """A minimal WordprocessingML package, as Word writes its parts, without python-docx."""
    document = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="{_W}"><w:body>'
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("[Content_Types].xml", _CONTENT_TYPES)
        package.writestr("_rels/.rels", _PACKAGE_RELS)
        package.writestr("word/_rels/document.xml.rels", _DOCUMENT_RELS)
        package.writestr("word/styles.xml", _STYLES)
        package.writestr("word/numbering.xml", _NUMBERING)
        package.writestr("word/document.xml", document + "".join(body) + "</w:body></w:document>")
    return path


MANUAL = [
    _paragraph("Haul Road Maintenance", "Title"),
    _paragraph("The grader keeps the haul road passable."),
    _paragraph("1. Definitions", "Heading1"),
    _table([["Term", "Definition"],
            ["Cross fall", "The slope of the road surface from its crown to its edge, in percent."],
            ["Windrow", "A berm of loose material left by the grader blade."]]),
    _paragraph("2. Procedure", "Heading1"),
    _paragraph("Rolling resistance (RR) is the force that opposes the motion of a tyre on the road surface. "
               "A soft road raises RR."),
    _paragraph("Inspect the road every shift.", numbering=(1, 0)),
    _paragraph("Ruts deeper than 10 cm first.", numbering=(1, 1)),
    _paragraph("Record the inspection.", numbering=(2, 0)),
    _paragraph("2.1 Grading", "Heading2"),
    _paragraph("# not a heading"),
]

EXPECTED_TEXT = """# Haul Road Maintenance

The grader keeps the haul road passable.

# 1. Definitions

| Term | Definition |
| --- | --- |
| Cross fall | The slope of the road surface from its crown to its edge, in percent. |
| Windrow | A berm of loose material left by the grader blade. |

# 2. Procedure

Rolling resistance (RR) is the force that opposes the motion of a tyre on the road surface. A soft road raises RR.

- Inspect the road every shift.
  - Ruts deeper than 10 cm first.

1. Record the inspection.

## 2.1 Grading

\\# not a heading
"""


def test_docx_files_are_word_documents():
    assert document_kind(Path("x.docx")) == "docx"
    assert document_kind(Path("x.DOCX")) == "docx"


def test_a_word_document_chunks_verbatim_under_its_styled_headings(tmp_path):
    parsed = parse_document(identify(write_docx(tmp_path / "manual.docx", MANUAL), "DOCX-1"))
    assert parsed.parser == "docx" and parsed.pages[0].text == EXPECTED_TEXT
    assert [(chunk.heading_path, chunk.section_no) for chunk in parsed.chunks] == [
        (["Haul Road Maintenance"], None),
        (["1. Definitions"], "1"),
        (["2. Procedure"], "2"),
        (["2. Procedure", "2.1 Grading"], "2.1"),
    ]
    assert_chunks_are_page_slices(parsed)


def test_a_glossary_table_row_and_an_is_sentence_are_extracted_verbatim_offline(tmp_path):
    assert_the_manual_is_extracted(tmp_path, write_docx(tmp_path / "manual.docx", MANUAL))


def _truncated(path: Path) -> bytes:
    data = write_docx(path, MANUAL).read_bytes()
    return data[: len(data) // 2]


def _without_document(path: Path) -> bytes:
    with zipfile.ZipFile(path, "w") as package:
        package.writestr("[Content_Types].xml", _CONTENT_TYPES)
    return path.read_bytes()


@pytest.mark.parametrize(("make", "cause"), [
    (lambda path: b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 8, r"not a Word document, or a truncated one"),
    (lambda path: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504), r"encrypted or legacy Word file \(an OLE compound"),
    (_truncated, r"not a Word document, or a truncated one \(no zip package\)$"),
    (_without_document, r"not a Word document \(the package has no word/document\.xml\)$"),
    (lambda path: write_docx(path, []).read_bytes(), r"no text found in the document$"),
])
def test_a_bad_word_file_is_one_line_naming_the_file_and_the_cause(tmp_path, make, cause):
    path = tmp_path / "notes.docx"
    data = make(path)
    path.write_bytes(data)
    with pytest.raises(DocumentError, match=r"notes\.docx: " + cause) as raised:
        parse_document(identify(path))
    assert "\n" not in str(raised.value)


def test_a_real_public_word_document_parses_into_a_section(tmp_path):
    parsed = parse_document(identify(FIXTURES / "par-known-styles.docx"))
    assert "Body Text" in parsed.pages[0].text
    assert [chunk.heading_path for chunk in parsed.chunks if chunk.heading_path] == [["Heading 1"]]
    assert_chunks_are_page_slices(parsed)
