"""The DuckDB store: partition replacement, atomicity, nested columns, and two writers."""

import json
import subprocess
import sys
import textwrap
import time
from datetime import datetime

import duckdb
import pytest

from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.parse import parse_document
from knowledge_assets.store import database
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.parsed import load_chunks, load_parsed, write_parsed
from knowledge_assets.store.protocol import StoreError
from knowledge_assets.store.review import append_batch, batch_rows, decision_rows
from knowledge_assets.store.schema import TABLES
from tests.conftest import PROJECT_ROOT, SAMPLE_MARKDOWN


def _write(store, parsed):
    write_parsed(store, parsed.model_dump(exclude={"pages", "chunks"}), parsed.pages, parsed.chunks)


def _page_rows(doc_id, n):
    return [{"doc_id": doc_id, "page": i, "page_no": i + 1, "text": f"{doc_id} page {i}"} for i in range(n)]


def test_replacing_a_partition_touches_only_that_documents_rows(store):
    store.replace_partition("A", {"parsed_pages": _page_rows("A", 3)})
    store.replace_partition("B", {"parsed_pages": _page_rows("B", 2)})
    store.replace_partition("A", {"parsed_pages": _page_rows("A", 1)})
    counts = store.fetch("SELECT doc_id, count(*) AS n FROM parsed_pages GROUP BY doc_id ORDER BY doc_id")
    assert counts == [{"doc_id": "A", "n": 1}, {"doc_id": "B", "n": 2}]


def test_a_failure_mid_write_leaves_the_previous_version_intact(store):
    store.replace_partition("A", {"parsed_pages": _page_rows("A", 3)})
    bad_chunk = {"doc_id": "A", "chunk_id": "A::0000", "seq": 0, "page": 0, "page_no": 1, "section_no": None,
                 "heading_path": [], "text": None, "latex": None, "char_start": 0, "char_end": 0}
    with pytest.raises(duckdb.Error):  # text is NOT NULL: the second table's insert fails
        store.replace_partition("A", {"parsed_pages": _page_rows("A", 1), "parsed_chunks": [bad_chunk]})
    assert len(store.fetch("SELECT * FROM parsed_pages WHERE doc_id = ?", ["A"])) == 3


def test_rows_given_as_a_generator_are_inserted_a_batch_at_a_time_in_one_transaction(store, monkeypatch):
    monkeypatch.setattr(database, "_INSERT_BATCH_ROWS", 2)
    store.replace_partition("A", {"parsed_pages": (row for row in _page_rows("A", 5))})
    assert [r["text"] for r in store.fetch("SELECT text FROM parsed_pages WHERE doc_id = 'A' ORDER BY page")] == [
        f"A page {i}" for i in range(5)]
    broken = [*_page_rows("A", 4), {"doc_id": "A", "page": 4, "text": "no page_no"}]
    with pytest.raises(StoreError, match="parsed_pages"):  # refused in the third batch
        store.replace_partition("A", {"parsed_pages": iter(broken)})
    assert len(store.fetch("SELECT * FROM parsed_pages WHERE doc_id = ?", ["A"])) == 5


@pytest.mark.parametrize("values_max_rows", [0, 10_000])
def test_a_few_rows_as_a_values_list_reach_the_table_as_registered_columns_write_them(
        store, monkeypatch, values_max_rows):
    # One document's rows through registered columns (0: no batch is small enough for a VALUES
    # list) and through VALUES lists (every batch is): nested lists, NULLs and numbers read back alike.
    parsed = parse_document(identify(SAMPLE_MARKDOWN))
    monkeypatch.setattr(database, "_VALUES_MAX_ROWS", values_max_rows)
    _write(store, parsed)
    assert load_parsed(store, parsed.doc_id) == parsed
    rows = [{"doc_id": "A", "page": 0, "page_no": 3, "text": "x"}, {"doc_id": "A", "page": 1, "page_no": 7, "text": ""}]
    store.replace_partition("A", {"parsed_pages": rows})
    assert store.fetch("SELECT * FROM parsed_pages WHERE doc_id = 'A' ORDER BY page") == rows


def test_rows_with_missing_or_extra_columns_are_refused(store):
    with pytest.raises(StoreError, match="parsed_pages"):
        store.replace_partition("A", {"parsed_pages": [{"doc_id": "A", "page": 0, "text": "x"}]})


def test_parsed_document_round_trips_with_real_list_columns(store):
    parsed = parse_document(identify(SAMPLE_MARKDOWN))
    _write(store, parsed)
    assert load_parsed(store, parsed.doc_id) == parsed


