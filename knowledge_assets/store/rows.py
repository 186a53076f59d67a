"""What both backends (store/database.py, store/postgres.py) and the store's reads share, none of
it tied to an engine: a connection held or opened for one operation, rows as dicts by column
name or as tuples (all at once or a batch at a time), a row's columns checked against its
table, and the documents of a long list named a slice at a time in `doc_id IN (…)`. It lives below both
backends so that neither imports the other, and the PostgreSQL store never imports duckdb."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from knowledge_assets.store.protocol import Store, StoreError
from knowledge_assets.store.schema import TABLES

# Documents named in one statement's `doc_id IN (…)` (PostgreSQL takes at most 65,535
# parameters in a statement; a range run may cover thousands of documents).
DOC_IDS_PER_STATEMENT = 500


def in_list(column: str, count: int, mark: str = "?") -> str:
    """`"column" IN (?, ?, …)` for `count` parameters (SQL both engines read)."""
    return f'"{column}" IN ({", ".join([mark] * count)})'


def batched(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    """`items` in slices of at most `size`; one empty slice for no items is not given."""
    for start in range(0, len(items), size):
        yield items[start:start + size]


@contextmanager
def held_or_own(held: Any, open_connection: Callable[[], Any]) -> Iterator[Any]:
    """The session's connection when one is held, else a connection of its own, closed after."""
    if held is not None:
        yield held
        return
    con = open_connection()
    try:
        yield con
    finally:
        con.close()


def row_dicts(cursor: Any) -> list[dict[str, Any]]:
    """A cursor's rows as dicts by column name."""
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


_FETCH_BATCH_ROWS = 2_000


def each_row(store: Store, sql: str, params: list[Any]) -> Iterator[dict[str, Any]]:
    """Each row of `sql` as a dict by column name, fetched `_FETCH_BATCH_ROWS` at a time: a
    caller that turns rows into models as they come never holds every row of a long document
    as a dict beside its models (a 50 MB text's rules are 75,000 rows). Consumed before the
    store's session is released, as any read is."""
    with store.connect() as con:
        cursor = con.execute(sql, params)
        names = [d[0] for d in cursor.description]
        while batch := cursor.fetchmany(_FETCH_BATCH_ROWS):
            yield from (dict(zip(names, row)) for row in batch)


def each_tuple(store: Store, sql: str, params: list[Any]) -> Iterator[tuple[Any, ...]]:
    """Each row of `sql` as the engine's tuple, fetched `_FETCH_BATCH_ROWS` at a time, for rows
    read by position and counted in millions. Consumed before the store's session is released."""
    with store.connect() as con:
        cursor = con.execute(sql, params)
        while batch := cursor.fetchmany(_FETCH_BATCH_ROWS):
            yield from batch


def check_row_columns(table: str, rows: list[dict[str, Any]]) -> None:
    """Refuses a row whose columns are not exactly the table's."""
    columns = TABLES[table]
    for row in rows:
        if row.keys() != columns.keys():
            raise StoreError(f"a row for {table} has columns {sorted(row)}, the table has {sorted(columns)}")
