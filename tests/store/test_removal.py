"""Removing a document: its rows (tests/test_documents_commands.py over a real run) and the review
pages' images of it, which another document's stay beside."""

from __future__ import annotations

from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.removal import remove_document_rows, review_page_cache


def test_removing_a_document_drops_its_review_page_images_and_no_other_documents(tmp_path):
    store = DuckDBStore(tmp_path / "knowledge.duckdb")
    store.append("documents", [{"doc_id": "doc-a", "revision": 1, "content_sha256": "a" * 64, "kind": "pdf",
                                "key_source": "path", "source_path": str(tmp_path / "a.pdf"), "file_name": "a.pdf",
                                "registered_at": "2026-12-01 10:00:00"}])
    for doc_id in ("doc-a", "doc-b"):
        folder = review_page_cache(tmp_path, doc_id)
        folder.mkdir(parents=True)
        (folder / "aaaa-1.png").write_bytes(b"png")
    assert remove_document_rows(store, "doc-a", with_decisions=False) == {"documents": 1}
    assert not review_page_cache(tmp_path, "doc-a").exists()
    assert (review_page_cache(tmp_path, "doc-b") / "aaaa-1.png").is_file()


def test_which_decisions_a_batch_took_together_stays_with_the_decisions_unless_they_go_too(tmp_path):
    from knowledge_assets.store.review import append_batch, batch_rows

    store = DuckDBStore(tmp_path / "knowledge.duckdb")
    append_batch(store, "bt_1", "doc-a", ["rv_1", "rv_2"])
    assert remove_document_rows(store, "doc-a", with_decisions=False) == {}
    assert len(batch_rows(store, "doc-a")) == 2  # an undo of the batch still finds its decisions
    assert remove_document_rows(store, "doc-a", with_decisions=True) == {"review_batches": 2}
    assert batch_rows(store, "doc-a") == []