def test_chunks_read_alone_and_across_batches_are_the_documents_chunks_in_order(store, monkeypatch):
    parsed = parse_document(identify(SAMPLE_MARKDOWN))
    _write(store, parsed)
    monkeypatch.setattr("knowledge_assets.store.rows._FETCH_BATCH_ROWS", 2)  # the sample's chunks span several fetches
    assert len(parsed.chunks) > 2
    assert load_chunks(store, parsed.doc_id) == parsed.chunks
    assert load_parsed(store, parsed.doc_id) == parsed
    assert load_chunks(store, "never-parsed") is None
    rows = store.fetch(
        "SELECT heading_path[len(heading_path)] AS last FROM parsed_chunks WHERE doc_id = ? AND section_no = '3.2'",
        [parsed.doc_id],
    )
    assert rows == [{"last": "3.2. Mean Time To Repair (MTTR)"}]


def test_a_store_written_with_another_schema_is_refused_clearly(tmp_path):
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE parsed_pages (doc_id VARCHAR, body VARCHAR)")
    con.close()
    with pytest.raises(StoreError, match="table parsed_pages has columns"):
        DuckDBStore(path).fetch("SELECT 1")


WRITER = textwrap.dedent(
    """
    import sys
    from knowledge_assets.store.database import DuckDBStore
    store, doc_id = DuckDBStore(sys.argv[1]), sys.argv[2]
    for round_ in range(25):
        rows = [{"doc_id": doc_id, "page": i, "page_no": i + 1, "text": f"{doc_id} {round_}"} for i in range(40)]
        store.replace_partition(doc_id, {"parsed_pages": rows})
    """
)


def test_two_processes_writing_different_partitions_lose_nothing(tmp_path):
    db = tmp_path / "shared.duckdb"
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(db), doc_id], cwd=PROJECT_ROOT,
                         stderr=subprocess.PIPE, text=True)
        for doc_id in ("DOC-A", "DOC-B")
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=300)
        assert writer.returncode == 0, err
    rows = DuckDBStore(db).fetch("SELECT doc_id, count(*) AS n, min(text) AS t FROM parsed_pages "
                           "GROUP BY doc_id ORDER BY doc_id")
    assert rows == [{"doc_id": "DOC-A", "n": 40, "t": "DOC-A 24"}, {"doc_id": "DOC-B", "n": 40, "t": "DOC-B 24"}]


def test_a_writer_waits_for_another_processes_lock(tmp_path):
    db = tmp_path / "locked.duckdb"
    DuckDBStore(db).fetch("SELECT 1")
    holder = subprocess.Popen(
        [sys.executable, "-c",
         f"import duckdb, time; c = duckdb.connect({str(db)!r}); print('held', flush=True); time.sleep(1.5)"],
        stdout=subprocess.PIPE, text=True,
    )
    assert holder.stdout.readline().strip() == "held"
    DuckDBStore(db).replace_partition("A", {"parsed_pages": _page_rows("A", 1)})  # blocks until released
    holder.wait(timeout=30)
    assert len(DuckDBStore(db).fetch("SELECT * FROM parsed_pages")) == 1


