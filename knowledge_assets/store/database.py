"""The DuckDB file: connections that wait out another process's lock, and per-document writes
that replace a partition's rows in one transaction.

dagster-duckdb's resource retries only the connect and its IO manager inserts by column
position without a transaction, and neither is usable without Dagster (the CLI and the tests
write too), so this module is our own.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from knowledge_assets.store.schema import TABLES, create_statement

_LOCK_MESSAGE = "Could not set lock on file"


class StoreError(Exception):
    pass


class Store:
    """A DuckDB file shared by processes: each operation holds it only as long as it needs."""

    def __init__(self, path: Path | str, lock_timeout_s: float = 180.0):
        self.path = Path(path)
        self.lock_timeout_s = lock_timeout_s
        self._schema_ready = False

    @contextmanager
    def connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = self._open_waiting_for_lock()
        try:
            if not self._schema_ready:
                self._ensure_schema(con)
            yield con
        finally:
            con.close()

    def _open_waiting_for_lock(self) -> duckdb.DuckDBPyConnection:
        # DuckDB allows one writing process per file; another process's lock is waited out
        # with exponential back-off and jitter rather than failing the run.
        deadline = time.monotonic() + self.lock_timeout_s
        delay = 0.02
        while True:
            try:
                return duckdb.connect(str(self.path))
            except duckdb.IOException as exc:
                if _LOCK_MESSAGE not in str(exc) or time.monotonic() > deadline:
                    raise StoreError(
                        f"{self.path}: cannot open the store ({exc}); another process may hold it"
                    ) from None
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 1.0)

    def _ensure_schema(self, con: duckdb.DuckDBPyConnection) -> None:
        for table, columns in TABLES.items():
            con.execute(create_statement(table))
            found = [row[0] for row in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                "ORDER BY ordinal_position",
                [table],
            ).fetchall()]
            if found != list(columns):
                raise StoreError(
                    f"{self.path}: table {table} has columns {found}, this version expects "
                    f"{list(columns)}; move the old store aside (derived tables can be rebuilt)"
                )
        self._schema_ready = True

    def replace_partition(
        self,
        doc_id: str,
        rows_by_table: dict[str, list[dict[str, Any]]],
        scope: dict[str, dict[str, Any]] | None = None,
        appends: dict[str, list[dict[str, Any]]] | None = None,
    ) -> None:
        """Replaces exactly this document's rows in each table, all in one transaction.

        `scope` narrows the replacement in a table shared by several assets, e.g.
        `{"rejected_fields": {"branch": "formula"}}` replaces only the formula branch's rows.
        `appends` adds rows to history tables in the same transaction.
        """
        with self.connect() as con:
            con.execute("BEGIN TRANSACTION")
            try:
                for table, rows in rows_by_table.items():
                    narrow = (scope or {}).get(table, {})
                    where = " AND ".join(["doc_id = ?", *(f'"{column}" = ?' for column in narrow)])
                    con.execute(f'DELETE FROM "{table}" WHERE {where}', [doc_id, *narrow.values()])
                    _insert(con, table, rows)
                for table, rows in (appends or {}).items():
                    _insert(con, table, rows)
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise

    def append(self, table: str, rows: list[dict[str, Any]]) -> None:
        with self.connect() as con:
            _insert(con, table, rows)

    def fetch(self, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        with self.connect() as con:
            cursor = con.execute(sql, params or [])
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, row)) for row in cursor.fetchall()]


def _insert(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    columns = list(TABLES[table])
    for row in rows:
        if row.keys() != set(columns):
            raise StoreError(
                f"a row for {table} has columns {sorted(row)}, the table has {sorted(columns)}"
            )
    names = ", ".join(f'"{c}"' for c in columns)
    marks = ", ".join("?" for _ in columns)
    con.executemany(
        f'INSERT INTO "{table}" ({names}) VALUES ({marks})',
        [[row[c] for c in columns] for row in rows],
    )
