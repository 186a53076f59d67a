"""A step's documents written together: a store (the `Store` protocol) whose `replace_partition`
calls wait and go to the store in one `replace_partitions` per shape of write, so a folder run's
step writes its hundred small documents in a few transactions and statements instead of one
transaction per document and a statement per table of each (docs/decisions.md D109: a write's
statements cost about a millisecond each whatever their rows, 22 % of a 100-document run).

What is waiting is never missed by a read. A read is SQL, and SQL names its tables: before any
statement on a connection this store gives (`connect`, `fetch`) whose text names a table with
rows waiting, everything waiting is written. Any other write (`append`, `replace_partitions`)
writes it first too, and so do a `transaction` and a `released` session, inside which every
write goes straight to the store: the order of writes is the callers', a transaction holds
what is written inside it, and nothing waits while the file is let go (a model call). A write
of a shape other than those waiting that shares a table with them, or a second write of a
document already waiting in its shape, writes what waits first, so each table's writes keep
their order.

Rows are drawn when `replace_partition` is called, in the order the store would draw them (each
table's to its end before the next one's), so what a caller gathers while they are drawn
(`write_branch`'s rejections and marks, `write_parsed`'s header) is complete when the call
returns, as before. At most `WAITING_ROWS` rows and `WAITING_CHARS` characters of text wait: a
write that would pass either (a long document's chunks) first writes what waits, then goes to
the store as it came, the rows drawn so far and then the rest as they are written.

A failed write of several documents is tried again one document at a time, so one document's
bad rows fail only that document: `failures` names each document whose own write failed and why
(`defs.assets.batch.materialize_each` fails it with its cause).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowledge_assets.store.protocol import Store

# What may wait at once: a hundred one-page documents' chunks, terms and entities are a few
# thousand rows and about 2 MB of text. A long document's chunks pass it and are written as they
# come, never held whole (D102): a write's rows are drawn `_DRAWN_AT_ONCE` at a time and measured
# as they are drawn.
WAITING_ROWS = 10_000
WAITING_CHARS = 4_000_000
_DRAWN_AT_ONCE = 200


def _text_chars(rows: list[dict[str, Any]]) -> int:
    """The characters of the rows' text values (a chunk's text, a definition): what holding them costs."""
    return sum(len(value) for row in rows for value in row.values() if isinstance(value, str))


@dataclass(frozen=True)
class _Shape:
    tables: tuple[str, ...]
    scope: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]
    appends: tuple[str, ...]


@dataclass
class _Write:
    doc_id: str
    rows: dict[str, list[dict[str, Any]]]
    appends: dict[str, list[dict[str, Any]]]
    scope: dict[str, dict[str, Any]]


def _shape(rows: dict, scope: dict[str, dict[str, Any]] | None, appends: dict) -> _Shape:
    return _Shape(tuple(rows), tuple(sorted((t, tuple(sorted(n.items()))) for t, n in (scope or {}).items())),
                  tuple(appends))


class StepWrites:
    """`store` with its documents' replacements written together (module docstring)."""

    def __init__(self, store: Store, waiting_rows: int = WAITING_ROWS, waiting_chars: int = WAITING_CHARS):
        self._store = store
        self._waiting_rows = waiting_rows
        self._waiting_chars = waiting_chars
        self._waiting: dict[_Shape, list[_Write]] = {}
        self._rows = 0
        self._chars = 0
        self._names: re.Pattern[str] | None = None
        self._straight = 0
        self._reading: str | None = None
        self.failures: dict[str, Exception] = {}

    @property
    def engine(self) -> str:
        return self._store.engine

    @property
    def location(self) -> str:
        return self._store.location

    @property
    def state_dir(self) -> Path:
        return self._store.state_dir

    @contextmanager
    def session(self) -> Iterator[StepWrites]:
        with self._store.session():
            yield self

    def cached_page_bytes(self) -> int:
        return self._store.cached_page_bytes()

    @contextmanager
    def connect(self) -> Iterator[Any]:
        with self._store.connect() as con:
            yield _Watched(con, self)

    @contextmanager
    def released(self) -> Iterator[None]:
        with self._straight_through(), self._store.released():
            yield

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._straight_through(), self._store.transaction():
            yield

    @contextmanager
    def _straight_through(self) -> Iterator[None]:
        """What waits written now, and every write inside goes to the store as it is made: on
        the connection of its own a released session gives it, or inside the transaction."""
        self.write_waiting()
        self._straight += 1
        try:
            yield
        finally:
            self._straight -= 1

    def fetch(self, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        self.before(sql)
        return self._store.fetch(sql, params)

    def append(self, table: str, rows: Iterable[dict[str, Any]]) -> None:
        self.write_waiting()
        self._store.append(table, rows)

    def replace_partitions(self, doc_ids: Sequence[str], rows_by_table: dict[str, Iterable[dict[str, Any]]],
                           scope: dict[str, dict[str, Any]] | None = None,
                           appends: dict[str, Iterable[dict[str, Any]]] | None = None) -> None:
        self.write_waiting()
        self._store.replace_partitions(doc_ids, rows_by_table, scope, appends)

    def replace_partition(self, doc_id: str, rows_by_table: dict[str, Iterable[dict[str, Any]]],
                          scope: dict[str, dict[str, Any]] | None = None,
                          appends: dict[str, Iterable[dict[str, Any]]] | None = None) -> None:
        appends = appends or {}
        if self._straight:
            self._store.replace_partition(doc_id, rows_by_table, scope, appends)
            return
        shape = _shape(rows_by_table, scope, appends)
        if self._rows >= self._waiting_rows or self._chars >= self._waiting_chars or self._conflicts(shape, doc_id):
            self.write_waiting()
        sources = [("rows", table, rows) for table, rows in rows_by_table.items()]
        sources += [("appends", table, rows) for table, rows in appends.items()]
        drawn: list[list[dict[str, Any]]] = []
        rows_left, chars_left = self._waiting_rows - self._rows, self._waiting_chars - self._chars
        for _, _, source in sources:
            rows, taken = iter(source), []
            drawn.append(taken)
            while some := list(itertools.islice(rows, _DRAWN_AT_ONCE)):
                taken += some
                rows_left -= len(some)
                chars_left -= _text_chars(some)
                if rows_left < 0 or chars_left < 0:  # too much to wait: written as it came, after what waits
                    self.write_waiting()
                    came: dict[str, dict[str, Iterable[dict[str, Any]]]] = {"rows": {}, "appends": {}}
                    last = len(drawn) - 1  # the table being drawn: what is drawn, then the rest
                    for n, (kind, table, untouched) in enumerate(sources):
                        came[kind][table] = (drawn[n] if n < last else itertools.chain(taken, rows) if n == last
                                             else untouched)
                    self._store.replace_partition(doc_id, came["rows"], scope, came["appends"])
                    return
        held: dict[str, dict[str, list[dict[str, Any]]]] = {"rows": {}, "appends": {}}
        for (kind, table, _), rows in zip(sources, drawn):
            held[kind][table] = rows
        self._waiting.setdefault(shape, []).append(_Write(doc_id, held["rows"], held["appends"], scope or {}))
        self._rows = self._waiting_rows - rows_left
        self._chars = self._waiting_chars - chars_left
        self._names = None

    def _conflicts(self, shape: _Shape, doc_id: str) -> bool:
        if any(write.doc_id == doc_id for write in self._waiting.get(shape, ())):
            return True
        tables = {*shape.tables, *shape.appends}
        return any(other != shape and tables & {*other.tables, *other.appends} for other in self._waiting)

    def before(self, sql: str) -> None:
        """Writes what waits when `sql` names one of its tables, unless the statement reads only
        one document's rows (`reading_one_document`) and none of that document's waits."""
        if not self._waiting:
            return
        if self._reading is not None and all(w.doc_id != self._reading for ws in self._waiting.values() for w in ws):
            return
        if self._names is None:
            tables = {t for shape in self._waiting for t in (*shape.tables, *shape.appends)}
            self._names = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(tables))) + r")\b")
        if self._names.search(sql):
            self.write_waiting()

    def write_waiting(self) -> None:
        """Everything waiting written: each shape's documents in one transaction, in the order the
        shapes first waited; a shape whose write fails is written again a document at a time."""
        waiting, self._waiting, self._rows, self._chars, self._names = self._waiting, {}, 0, 0, None
        for writes in waiting.values():
            try:
                self._write(writes)
            except Exception as error:
                if len(writes) == 1:
                    self.failures[writes[0].doc_id] = error
                    continue
                for write in writes:
                    try:
                        self._write([write])
                    except Exception as error:
                        self.failures[write.doc_id] = error

    def _write(self, writes: list[_Write]) -> None:
        first = writes[0]
        self._store.replace_partitions(
            [w.doc_id for w in writes],
            {table: [row for w in writes for row in w.rows[table]] for table in first.rows},
            first.scope,
            {table: [row for w in writes for row in w.appends[table]] for table in first.appends},
        )


@contextmanager
def reading_one_document(store: Store, doc_id: str) -> Iterator[None]:
    """The reads inside ask for `doc_id`'s rows alone (their SQL says `doc_id = ?`), so the other
    documents' writes waiting in a `StepWrites` need not be written for them; nothing for any
    other store."""
    if not isinstance(store, StepWrites):
        yield
        return
    before, store._reading = store._reading, doc_id
    try:
        yield
    finally:
        store._reading = before


class _Watched:
    """A connection whose statements first write what waits when they name a waiting table."""

    def __init__(self, con: Any, writes: StepWrites):
        self._con = con
        self._writes = writes

    def execute(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        self._writes.before(sql)
        return self._con.execute(sql, *args, **kwargs)

    def executemany(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        self._writes.before(sql)
        return self._con.executemany(sql, *args, **kwargs)

    def sql(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        self._writes.before(sql)
        return self._con.sql(sql, *args, **kwargs)

    def cursor(self, *args: Any, **kwargs: Any) -> Any:
        self._writes.write_waiting()  # its statements are not seen here
        return self._con.cursor(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)