def test_a_lock_held_past_the_timeout_is_reported_not_hung(tmp_path):
    db = tmp_path / "stuck.duckdb"
    DuckDBStore(db).fetch("SELECT 1")
    holder = subprocess.Popen(
        [sys.executable, "-c",
         f"import duckdb, time; c = duckdb.connect({str(db)!r}); print('held', flush=True); time.sleep(20)"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(StoreError, match="another process may hold it"):
            DuckDBStore(db, lock_timeout_s=0.5).fetch("SELECT 1")
    finally:
        holder.kill()


def test_a_scoped_replacement_leaves_the_other_scopes_rows(store):
    def rows(branch, n):
        return [{"doc_id": "A", "branch": branch, "entry_term": f"t{i}", "field": "definition",
                 "offending_value": "v", "reason": "r"} for i in range(n)]

    store.replace_partition("A", {"rejected_fields": rows("glossary", 2) + rows("rule", 3)})
    store.replace_partition("A", {"rejected_fields": rows("rule", 1)}, scope={"rejected_fields": {"branch": "rule"}})
    counts = store.fetch("SELECT branch, count(*) AS n FROM rejected_fields GROUP BY branch ORDER BY branch")
    assert counts == [{"branch": "glossary", "n": 2}, {"branch": "rule", "n": 1}]


_AWKWARD = 'a "quoted" \\ back\nslash, é, 数, {"json": [1]}'


def _split_fields(body):
    """`a VARCHAR, b STRUCT(x INTEGER)` -> [("a", "VARCHAR"), ("b", "STRUCT(x INTEGER)")]."""
    fields, depth, start = [], 0, 0
    for i, char in enumerate(body + ","):
        depth += char == "("
        depth -= char == ")"
        if char == "," and depth == 0:
            name, sql_type = body[start:i].strip().split(" ", 1)
            fields.append((name, sql_type))
            start = i + 1
    return fields


def _value(sql_type, seed, nulls):
    """A value of the declared type; `nulls` puts None wherever the type allows it."""
    if sql_type.endswith("[]"):
        element = sql_type[:-2]
        return [] if seed % 2 else [_value(element, seed + k, nulls) for k in range(2)]
    if sql_type.startswith("STRUCT("):
        return {name: _value(t, seed, nulls) for name, t in _split_fields(sql_type[len("STRUCT("):-1])}
    if nulls:
        return None
    return {
        "VARCHAR": f"{_AWKWARD} {seed}",
        "INTEGER": -seed if seed % 3 else 2**31 - 1,
        "DOUBLE": seed / 7,
        "BOOLEAN": bool(seed % 2),
        "TIMESTAMP": datetime(2026, 12, 1, 9, 30, seed % 60, 123456),
        "JSON": json.dumps({"k": _AWKWARD, "n": [seed, None]}, ensure_ascii=False),
    }[sql_type]


def _row(columns, seed, nulls):
    row = {}
    for column, sql_type in columns.items():
        required = sql_type.endswith(" NOT NULL")
        row[column] = _value(sql_type.removesuffix(" NOT NULL"), seed, nulls and not required)
    return row


@pytest.mark.parametrize("table", list(TABLES))
def test_every_table_round_trips_nested_values_and_nulls(store, table):
    columns = TABLES[table]
    rows = [_row(columns, seed, nulls=seed % 2 == 1) for seed in range(1, 7)]
    if "doc_id" in columns:
        rows = [row | {"doc_id": "A"} for row in rows]
        store.replace_partition("A", {table: rows})
    else:
        store.append(table, rows)
    names = ", ".join(f'"{c}"' for c in columns)
    stored = store.fetch(f'SELECT {names} FROM "{table}"')
    assert sorted(stored, key=repr) == sorted(rows, key=repr)


def test_appends_of_every_kind_land_in_the_partitions_transaction(store):
    usage = _row(TABLES["llm_usage"], 3, nulls=False) | {"doc_id": "A"}
    store.replace_partition("A", {"parsed_pages": _page_rows("A", 2)}, appends={"llm_usage": [usage, usage]})
    store.append("llm_usage", [usage])
    assert store.fetch("SELECT count(*) AS n FROM llm_usage") == [{"n": 3}]
    assert store.fetch('SELECT "latency_s" FROM llm_usage LIMIT 1') == [{"latency_s": usage["latency_s"]}]


SESSION_HOLDER = textwrap.dedent(
    """
    import sys, time
    from knowledge_assets.store.database import DuckDBStore
    store = DuckDBStore(sys.argv[1])
    with store.session():
        store.replace_partition("HOLDER",
                                {"parsed_pages": [{"doc_id": "HOLDER", "page": 0, "page_no": 1, "text": "x"}]})
        print("held", flush=True)
        time.sleep(1.5)
        store.fetch("SELECT 1")
    """
)


def test_a_session_keeps_the_file_until_it_ends_and_another_process_waits_it_out(tmp_path):
    db = tmp_path / "session.duckdb"
    holder = subprocess.Popen([sys.executable, "-c", SESSION_HOLDER, str(db)], cwd=PROJECT_ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held", holder.stderr.read()
    with pytest.raises(StoreError, match="another process may hold it"):
        DuckDBStore(db, lock_timeout_s=0.2).fetch("SELECT 1")
    DuckDBStore(db).replace_partition("A", {"parsed_pages": _page_rows("A", 1)})  # waits for the session's end
    assert holder.wait(timeout=60) == 0, holder.stderr.read()
    assert DuckDBStore(db).fetch("SELECT doc_id FROM parsed_pages ORDER BY doc_id") == [{"doc_id": "A"},
                                                                                      {"doc_id": "HOLDER"}]


def test_every_store_of_the_process_shares_the_sessions_connection(tmp_path):
    db = tmp_path / "shared.duckdb"
    with DuckDBStore(db).session():
        with DuckDBStore(db).connect() as first, DuckDBStore(tmp_path / "." / "shared.duckdb").connect() as second:
            assert first is second
        DuckDBStore(db).replace_partition("A", {"parsed_pages": _page_rows("A", 2)})
    with DuckDBStore(db).connect() as after_the_session:
        assert after_the_session is not first
        assert after_the_session.execute("SELECT count(*) FROM parsed_pages").fetchone() == (2,)


def test_a_store_of_an_earlier_version_gains_a_struct_field_and_keeps_its_rows(tmp_path):
    # Provenance gained `pieces` (D56): a store written before keeps its rows, decisions included,
    # and reads the new field as NULL.
    path = tmp_path / "earlier.duckdb"
    DuckDBStore(path).fetch("SELECT 1")
    con = duckdb.connect(str(path))
    con.execute("DROP TABLE glossary")
    old_provenance = ("STRUCT(doc_id VARCHAR, span VARCHAR, page INTEGER, page_no INTEGER, "
                      "section_no VARCHAR, chunk_id VARCHAR)")
    columns = {**TABLES["glossary"], "provenance": old_provenance}
    con.execute("CREATE TABLE glossary (" + ", ".join(f'"{c}" {t}' for c, t in columns.items()) + ")")
    con.execute("INSERT INTO glossary (doc_id, term_id, term, subdomain_tags, mention_count, provenance, "
                "extraction_status, definition_conflict, conflict_variants) VALUES ('A', 't1', 'MTTR', [], 1, "
                "{'doc_id': 'A', 'span': 'MTTR adalah', 'page': 0, 'page_no': 1, 'section_no': NULL, "
                "'chunk_id': 'A::0000'}, 'ok', false, [])")
    con.close()
    rows = DuckDBStore(path).fetch("SELECT term_id, provenance.span AS span, provenance.pieces AS pieces FROM glossary")
    assert rows == [{"term_id": "t1", "span": "MTTR adalah", "pieces": None}]


def test_a_column_whose_type_changed_otherwise_is_refused_naming_both_types(tmp_path):
    path = tmp_path / "other.duckdb"
    DuckDBStore(path).fetch("SELECT 1")
    con = duckdb.connect(str(path))
    con.execute("DROP TABLE glossary")
    columns = {**TABLES["glossary"], "provenance": "STRUCT(doc_id VARCHAR, span INTEGER)"}
    con.execute("CREATE TABLE glossary (" + ", ".join(f'"{c}" {t}' for c, t in columns.items()) + ")")
    con.close()
    with pytest.raises(StoreError, match=r"column glossary\.provenance is STRUCT\(doc_id VARCHAR, span INTEGER\)"):
        DuckDBStore(path).fetch("SELECT 1")


HOLDER = ("import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('held', flush=True); "
          "time.sleep(float(sys.argv[2]))")
WAITER = textwrap.dedent(
    """
    import sys, time
    from knowledge_assets.store.database import DuckDBStore
    DuckDBStore(sys.argv[1]).fetch("SELECT 1")
    print(time.monotonic(), flush=True)
    """
)


def test_a_command_that_waits_says_once_which_process_holds_the_store(tmp_path):
    db = tmp_path / "waited.duckdb"
    DuckDBStore(db).fetch("SELECT 1")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), "5"], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    waiter = subprocess.run([sys.executable, "-c", WAITER, str(db)], cwd=PROJECT_ROOT, capture_output=True,
                            text=True, timeout=120)
    holder.wait(timeout=30)
    assert waiter.returncode == 0, waiter.stderr
    lines = waiter.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"waiting for the store {db}, held by "), lines
    assert f"(PID {holder.pid})" in lines[0]


