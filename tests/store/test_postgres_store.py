"""The shared store on a real PostgreSQL server: values read back exactly as DuckDB's, a
document's replace all or nothing (a writer killed mid-write included), locks not had in time
as one line, and the URL's password in no message."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import textwrap
import time
from datetime import datetime

import pytest

from knowledge_assets.store.backends import open_store
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.knowledge import stored_rows
from knowledge_assets.store.postgres import PostgresStore, create_statement, placeholders
from knowledge_assets.store.protocol import StoreError
from knowledge_assets.store.redaction import redact
from knowledge_assets.store.review import append_batch, batch_rows, decision_rows
from knowledge_assets.store.schema import KEYS, TABLES
from tests.conftest import PROJECT_ROOT
from tests.support import postgres

postgres_server = postgres.postgres_server


def _database(server: postgres.PostgresServer, name: str) -> str:
    """A fresh database on the server, its URL."""
    server.psql(f'DROP DATABASE IF EXISTS "{name}"')
    server.psql(f'CREATE DATABASE "{name}"')
    return server.url.rsplit("/", 1)[0] + f"/{name}"


def _value(sql_type: str, i: int):
    """A value of a column type, varied by `i`: quotes, `?` and `%` in text, an int for a double."""
    plain = sql_type.removesuffix(" NOT NULL")
    if plain.startswith("STRUCT(") and plain.endswith("[]"):
        return [] if i % 2 else [_value(plain[:-2], i), _value(plain[:-2], i + 1)]
    if plain.startswith("STRUCT("):
        from knowledge_assets.store.schema import struct_fields

        fields = [f.partition(" ") for f in struct_fields(plain)]
        # Written in reverse order: the store keeps the declared order, as DuckDB does.
        return {name: _value(field_type, i) for name, _, field_type in reversed(fields)}
    if plain.endswith("[]"):
        return [] if i % 2 else [f"item {i}", "it's 50% ?"]
    return {
        "VARCHAR": f"text {i}: it's 100% \"sure\" ? é",
        "INTEGER": i,
        "DOUBLE": i if i % 2 else i + 0.25,
        "BOOLEAN": bool(i % 2),
        "TIMESTAMP": datetime(2026, 12, 2, 3, 4, 5, 678901 + i % 1000),
        "JSON": '{"b": 1,  "a": [1, 2.50], "c": "é"}',
    }[plain]


def _rows(table: str, doc_id: str, n: int) -> list[dict]:
    return [{c: doc_id if c == "doc_id" else _value(t, i) for c, t in TABLES[table].items()} for i in range(n)]


def _write_every_table(store) -> None:
    for table in TABLES:
        if "doc_id" in TABLES[table]:  # one row where the document is the key
            store.replace_partition("doc-a", {table: _rows(table, "doc-a", 1 if KEYS.get(table) == ("doc_id",) else 3)})
        else:
            store.append(table, _rows(table, "", 3))


def _read_every_table(store) -> dict[str, list[str]]:
    """Each table's rows as their reprs, sorted: types, values and key order all compared."""
    return {table: sorted(repr(row) for row in store.fetch(f'SELECT * FROM "{table}"')) for table in TABLES}


def test_every_table_reads_back_exactly_what_duckdb_reads_back(postgres_server, tmp_path):
    duck = DuckDBStore(tmp_path / "k.duckdb")
    shared = PostgresStore(_database(postgres_server, "exact"))
    _write_every_table(duck)
    _write_every_table(shared)
    assert _read_every_table(shared) == _read_every_table(duck)


def test_a_database_written_before_review_batches_gains_the_table_and_keeps_its_decisions(postgres_server):
    # Batches are recorded beside the decisions (D88): a database of an earlier version has no
    # review_batches table, and the first store opened on it adds one, its decisions untouched.
    url = _database(postgres_server, "before_batches")
    earlier = dataclasses.replace(postgres_server, url=url)
    for table in TABLES:
        if table != "review_batches":
            earlier.psql(create_statement(table))
    decision = _rows("knowledge_reviews", "doc-a", 1)[0] | {"review_id": "rv_1"}
    columns = ", ".join(f'"{c}"' for c in decision)
    values = ", ".join("NULL" if v is None else "'" + str(v).replace("'", "''") + "'" for v in decision.values())
    earlier.psql(f"INSERT INTO knowledge_reviews ({columns}) VALUES ({values})")
    store = PostgresStore(url)
    assert [row["review_id"] for row in decision_rows(store, "doc-a")] == ["rv_1"]
    assert batch_rows(store, "doc-a") == []
    append_batch(store, "bt_1", "doc-a", ["rv_1"])
    assert batch_rows(store, "doc-a") == [{"batch_id": "bt_1", "review_id": "rv_1"}]


