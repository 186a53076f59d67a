"""A step's documents written together (store/step_writes.py), on a real DuckDB file: what
waits is written in one transaction per shape, never missed by a read, in the callers' order,
and a document whose own rows cannot be written fails alone."""

import duckdb
import pytest

from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.rows import each_row
from knowledge_assets.store.step_writes import StepWrites, reading_one_document


class _Counted(DuckDBStore):
    """The DuckDB store, counting the transactions its replacements take."""

    transactions = 0

    def replace_partitions(self, *args, **kwargs):
        self.transactions += 1
        super().replace_partitions(*args, **kwargs)


@pytest.fixture
def counted(tmp_path):
    return _Counted(tmp_path / "knowledge.duckdb")


def _pages(doc_id, n, tag="p"):
    return [{"doc_id": doc_id, "page": i, "page_no": i + 1, "text": f"{doc_id} {tag} {i}"} for i in range(n)]


def _rejected(doc_id, branch, n):
    return [{"doc_id": doc_id, "branch": branch, "entry_term": f"{branch}{i}", "field": "definition",
             "offending_value": "v", "reason": "r"} for i in range(n)]


def _all(store, table):
    return store.fetch(f"SELECT * FROM {table} ORDER BY ALL")


def test_documents_written_in_turn_wait_and_land_together_as_written_one_by_one(counted, tmp_path):
    writes = StepWrites(counted)
    for doc_id in ("A", "B", "C"):
        writes.replace_partition(doc_id, {"parsed_pages": _pages(doc_id, 2)})
    assert counted.transactions == 0
    assert counted.fetch("SELECT count(*) AS n FROM parsed_pages") == [{"n": 0}]

    writes.write_waiting()

    assert counted.transactions == 1
    one_by_one = DuckDBStore(tmp_path / "one_by_one.duckdb")
    for doc_id in ("A", "B", "C"):
        one_by_one.replace_partition(doc_id, {"parsed_pages": _pages(doc_id, 2)})
    assert _all(counted, "parsed_pages") == _all(one_by_one, "parsed_pages")


def test_a_read_naming_a_waiting_table_sees_every_write_and_another_read_leaves_them_waiting(counted):
    writes = StepWrites(counted)
    writes.replace_partition("A", {"parsed_pages": _pages("A", 2)})
    writes.replace_partition("B", {"parsed_pages": _pages("B", 1)})

    assert writes.fetch("SELECT count(*) AS n FROM parsed_chunks") == [{"n": 0}]
    assert counted.transactions == 0  # nothing waiting was read
    # A read on a connection it gives, as `each_row` reads, names the table: both are written first.
    assert [r["doc_id"] for r in each_row(writes, "SELECT doc_id FROM parsed_pages ORDER BY doc_id, page", [])] \
        == ["A", "A", "B"]
    assert counted.transactions == 1


def test_a_read_of_one_document_writes_what_waits_only_when_that_document_waits(counted):
    writes = StepWrites(counted)
    writes.replace_partition("A", {"parsed_pages": _pages("A", 2)})
    sql = "SELECT count(*) AS n FROM parsed_pages WHERE doc_id = ?"

    with reading_one_document(writes, "B"):
        assert writes.fetch(sql, ["B"]) == [{"n": 0}]
    assert counted.transactions == 0
    with reading_one_document(writes, "A"):
        assert writes.fetch(sql, ["A"]) == [{"n": 2}]
    assert counted.transactions == 1


def test_a_document_written_twice_in_a_step_keeps_its_second_write(counted):
    writes = StepWrites(counted)
    writes.replace_partition("A", {"parsed_pages": _pages("A", 3)})
    writes.replace_partition("B", {"parsed_pages": _pages("B", 1)})
    writes.replace_partition("A", {"parsed_pages": _pages("A", 1, tag="again")})
    writes.write_waiting()
    assert [(r["doc_id"], r["text"]) for r in _all(counted, "parsed_pages")] == [("A", "A again 0"), ("B", "B p 0")]