def test_readers_that_come_after_a_waiting_writer_get_the_store_after_it(tmp_path):
    db = tmp_path / "queued.duckdb"
    DuckDBStore(db).fetch("SELECT 1")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), "2"], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"

    def waiter():
        return subprocess.Popen([sys.executable, "-c", WAITER, str(db)], cwd=PROJECT_ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    writer = waiter()
    queue = tmp_path / "queued.duckdb.queue"
    while not (queue.exists() and _queued(queue, writer.pid)):  # the writer waits at the head
        time.sleep(0.05)
    readers = [waiter() for _ in range(4)]
    opened = [float(process.communicate(timeout=120)[0]) for process in (writer, *readers)]
    holder.wait(timeout=30)
    assert opened[0] < min(opened[1:])


def _queued(queue, pid: int) -> bool:
    return queue.read_text(encoding="utf-8").strip() == str(pid)


def test_a_store_written_before_review_batches_gains_the_table_and_keeps_its_decisions(tmp_path):
    # Batches are recorded beside the decisions (D88): a store of an earlier version has no
    # review_batches table, and opening it adds one, its decisions untouched.
    path = tmp_path / "earlier.duckdb"
    DuckDBStore(path).fetch("SELECT 1")
    con = duckdb.connect(str(path))
    con.execute("DROP TABLE review_batches")
    decision = _row(TABLES["knowledge_reviews"], 1, nulls=False) | {"doc_id": "A", "review_id": "rv_1"}
    con.execute("INSERT INTO knowledge_reviews VALUES (" + ", ".join("?" * len(decision)) + ")",
                list(decision.values()))
    con.close()
    reopened = DuckDBStore(path)
    assert [row["review_id"] for row in decision_rows(reopened, "A")] == ["rv_1"]
    assert batch_rows(reopened, "A") == []
    append_batch(reopened, "bt_1", "A", ["rv_1"])
    assert batch_rows(reopened, "A") == [{"batch_id": "bt_1", "review_id": "rv_1"}]
