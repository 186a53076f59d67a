"""A document whose run failed, in the review app (issue 30): one line on the documents page,
naming it and why, linked to its own page, which says when it failed and how to run it again
or remove it; the pages of the other documents say nothing of it."""

from __future__ import annotations

import re
from datetime import datetime
from html import unescape

import pytest
from starlette.testclient import TestClient

from knowledge_assets.ingest.documents import identify
from knowledge_assets.review.document_queues import RunState
from knowledge_assets.review.web.app import create_app
from knowledge_assets.store.registry import register
from tests.review.conftest import KPI, PRM

CAUSE = "PdfiumError: Failed to load document (PDFium: Data format error)."
FAILED_AT = datetime(2024, 5, 1, 12, 30)


def text_of(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def element(html: str, element_id: str) -> str | None:
    """The text of the element with that id (the first closing tag of its kind ends it)."""
    found = re.search(rf'<(\w+)[^>]*\bid="{element_id}"[^>]*>(.*?)</\1>', html, re.S)
    return text_of(found.group(2)) if found else None


@pytest.fixture
def broken(extracted, tmp_path):
    """Two registered documents whose runs failed, the review app over them and the others."""
    doc_ids = {}
    for name in ("broken_standard.pdf", "broken_notes.md"):
        path = tmp_path / name
        path.write_bytes(b"%PDF-1.4\nthis is not a PDF body\n" if name.endswith(".pdf") else b"\xff\xfe\x00broken")
        doc_ids[name] = register(extracted, identify(path)).source.doc_id
    failed = set(doc_ids.values())

    def states(asked):
        return {doc_id: RunState("failed", CAUSE, FAILED_AT) for doc_id in asked if doc_id in failed}

    client = TestClient(create_app(extracted.path, document_states=states), base_url="http://127.0.0.1")
    return client, doc_ids, tmp_path


def test_the_failed_documents_are_one_line_on_the_documents_page_each_linked_to_its_page(broken):
    client, doc_ids, _ = broken
    page = client.get("/")
    assert page.status_code == 200
    pdf, md = doc_ids["broken_standard.pdf"], doc_ids["broken_notes.md"]
    first, second = sorted(doc_ids.items(), key=lambda item: item[1])  # the documents page's order
    assert element(page.text, "failed-documents") == (
        f"2 failed: {first[0]} — {CAUSE}; {second[0]} — {CAUSE}")
    line = re.search(r'id="failed-documents".*?</p>', page.text, re.S).group(0)
    assert re.findall(r'href="([^"]+)"', line) == [f"/documents/{first[1]}", f"/documents/{second[1]}"]
    # Nothing else on the page tells their story again: no long banner naming them.
    assert "Not current" not in page.text and element(page.text, "not-current") is None
    assert {pdf, md} <= set(re.findall(r'data-doc-id="([^"]+)"', page.text))


@pytest.mark.parametrize("path", [f"/documents/{PRM}", f"/documents/{KPI}"])
def test_the_other_documents_pages_say_nothing_of_the_failed_documents(broken, path):
    client, doc_ids, _ = broken
    page = client.get(path)
    assert page.status_code == 200
    assert element(page.text, "failed-documents") is None and element(page.text, "not-current") is None
    assert not any(doc_id in page.text or name in page.text for name, doc_id in doc_ids.items())


def test_a_failed_document_has_a_page_saying_why_when_and_how_to_run_it_again_or_remove_it(broken):
    client, doc_ids, folder = broken
    doc_id = doc_ids["broken_standard.pdf"]
    page = client.get(f"/documents/{doc_id}")
    assert page.status_code == 200
    assert re.search(r"<title>(.*?)</title>", page.text).group(1) == "broken_standard.pdf · knowledge review"
    assert element(page.text, "failure") == f"Its run failed at 2024-05-01 12:30 UTC: {CAUSE}"
    assert element(page.text, "run-command") == f"knowledge-assets run {folder / 'broken_standard.pdf'}"
    assert element(page.text, "remove-command") == f"knowledge-assets documents remove {doc_id}"
    assert str(folder / "broken_standard.pdf") in text_of(page.text)
    assert element(page.text, "failed-documents") is None  # the page explains it; no banner repeats it


def test_a_document_the_store_does_not_know_is_still_404(broken):
    client, _, _ = broken
    page = client.get("/documents/NO-SUCH-DOC")
    assert page.status_code == 404 and "<title>Not found" in page.text