def test_writes_of_two_scopes_of_one_table_keep_their_order(counted, tmp_path):
    rule = {"rejected_fields": {"branch": "rule"}}
    calls = [
        ("B", {"rejected_fields": _rejected("B", "rule", 2)}, rule),
        ("A", {"rejected_fields": _rejected("A", "glossary", 2) + _rejected("A", "rule", 3)}, None),
        ("A", {"rejected_fields": _rejected("A", "rule", 1)}, rule),
    ]
    writes = StepWrites(counted)
    one_by_one = DuckDBStore(tmp_path / "one_by_one.duckdb")
    for doc_id, rows, scope in calls:
        writes.replace_partition(doc_id, rows, scope)
        one_by_one.replace_partition(doc_id, rows, scope)
    writes.write_waiting()
    assert _all(counted, "rejected_fields") == _all(one_by_one, "rejected_fields")
    assert len(_all(counted, "rejected_fields")) == 5


def test_a_write_past_the_limit_goes_as_it_came_after_what_waits_its_rows_drawn_in_order(counted):
    writes = StepWrites(counted, waiting_rows=5)
    writes.replace_partition("A", {"parsed_pages": _pages("A", 2)})
    drawn = []

    def pages():
        for row in _pages("B", 8):
            drawn.append(row["page"])
            yield row

    def header():  # counts the pages drawn before it, as `write_parsed`'s header does
        yield {"doc_id": "B", "page": 99, "page_no": len(drawn), "text": "header"}

    writes.replace_partition("B", {"parsed_pages": pages(), "parsed_chunks": []},
                             appends={"parsed_pages": header()})

    assert counted.transactions == 2  # A's waiting write, then B's own
    found = counted.fetch("SELECT doc_id, page, page_no FROM parsed_pages ORDER BY doc_id, page")
    assert [r["doc_id"] for r in found] == ["A"] * 2 + ["B"] * 9
    assert found[-1] == {"doc_id": "B", "page": 99, "page_no": 8}


def test_a_document_whose_rows_cannot_be_written_fails_alone(counted):
    writes = StepWrites(counted)
    writes.replace_partition("A", {"parsed_pages": _pages("A", 1)})
    bad = _pages("B", 1)
    bad[0]["page_no"] = "not a number"
    writes.replace_partition("B", {"parsed_pages": bad})
    writes.replace_partition("C", {"parsed_pages": _pages("C", 1)})

    writes.write_waiting()

    assert list(writes.failures) == ["B"]
    assert [r["doc_id"] for r in _all(counted, "parsed_pages")] == ["A", "C"]


def test_a_released_session_writes_what_waits_first_and_writes_inside_go_straight_through(tmp_path):
    store = _Counted(tmp_path / "knowledge.duckdb")
    with store.session():
        writes = StepWrites(store)
        writes.replace_partition("A", {"parsed_pages": _pages("A", 1)})
        with writes.released():
            assert store.transactions == 1
            writes.replace_partition("B", {"parsed_pages": _pages("B", 1)})
            assert store.transactions == 2
        assert [r["doc_id"] for r in _all(store, "parsed_pages")] == ["A", "B"]


def test_a_write_inside_a_transaction_goes_to_the_store_at_once_as_the_stores_own_would(counted):
    writes = StepWrites(counted)
    with writes.session():  # a transaction's operations share the session's connection
        writes.replace_partition("A", {"parsed_pages": _pages("A", 1)})
        with writes.transaction():
            assert counted.transactions == 1  # what waited is written before the transaction
            # DuckDB refuses a replacement inside a transaction (PostgreSQL makes it a
            # savepoint): the write meets it inside the block, never later outside it.
            with pytest.raises(duckdb.TransactionException):
                writes.replace_partition("B", {"parsed_pages": _pages("B", 1)})
        writes.write_waiting()
    assert [r["doc_id"] for r in _all(counted, "parsed_pages")] == ["A"]


def test_a_session_taken_on_it_writes_through_it(tmp_path):
    writes = StepWrites(_Counted(tmp_path / "knowledge.duckdb"))
    with writes.session() as held:
        held.replace_partition("A", {"parsed_pages": _pages("A", 1)})
        assert held.fetch("SELECT count(*) AS n FROM parsed_pages") == [{"n": 1}]


def test_a_write_of_more_text_than_may_wait_goes_as_it_came(counted):
    writes = StepWrites(counted, waiting_chars=1_000)
    writes.replace_partition("A", {"parsed_pages": _pages("A", 1)})
    long_pages = [{**row, "text": "x" * 400} for row in _pages("B", 3)]
    writes.replace_partition("B", {"parsed_pages": iter(long_pages)})
    assert counted.transactions == 2
    assert [r["doc_id"] for r in _all(counted, "parsed_pages")] == ["A", "B", "B", "B"]
