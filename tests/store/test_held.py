"""A store held on one connection for a block (a review request), and `Store.transaction()`."""

import threading

import pytest

from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.held import CACHED_PAGES_LIMIT_BYTES, drop_cached_pages, held_on_one_connection


def _page(doc_id, page):
    return {"doc_id": doc_id, "page": page, "page_no": page + 1, "text": f"{doc_id} page {page}"}


def _pages(store):
    rows = store.fetch("SELECT doc_id, page FROM parsed_pages ORDER BY doc_id, page")
    return [(row["doc_id"], row["page"]) for row in rows]


def test_a_transaction_on_a_held_store_keeps_all_its_writes_or_none(tmp_path):
    store = DuckDBStore(tmp_path / "k.duckdb")
    with held_on_one_connection(store) as held, held.transaction():
        held.append("parsed_pages", [_page("A", 0)])
        held.append("parsed_pages", [_page("A", 1)])
    with pytest.raises(RuntimeError), held_on_one_connection(store) as held, held.transaction():
        held.append("parsed_pages", [_page("B", 0)])
        raise RuntimeError("the second write of the batch failed")
    assert _pages(store) == [("A", 0), ("A", 1)]


def test_a_transaction_inside_a_session_rolls_back_on_any_exception(tmp_path):
    store = DuckDBStore(tmp_path / "k.duckdb")
    with pytest.raises(KeyboardInterrupt), store.session(), store.transaction():
        store.append("parsed_pages", [_page("A", 0)])
        raise KeyboardInterrupt
    with store.session(), store.transaction():
        store.append("parsed_pages", [_page("B", 0)])
    assert _pages(store) == [("B", 0)]


def test_a_held_store_is_the_blocks_own_connection_not_the_processs(tmp_path):
    # Two requests on two threads each hold their own connection: neither joins the other's
    # open transaction, and a session's process-wide connection is not taken.
    store = DuckDBStore(tmp_path / "k.duckdb")
    inside, release = threading.Event(), threading.Event()

    def first_request():
        with held_on_one_connection(store) as held, held.transaction():
            held.append("parsed_pages", [_page("A", 0)])
            inside.set()
            release.wait(10)

    worker = threading.Thread(target=first_request)
    worker.start()
    assert inside.wait(10)
    with held_on_one_connection(store) as other:
        assert _pages(other) == []  # the first request's write is not committed yet
        other.append("parsed_pages", [_page("B", 0)])
    release.set()
    worker.join(10)
    assert _pages(store) == [("A", 0), ("B", 0)]
    with held_on_one_connection(store) as held:
        assert type(held) is DuckDBStore and held.path == store.path


def _duckdb_bytes(store):
    return store.fetch("SELECT sum(memory_usage_bytes) AS used FROM duckdb_memory()")[0]["used"]


def test_dropping_a_sessions_cached_pages_frees_what_it_wrote_and_keeps_the_rows(tmp_path):
    store = DuckDBStore(tmp_path / "k.duckdb")
    long_page = "word " * 20_000
    with store.session():
        store.append("parsed_pages", ({**_page("A", page), "text": f"{page} {long_page}"} for page in range(100)))
        written = _duckdb_bytes(store)
        assert store.cached_page_bytes() == written > 0
        assert drop_cached_pages(store, limit_bytes=written) is True
        assert _duckdb_bytes(store) < written / 10
        assert len(_pages(store)) == 100  # the session goes on, on a connection of its own
    assert drop_cached_pages(store, limit_bytes=0) is False  # outside a session there is nothing to drop
    assert len(_pages(store)) == 100


def test_a_session_keeps_its_connection_while_it_has_cached_less_than_the_limit(tmp_path):
    # A small document's stage caches well under the limit: its connection stays open, so a
    # folder run of small documents does not close and reopen the file after each (D78).
    store = DuckDBStore(tmp_path / "k.duckdb")
    with store.session():
        store.append("parsed_pages", [_page("A", 0)])
        with store.connect() as before:
            pass
        cached = store.cached_page_bytes()
        assert 0 < cached < CACHED_PAGES_LIMIT_BYTES
        assert drop_cached_pages(store) is False
        assert drop_cached_pages(store, limit_bytes=cached + 1) is False
        with store.connect() as after:
            assert after is before
        assert drop_cached_pages(store, limit_bytes=cached) is True
        with store.connect() as reopened:
            assert reopened is not before
        assert _pages(store) == [("A", 0)]