def test_replace_touches_only_the_documents_rows_in_its_scope(postgres_server):
    store = PostgresStore(_database(postgres_server, "scope"))
    rows = [{"doc_id": d, "branch": b, "entry_term": "t", "field": "f", "offending_value": "v", "reason": "r"}
            for d in ("A", "B") for b in ("formula", "rule")]
    store.replace_partition("A", {"rejected_fields": [r for r in rows if r["doc_id"] == "A"]})
    store.replace_partition("B", {"rejected_fields": [r for r in rows if r["doc_id"] == "B"]})
    store.replace_partition("A", {"rejected_fields": []}, scope={"rejected_fields": {"branch": "formula"}})
    assert store.fetch("SELECT doc_id, branch FROM rejected_fields ORDER BY doc_id, branch") == [
        {"doc_id": "A", "branch": "rule"}, {"doc_id": "B", "branch": "formula"}, {"doc_id": "B", "branch": "rule"}]


def test_a_failed_write_leaves_the_previous_rows_and_a_transaction_is_all_or_nothing(postgres_server):
    store = PostgresStore(_database(postgres_server, "atomic"))
    store.replace_partition("A", {"parsed_pages": _rows("parsed_pages", "A", 3)})
    bad = _rows("parsed_chunks", "A", 1)[0] | {"text": None}  # NOT NULL
    with pytest.raises(StoreError, match="atomic"):
        store.replace_partition("A", {"parsed_pages": _rows("parsed_pages", "A", 1), "parsed_chunks": [bad]})
    assert len(store.fetch("SELECT * FROM parsed_pages WHERE doc_id = ?", ["A"])) == 3
    other = PostgresStore(store.url)  # another Store object on the URL, as the review code makes them
    with pytest.raises(RuntimeError), store.transaction():
        store.replace_partition("A", {"parsed_pages": []})
        other.append("rejected_fields", _rows("rejected_fields", "A", 1))
        assert other.fetch("SELECT count(*) AS n FROM parsed_pages WHERE doc_id = ?", ["A"]) == [{"n": 0}]
        raise RuntimeError("the request failed after its writes")
    assert store.fetch("SELECT count(*) AS n FROM parsed_pages WHERE doc_id = ?", ["A"]) == [{"n": 3}]
    assert store.fetch("SELECT count(*) AS n FROM rejected_fields") == [{"n": 0}]


def test_a_duplicate_key_is_refused_in_one_line(postgres_server):
    store = PostgresStore(_database(postgres_server, "keys"))
    row = _rows("glossary", "A", 1)[0]
    with pytest.raises(StoreError) as refused:
        store.replace_partition("A", {"glossary": [row, row]})
    assert "constraint" in str(refused.value) and "\n" not in str(refused.value)


def test_a_write_that_cannot_get_its_locks_in_time_fails_in_one_line(postgres_server):
    import psycopg

    url = _database(postgres_server, "locked")
    PostgresStore(url).fetch("SELECT 1")  # the schema
    with psycopg.connect(url) as holder:
        holder.execute("LOCK TABLE glossary IN ACCESS EXCLUSIVE MODE")
        started = time.monotonic()
        with pytest.raises(StoreError) as refused:
            PostgresStore(url, lock_timeout_s=1).replace_partition("A", {"glossary": _rows("glossary", "A", 1)})
        waited = time.monotonic() - started
    message = str(refused.value)
    assert 0.9 < waited < 10 and "\n" not in message
    assert message.startswith(redact(url)) and "could not get the store's locks within 1s" in message


def test_a_session_shares_one_connection_per_thread(postgres_server):
    url = _database(postgres_server, "session")
    first, second = PostgresStore(url), PostgresStore(url)
    with first.session():
        pid = first.fetch("SELECT pg_backend_pid() AS pid")[0]["pid"]
        assert second.fetch("SELECT pg_backend_pid() AS pid")[0]["pid"] == pid
    assert first.fetch("SELECT pg_backend_pid() AS pid")[0]["pid"] != pid


_CLI = "from knowledge_assets.command import main; raise SystemExit(main())"
_WRITER = textwrap.dedent("""
    import sys
    from knowledge_assets.store.postgres import PostgresStore
    from tests.store.test_postgres_store import _rows
    PostgresStore(sys.argv[1]).replace_partition("A", {"term_mentions": _rows("term_mentions", "A", 200_000)})
""")


def test_a_writer_killed_mid_write_leaves_the_previous_rows(postgres_server):
    url = _database(postgres_server, "killed")
    store = PostgresStore(url)
    store.replace_partition("A", {"term_mentions": _rows("term_mentions", "A", 5)})
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, url], cwd=PROJECT_ROOT,
                              env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
    try:
        # The writer has deleted the old rows and is copying the new ones: its COPY is running.
        deadline = time.monotonic() + 60
        while not store.fetch("SELECT 1 AS x FROM pg_stat_activity WHERE query LIKE 'COPY%' AND state = 'active'"):
            assert writer.poll() is None and time.monotonic() < deadline, "the writer never reached its COPY"
            time.sleep(0.02)
        writer.send_signal(signal.SIGKILL)
    finally:
        writer.wait(30)
    assert writer.returncode == -signal.SIGKILL
    assert len(store.fetch("SELECT * FROM term_mentions WHERE doc_id = ?", ["A"])) == 5
    store.replace_partition("A", {"term_mentions": _rows("term_mentions", "A", 2)})  # the next write goes through
    assert len(store.fetch("SELECT * FROM term_mentions WHERE doc_id = ?", ["A"])) == 2


