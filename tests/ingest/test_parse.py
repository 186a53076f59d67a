"""The parse entry point refuses text input carrying NUL bytes, naming the file and the place."""

import pytest

from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.parse import parse_document


# Only plain text separates pages with form feeds.
@pytest.mark.parametrize(("name", "page"), [("notes.txt", 2), ("notes.md", 1), ("notes.rst", 1)])
def test_a_nul_byte_in_text_input_is_refused_with_its_page_and_offset(tmp_path, name, page):
    path = tmp_path / name
    path.write_bytes(b"1. Scope\nPlain text.\f2. Terms\nA\x00B\n")
    with pytest.raises(DocumentError) as raised:
        parse_document(identify(path, "NUL-1"))
    message = str(raised.value)
    assert message.startswith(str(path)) and f"NUL byte (page {page}, character" in message


def test_text_without_nul_bytes_still_parses(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("1. Scope\nPlain text.\n", encoding="utf-8")
    assert parse_document(identify(path, "NUL-2")).chunks
