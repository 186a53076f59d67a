"""Word documents (.docx), read with mammoth, which turns the document's structure into plain
HTML: a paragraph styled `Heading 1`–`Heading 6` (or `Title`) an `<h1>`–`<h6>`, a numbered or
bulleted paragraph a list item nested by its level, a table a table. That HTML is then read as
a web page is (ingest/html.py), so both formats come out as the same Markdown text, the text
every span is a slice of (docs/decisions.md D87). Headers, footers and comments are not read.
"""

from __future__ import annotations

import io
import zipfile
from importlib.metadata import version
from pathlib import Path
from xml.parsers.expat import ExpatError

import mammoth

from knowledge_assets.ingest import html
from knowledge_assets.ingest.blocks import PageBlocks
from knowledge_assets.ingest.document_error import DocumentError

# mammoth's conversion and the page reading both shape the chunks.
PARSER_VERSION = f"mammoth-{version('mammoth')}+{html.PARSER_VERSION}"

# Word's own title style opens the document as a top-level heading; mammoth's defaults map
# only the numbered heading styles.
_STYLE_MAP = "p[style-name='Title'] => h1:fresh"
# A password-protected .docx is no zip: Word stores it encrypted inside an OLE compound file,
# the container of the old binary .doc as well.
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_DOCUMENT_PART = "word/document.xml"


def _package(data: bytes, path: Path) -> zipfile.ZipFile:
    if data.startswith(_OLE_MAGIC):
        raise DocumentError(
            path,
            "encrypted or legacy Word file (an OLE compound file, not a .docx package): remove its "
            "password, or save it as .docx, and ingest it again",
        )
    try:
        package = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise DocumentError(path, "not a Word document, or a truncated one (no zip package)") from None
    if _DOCUMENT_PART not in package.namelist():
        raise DocumentError(path, f"not a Word document (the package has no {_DOCUMENT_PART})")
    return package


def html_from_docx(path: Path) -> str:
    data = path.read_bytes()
    _package(data, path)
    try:
        return mammoth.convert_to_html(io.BytesIO(data), style_map=_STYLE_MAP).value
    except (zipfile.BadZipFile, ExpatError, KeyError, ValueError, EOFError, zipfile.LargeZipFile) as exc:
        # A damaged part surfaces as the zip reader's or the XML parser's error.
        raise DocumentError(path, f"corrupt Word document ({type(exc).__name__}: {exc})") from None


def parse_docx(path: Path) -> list[PageBlocks]:
    return html.blocks_from_html(html_from_docx(path), path)