def test_no_message_names_the_password(postgres_server):
    url = postgres_server.url.replace("postgres@", "postgres:hunter2@").rsplit("/", 1)[0] + "/no_such_database"
    with pytest.raises(StoreError) as refused:
        open_store(url).fetch("SELECT 1")
    assert "hunter2" not in str(refused.value) and "postgres:***@" in str(refused.value)
    done = subprocess.run([sys.executable, "-c", _CLI, "documents"],
                          cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "KNOWLEDGE_STORE": url})
    assert done.returncode != 0 and "hunter2" not in done.stdout + done.stderr
    assert done.stderr.strip().count("\n") == 0 and "postgres:***@" in done.stderr


def test_without_psycopg_a_shared_store_says_what_to_install(tmp_path):
    blocked = "import sys; sys.modules['psycopg'] = None; " + _CLI  # import psycopg then raises ImportError
    done = subprocess.run([sys.executable, "-c", blocked, "documents"], cwd=PROJECT_ROOT, capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT),
                               "KNOWLEDGE_STORE": "postgresql://someone@127.0.0.1:1/db"})
    assert done.returncode != 0 and done.stderr.strip().count("\n") == 0
    assert 'pip install -e ".[shared]"' in done.stderr


def test_unset_the_store_is_the_duckdb_file(tmp_path, monkeypatch):
    monkeypatch.delenv("KNOWLEDGE_STORE", raising=False)
    monkeypatch.setenv("KNOWLEDGE_DB", str(tmp_path / "own.duckdb"))
    store = open_store()
    assert isinstance(store, DuckDBStore) and store.path == tmp_path / "own.duckdb"
    monkeypatch.setenv("KNOWLEDGE_STORE", "postgresql://u@h:5432/db")
    assert isinstance(open_store(), PostgresStore)


def test_placeholders_are_translated_outside_quotes_only():
    assert placeholders("SELECT '?', \"a?\" FROM t WHERE x = ? AND y LIKE 'p%' AND z = ?") == (
        "SELECT '?', \"a?\" FROM t WHERE x = %s AND y LIKE 'p%%' AND z = %s")


def test_rows_given_as_generators_are_all_written(postgres_server):
    """A long document's parsed rows come as generators (D73): the shared store takes them into
    a list first, so a row check, the COPY and a retried transaction all see every row."""
    shared = PostgresStore(_database(postgres_server, "generators"))
    shared.replace_partition("doc-a", {"glossary": (row for row in _rows("glossary", "doc-a", 5))},
                             appends={"llm_usage": (row for row in _rows("llm_usage", "doc-a", 2))})
    shared.append("documents", (row for row in _rows("documents", "doc-a", 3)))
    counts = {table: shared.fetch(f'SELECT count(*) AS n FROM "{table}"')[0]["n"]
              for table in ("glossary", "llm_usage", "documents")}
    assert counts == {"glossary": 5, "llm_usage": 2, "documents": 3}


def test_text_sorts_by_code_point_on_a_server_whose_locale_sorts_otherwise(postgres_server, tmp_path):
    """A database made with a language collation (ICU en-US puts `a` before `B`) still gives the
    store's ordered reads in DuckDB's order, byte by byte: its text columns are COLLATE "C"."""
    postgres_server.psql('DROP DATABASE IF EXISTS "english"')
    postgres_server.psql("CREATE DATABASE english TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' "
                         "LOCALE 'C.UTF-8'")
    shared = PostgresStore(postgres_server.url.rsplit("/", 1)[0] + "/english")
    duck = DuckDBStore(tmp_path / "k.duckdb")
    terms = ["b", "B", "a", "A", "_z", "Zeta", "éclair", "eclair"]
    for store in (duck, shared):
        rows = _rows("glossary", "doc-a", len(terms))
        for row, term in zip(rows, terms):
            row["term"] = row["term_id"] = term
            row["mention_count"] = 1
        store.replace_partition("doc-a", {"glossary": rows})
    wanted = [row["term"] for row in stored_rows(duck, "glossary", "doc-a")]
    assert wanted == sorted(terms)  # DuckDB: code point order, upper case first
    assert [row["term"] for row in stored_rows(shared, "glossary", "doc-a")] == wanted
    server_order = [row["t"] for row in shared.fetch(
        "SELECT t FROM (VALUES ('a'), ('B')) AS v(t) ORDER BY t")]
    assert server_order == ["a", "B"], "the database's own collation must differ for this test to prove anything"
