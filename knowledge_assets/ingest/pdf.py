"""PDF text layers, read with pypdf (BSD-licensed; PyMuPDF's AGPL would bind our users)."""

from __future__ import annotations

import io
import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pypdf
from pypdf.errors import FileNotDecryptedError, PyPdfError

from knowledge_assets.ingest import plain
from knowledge_assets.ingest.blocks import PageBlocks
from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.plain import blocks_from_page_texts

# The text layer's reader and the plain-text structure reading both shape the chunks.
PARSER_VERSION = f"pypdf-{pypdf.__version__}+plain-{plain.PARSER_VERSION}"
NO_TEXT_LAYER = (
    "no extractable text: OCR is not part of this pipeline; parse it with MinerU and ingest "
    "its content_list.json"
)


@contextmanager
def _pypdf_silenced() -> Iterator[None]:
    """pypdf reports what it meets in a damaged file on its own logger and as warnings ("EOF
    marker not found"), which reach stderr beside the one-line DocumentError that already names
    the cause; while it parses, neither gets through. Only here: the level is put back after."""
    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)


def read_page_texts(path: Path) -> list[str]:
    data = path.read_bytes()
    if not data:
        raise DocumentError(path, "empty file (0 bytes)")
    if not data.lstrip()[:5] == b"%PDF-":
        raise DocumentError(path, "not a PDF file (no %PDF- header)")
    try:
        with _pypdf_silenced():
            reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
            if reader.is_encrypted and not reader.decrypt(""):
                raise FileNotDecryptedError("password required")
            texts = [page.extract_text() or "" for page in reader.pages]
    except FileNotDecryptedError:
        raise DocumentError(
            path, "encrypted PDF: a password is required to read it; decrypt it and ingest again"
        ) from None
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError) as exc:
        # pypdf signals damaged files with its own errors and, deeper in the object parser,
        # with built-in ones; all of them mean the same thing to the user.
        raise DocumentError(path, f"corrupt or truncated PDF ({type(exc).__name__}: {exc})") from None
    if not texts:
        raise DocumentError(path, "corrupt or truncated PDF (no pages)")
    if not any(text.strip() for text in texts):
        raise DocumentError(path, NO_TEXT_LAYER)
    return texts


def parse_pdf(path: Path) -> list[PageBlocks]:
    return blocks_from_page_texts(read_page_texts(path))
