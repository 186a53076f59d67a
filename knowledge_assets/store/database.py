"""The DuckDB file: connections that wait out another process's lock, and per-document writes
that replace a partition's rows in one transaction, each table's rows in one batched insert.

DuckDB lets one process at a time open a file. A process holds it only as long as a read or a
write takes (a session's connection is released around model calls, `DuckDBStore.released`), so a
second run or a review page waits seconds, not a run's length. Processes waiting for the file
take it in turn (store/file_queue.py): only the queue's head polls the database, so a stream
of short readers (review pages polling) cannot keep a writer waiting.

dagster-duckdb's resource retries only the connect and its IO manager inserts by column
position without a transaction, and neither is usable without Dagster (the CLI and the tests
write too), so this module is our own.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from typing import Any

import duckdb

from knowledge_assets.store.file_queue import Wait, open_in_turn
from knowledge_assets.store.protocol import StoreError
from knowledge_assets.store.rows import (
    DOC_IDS_PER_STATEMENT,
    batched,
    check_row_columns,
    held_or_own,
    in_list,
    row_dicts,
)
from knowledge_assets.store.schema import TABLES, create_statement, struct_fields

_LOCK_MESSAGE = "Could not set lock on file"
# DuckDB's lock error names the holder: `Conflicting lock is held in /usr/bin/python3 (PID 123)`.
_HOLDER = re.compile(r"Conflicting lock is held in (.+?\(PID \d+\))")
# The connection a session keeps, by file: every DuckDBStore of this process on that file shares it.
_HELD: dict[Path, duckdb.DuckDBPyConnection] = {}


class DuckDBStore:
    """A DuckDB file shared by processes (a `Store`, store/protocol.py): outside a `session()`,
    each operation holds it only as long as it needs; inside one, the process keeps one
    connection until the session ends."""

    engine = "DuckDB"

    def __init__(self, path: Path | str, lock_timeout_s: float = 180.0):
        self.path = Path(path)
        self.lock_timeout_s = lock_timeout_s
        self._schema_ready = False

    @property
    def location(self) -> str:
        """What messages name: the file."""
        return str(self.path)

    @property
    def state_dir(self) -> Path:
        """Where files derived from the store live (the review pages' image cache): the file's folder."""
        return self.path.resolve().parent

    @contextmanager
    def connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        with held_or_own(_HELD.get(self.path.resolve()), self._open) as con:
            yield con

    @contextmanager
    def session(self) -> Iterator[DuckDBStore]:
        """Keeps one connection to the file, shared by every DuckDBStore of this process on it, until
        the outermost session ends (a run, a CLI command): opening the file costs tens of
        milliseconds, an operation on an open connection a fraction of one. The file stays
        locked meanwhile; another process waits it out (up to its `lock_timeout_s`).

        The connection is one DuckDB connection, not safe across threads: store access stays
        on the thread that holds the session (as the extractor and the assets already do)."""
        key = self.path.resolve()
        if key in _HELD:
            yield self
            return
        _HELD[key] = self._open()
        try:
            yield self
        finally:
            if (con := _HELD.pop(key, None)) is not None:
                con.close()

    @contextmanager
    def released(self) -> Iterator[None]:
        """Closes the session's connection for the time inside, and opens it again after: a
        model call (seconds to minutes) never holds the file, which another process may then
        read or write. Inside, each operation opens the file for itself, as outside a session.
        Nothing outside a session; a connection taken with `connect()` must not span it."""
        key = self.path.resolve()
        con = _HELD.pop(key, None)
        if con is None:
            yield
            return
        con.close()
        try:
            yield
        finally:
            _HELD[key] = self._open()

    def cached_page_bytes(self) -> int:
        """What the session's connection holds in DuckDB's buffer pool: the blocks it wrote or
        read, kept cached until it closes (0 outside a session: nothing is kept)."""
        con = _HELD.get(self.path.resolve())
        if con is None:
            return 0
        return int(con.execute("SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory()").fetchone()[0])

    def _open(self) -> duckdb.DuckDBPyConnection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = open_in_turn(self.path, self.lock_timeout_s, self._open_waiting_for_lock)
        try:
            # One thread: the store's statements are a document's small reads and writes, for
            # which DuckDB's second thread only adds a hand-off; on a busy machine the statement
            # waits for it to be scheduled (a folder run of 50 documents at load 3 on 2 cores:
            # 44-45 s against 36-39 s wall, the same CPU seconds; docs/decisions.md D77).
            con.execute("SET threads = 1")
            if not self._schema_ready:
                self._ensure_schema(con)
        except BaseException:
            con.close()
            raise
        return con

    def _open_waiting_for_lock(self, wait: Wait) -> duckdb.DuckDBPyConnection:
        # DuckDB allows one writing process per file; another process's lock is waited out
        # with short back-off and jitter (only the queue's head polls) rather than failing.
        delay = 0.01
        while True:
            try:
                return duckdb.connect(str(self.path))
            except duckdb.IOException as exc:
                if _LOCK_MESSAGE not in str(exc):
                    raise StoreError(f"{self.path}: cannot open the store ({exc})") from None
                wait.check(self.lock_timeout_s, _holder(str(exc)), exc)
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 0.1)

    def _ensure_schema(self, con: duckdb.DuckDBPyConnection) -> None:
        for table in TABLES:
            con.execute(create_statement(table))
        found = _column_types(con)
        for table, columns in TABLES.items():
            if list(found.get(table, {})) != list(columns):
                raise StoreError(
                    f"{self.path}: table {table} has columns {list(found.get(table, {}))}, this version "
                    f"expects {list(columns)}; move the old store aside (derived tables can be rebuilt)"
                )
        expected = _expected_types()
        for table, columns in expected.items():
            for column, sql_type in columns.items():
                if found[table][column] != sql_type:
                    self._widen(con, table, column, found[table][column], sql_type)
        self._schema_ready = True

    def _widen(self, con: duckdb.DuckDBPyConnection, table: str, column: str, old: str, new: str) -> None:
        """A column whose type this version extends (a STRUCT that gained a field, e.g.
        provenance's `pieces`) is altered in place, its values kept and the new field NULL: a
        store written by an earlier version, decisions included, stays usable. A change that
        cannot be cast (a field removed or retyped) is refused with both types named."""
        if not _extends(old, new):
            raise StoreError(f"{self.path}: column {table}.{column} is {old}, this version expects {new}; "
                             "move the old store aside (derived tables can be rebuilt)")
        con.execute(f'ALTER TABLE "{table}" ALTER COLUMN "{column}" SET DATA TYPE {new}')

    def replace_partition(
        self,
        doc_id: str,
        rows_by_table: dict[str, Iterable[dict[str, Any]]],
        scope: dict[str, dict[str, Any]] | None = None,
        appends: dict[str, Iterable[dict[str, Any]]] | None = None,
    ) -> None:
        """Replaces exactly this document's rows in each table, all in one transaction.

        `scope` narrows the replacement in a table shared by several assets, e.g.
        `{"rejected_fields": {"branch": "formula"}}` replaces only the formula branch's rows.
        `appends` adds rows to history tables in the same transaction.
        """
        self.replace_partitions([doc_id], rows_by_table, scope, appends)

    def replace_partitions(
        self,
        doc_ids: Sequence[str],
        rows_by_table: dict[str, Iterable[dict[str, Any]]],
        scope: dict[str, dict[str, Any]] | None = None,
        appends: dict[str, Iterable[dict[str, Any]]] | None = None,
    ) -> None:
        """`replace_partition` for several documents at once, in one transaction: exactly these
        documents' rows in each table are replaced by `rows_by_table`'s (each row names its
        doc_id, one of `doc_ids`). A record written for each document of a run's step (which
        revision each asset was derived from, that its checks ended) is one transaction, one
        DELETE and one INSERT per table, not a transaction per document."""
        with self.connect() as con:
            con.execute("BEGIN TRANSACTION")
            try:
                for table, rows in rows_by_table.items():
                    narrow = (scope or {}).get(table, {})
                    for some in batched(doc_ids, DOC_IDS_PER_STATEMENT):
                        where = " AND ".join([in_list("doc_id", len(some)), *(f'"{c}" = ?' for c in narrow)])
                        con.execute(f'DELETE FROM "{table}" WHERE {where}', [*some, *narrow.values()])
                    _insert(con, table, rows)
                for table, rows in (appends or {}).items():
                    _insert(con, table, rows)
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All the writes inside, or none of them: begun on the connection `connect()` gives,
        committed at the end, rolled back on any exception. The operations inside must run on
        that same connection, so a transaction is taken inside a `session()` or on a store held
        on one connection (`store/held.py`); it yields nothing to run SQL on."""
        with self.connect() as con:
            con.execute("BEGIN TRANSACTION")
            try:
                yield
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")

    def append(self, table: str, rows: Iterable[dict[str, Any]]) -> None:
        with self.connect() as con:
            _insert(con, table, rows)

    def fetch(self, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        with self.connect() as con:
            return row_dicts(con.execute(sql, params or []))


def _holder(error: str) -> str:
    found = _HOLDER.search(error)
    return f"held by {found[1] if found else 'another process'}"


def _is_nested(sql_type: str) -> bool:
    return sql_type.startswith("STRUCT") or sql_type.removesuffix(" NOT NULL").endswith("[]")


def _column_types(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for table, column, sql_type in con.execute(
        "SELECT table_name, column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
    ).fetchall():
        found.setdefault(table, {})[column] = sql_type
    return found


_EXPECTED: dict[str, dict[str, str]] = {}


def _expected_types() -> dict[str, dict[str, str]]:
    """The schema's column types as DuckDB spells them (`INT` reads back as `INTEGER`), from the
    same CREATE statements in a scratch in-memory database, once per process."""
    if not _EXPECTED:
        with duckdb.connect() as scratch:
            for table in TABLES:
                scratch.execute(create_statement(table))
            _EXPECTED.update({table: _column_types(scratch)[table] for table in TABLES})
    return _EXPECTED


def _extends(old: str, new: str) -> bool:
    """True when type `new` is `old` with fields appended to a STRUCT, at any depth (inside a
    list or another STRUCT): every field of `old` kept, in order, by name and type."""
    if old == new:
        return True
    if old.endswith("[]") and new.endswith("[]"):
        return _extends(old[:-2], new[:-2])
    if not (old.startswith("STRUCT(") and new.startswith("STRUCT(")):
        return False
    old_fields, new_fields = struct_fields(old), struct_fields(new)
    return len(old_fields) <= len(new_fields) and all(
        before.partition(" ")[0] == after.partition(" ")[0]
        and _extends(before.partition(" ")[2], after.partition(" ")[2])
        for before, after in zip(old_fields, new_fields)
    )


def _insert(con: duckdb.DuckDBPyConnection, table: str, rows: Iterable[dict[str, Any]]) -> None:
    """The rows in INSERT … SELECT statements from registered columns of `_INSERT_BATCH_ROWS` rows each
    (a statement per batch, not per row), in the caller's transaction; a batch of at most
    `_VALUES_MAX_ROWS` rows goes as one VALUES list of parameters instead (`_insert_values`),
    and a batch of a table with nested columns as VALUES lists of `_NESTED_VALUES_ROWS`.
    `rows` may be a generator: only one batch of rows is then held at a time, so writing a long
    document's chunks does not hold a dict of every chunk beside its models.

    Every column is cast to the table's type by name. Nested columns (STRUCT, LIST) travel as
    JSON text and are cast from JSON: DuckDB's inference of Python dicts and lists in a
    registered column guesses from a sample (an all-empty list or an all-null field has no type), while
    the JSON cast follows the declared type exactly. None stays NULL either way."""
    rows = iter(rows)
    while batch := list(islice(rows, _INSERT_BATCH_ROWS)):
        _insert_batch(con, table, batch)


_INSERT_BATCH_ROWS = 2_000
# Up to this many rows, a VALUES list of parameters is cheaper than registering the columns
# (measured on a folder run's writes: 1 row 0.8-1.2 ms against 2.7-3.7 ms, 8 rows 2.4 against
# 5.0, 20 rows 3.0 against 4.2; from about 36 rows on the registered columns are as cheap or
# cheaper, and at 238 rows five times cheaper; measured with a DataFrame, whose object columns
# are what is registered now, D106). Most of a document's writes are a handful of rows.
_VALUES_MAX_ROWS = 20
# The VALUES lists a batch with nested columns goes as (`_insert_batch`).
_NESTED_VALUES_ROWS = 200


def _insert_batch(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict[str, Any]]) -> None:
    columns = TABLES[table]
    check_row_columns(table, rows)
    names = ", ".join(f'"{c}"' for c in columns)
    casts = ", ".join(_cast(c, sql_type) for c, sql_type in columns.items())
    values = {
        column: [None if row[column] is None else json.dumps(row[column], ensure_ascii=False) for row in rows]
        if _is_nested(sql_type) else [row[column] for row in rows]
        for column, sql_type in columns.items()
    }
    if len(rows) <= _VALUES_MAX_ROWS:
        _insert_values(con, table, names, casts, values, len(rows))
        return
    if any(_is_nested(sql_type) for sql_type in columns.values()):
        # DuckDB reads registered columns' strings without copying them and keeps them
        # until the transaction commits, so every batch's JSON texts, made for this insert
        # alone, would be held at once: the 75,000 rules of RFC 9002 repeated to 50 MB name
        # 15 million ids, 259 MiB of JSON (+920 MiB RSS for the write, 600 with these). Bound
        # parameters are copied; a long write costs ~20 % more time for them.
        for start in range(0, len(rows), _NESTED_VALUES_ROWS):
            end = min(start + _NESTED_VALUES_ROWS, len(rows))
            _insert_values(con, table, names, casts, {c: v[start:end] for c, v in values.items()}, end - start)
        return
    # Each column one numpy array of Python objects, which DuckDB scans as it scans a DataFrame's
    # columns (a DataFrame of object columns is such arrays): pandas, imported for this alone,
    # held 45 MiB more for the rest of the run and, imported by a long document's first large
    # write, left its objects across the heap that document's term stage had grown (D106).
    # numpy is imported by the first large write, not by every import of the definitions.
    import numpy as np

    columns_of_objects = {}
    for column, column_values in values.items():
        array = np.empty(len(column_values), dtype=object)
        array[:] = column_values  # element by element: never read as a nested (2-D) array
        columns_of_objects[column] = array
    con.register("_rows", columns_of_objects)
    try:
        con.execute(f'INSERT INTO "{table}" ({names}) SELECT {casts} FROM _rows')
    finally:
        con.unregister("_rows")


def _insert_values(
    con: duckdb.DuckDBPyConnection, table: str, names: str, casts: str, values: dict[str, list[Any]], count: int
) -> None:
    """`count` rows as one VALUES list of parameters named like the table's columns, cast by name
    exactly as the registered columns are (`_cast`): the same values reach the table."""
    row = "(" + ", ".join("?" for _ in values) + ")"
    params = [column_values[n] for n in range(count) for column_values in values.values()]
    con.execute(
        f'INSERT INTO "{table}" ({names}) SELECT {casts} FROM (VALUES {", ".join([row] * count)}) AS _rows({names})',
        params,
    )


def _cast(column: str, sql_type: str) -> str:
    target = sql_type.removesuffix(" NOT NULL")
    source = f'CAST("{column}" AS JSON)' if _is_nested(sql_type) else f'"{column}"'
    return f"CAST({source} AS {target})"
