"""A step's documents written together: a store (the `Store` protocol) whose `replace_partition`
calls wait and go to the store in one `replace_partitions` per shape of write, so a folder run's
step writes its hundred small documents in a few transactions and statements instead of one
transaction per document and a statement per table of each (docs/decisions.md D109: a write's
statements cost about a millisecond each whatever their rows, 22 % of a 100-document run).

What is waiting is never missed by a read. A read is SQL, and SQL names its tables: before any
statement on a connection this store gives (`connect`, `fetch`) whose text names a table with
rows waiting, everything waiting is written. Any other write (`append`, `replace_partitions`, a
`transaction`) and a `released` session write it first too, so the order of writes is the
callers' and nothing waits while the file is let go (a model call). A write of a shape other
than those waiting that shares a table with them, or a second write of a document already
waiting in its shape, writes what waits first, so each table's writes keep their order.

Rows are drawn when `replace_partition` is called, in the order the store would draw them (each
table's to its end before the next one's), so what a caller gathers while they are drawn
(`write_branch`'s rejections and marks, `write_parsed`'s header) is complete when the call
returns, as before. At most `WAITING_ROWS` rows wait: a write that would pass it (a long
document's chunks) first writes what waits, then goes to the store as it came, its rows still
drawn as they are written.

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
from typing import Any

from knowledge_assets.store.protocol import Store

# Rows that may wait at once: a hundred one-page documents' chunks, terms and entities are a
# few thousand; a long document's chunks (about 1,500 characters each) pass it and are written
# as they come, never held.
WAITING_ROWS = 10_000


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

    def __init__(self, store: Store, waiting_rows: int = WAITING_ROWS):
        self._store = store
        self._waiting_rows = waiting_rows
        self._waiting: dict[_Shape, list[_Write]] = {}
        self._rows = 0
        self._names: re.Pattern[str] | None = None
        self._released = 0
        self._reading: str | None = None
        self.failures: dict[str, Exception] = {}

    @property
    def engine(self) -> str:
        return self._store.engine

    @property
    def location(self) -> str:
        return self._store.location

    @property
    def state_dir(self):
        return self._store.state_dir

    def session(self):
        return self._store.session()

    def cached_page_bytes(self) -> int:
        return self._store.cached_page_bytes()

    @contextmanager
    def connect(self) -> Iterator[Any]:
        with self._store.connect() as con:
            yield _Watched(con, self)

    @contextmanager
    def released(self) -> Iterator[None]:
        self.write_waiting()
        self._released += 1
        try:
            with self._store.released():
                yield
        finally:
            self._released -= 1

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.write_waiting()
        with self._store.transaction():
            yield

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
        if self._released:  # written on its own connection, as the caller asked
            self._store.replace_partition(doc_id, rows_by_table, scope, appends)
            return
        shape = _shape(rows_by_table, scope, appends)
        if self._rows >= self._waiting_rows or self._conflicts(shape, doc_id):
            self.write_waiting()
        sources = [("rows", table, rows) for table, rows in rows_by_table.items()]
        sources += [("appends", table, rows) for table, rows in appends.items()]
        drawn: list[list[dict[str, Any]]] = []
        budget = self._waiting_rows - self._rows
        for _, _, rows in sources:
            rows = iter(rows)
            drawn.append(list(itertools.islice(rows, budget + 1)))
            budget -= len(drawn[-1])
            if budget < 0:  # too many to wait: what waits is written, then this write as it came
                self.write_waiting()
                came: dict[str, dict[str, Iterable[dict[str, Any]]]] = {"rows": {}, "appends": {}}
                for n, (kind, table, source) in enumerate(sources):
                    last = len(drawn) - 1
                    came[kind][table] = drawn[n] if n < last else itertools.chain(drawn[n], rows) if n == last \
                        else source
                self._store.replace_partition(doc_id, came["rows"], scope, came["appends"])
                return
        taken: dict[str, dict[str, list[dict[str, Any]]]] = {"rows": {}, "appends": {}}
        for (kind, table, _), rows in zip(sources, drawn):
            taken[kind][table] = rows
        self._waiting.setdefault(shape, []).append(_Write(doc_id, taken["rows"], taken["appends"], scope or {}))
        self._rows += sum(map(len, drawn))
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
        waiting, self._waiting, self._rows, self._names = self._waiting, {}, 0, None
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
    store._reading = doc_id
    try:
        yield
    finally:
        store._reading = None


class _Watched:
    """A connection whose statements first write what waits when they name a waiting table."""

    def __init__(self, con: Any, writes: StepWrites):
        self._con = con
        self._writes = writes

    def execute(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        self._writes.before(sql)
        return self._con.execute(sql, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)
