"""The shared store: the same tables as the DuckDB file, in a PostgreSQL 15+ database that several
machines write at once (issue 21, D63, D70), through psycopg 3.

It is a `Store` (store/protocol.py), as the DuckDB file is (store/database.py). The store
modules' SQL runs unchanged: the connection `connect()` yields translates DuckDB's `?`
placeholders to psycopg's `%s` (outside quotes; a literal `%` becomes `%%`) and returns
psycopg's cursor, which has DuckDB's `description`, `fetchall`, `fetchone` and `fetchmany`.

Values read back are exactly the Python values DuckDB returns, so contract files are
byte-identical across backends:
- STRUCT and STRUCT[] columns are `json` (not `jsonb`, which reorders keys): each value is
  written as DuckDB would hold it, every declared field present in declared order (None where
  missing), each scalar cast to its declared type, and read back as that JSON;
- VARCHAR[] is `text[]`; JSON columns are `text`, as DuckDB returns them (the text as written);
- DOUBLE is `double precision`, TIMESTAMP `timestamp` (naive, an aware value written in UTC),
  and `numeric` results (`avg`) read back as floats, as DuckDB's doubles do.

Keys: tables whose rows have a natural key get it as a PRIMARY KEY (store/schema.py's `KEYS`,
each declared beside its table in store/tables/), so a duplicate id fails the write instead of
entering the store; append-only history without one (documents, usage, versions) and the llm
cache (stored once by a guarded insert; a rare duplicate under a race is harmless, reads pick
any) get none.

Transactions and waits: connections are in autocommit, so a read never sits idle in a
transaction; a `replace_partition` is DELETE of the document's rows then COPY of the new ones
in one READ COMMITTED transaction, retried (up to `RETRIES` times, with back-off and jitter) on
a serialization failure or a deadlock; `transaction()` holds one for the writes inside (nested
ones become savepoints). Every connection sets `lock_timeout` to the store's `lock_timeout_s`
(a `lock_timeout` in the URL's `options` wins), so a write that cannot get its locks in time
fails with one StoreError line naming the store and the cause.

Sessions: one connection per thread and URL, shared by every PostgresStore of the process on
that URL, until the outermost `session()` ends (a run does some seventy operations; a connect
costs ~20 ms). `released()` keeps it: an idle autocommit connection holds no lock, so a model
call never blocks another writer. Threads (the review server's requests) each get their own.

The URL's password never appears in a message (`redact`). psycopg is imported only here, and
only when a connection is opened (D63).
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

from knowledge_assets.settings import knowledge_home
from knowledge_assets.store.protocol import StoreError
from knowledge_assets.store.redaction import redact
from knowledge_assets.store.rows import (
    DOC_IDS_PER_STATEMENT,
    batched,
    check_row_columns,
    held_or_own,
    in_list,
    row_dicts,
)
from knowledge_assets.store.schema import KEYS, TABLES, struct_fields

RETRIES = 5  # attempts of a replace that meets a serialization failure or a deadlock
CONNECT_TIMEOUT_S = 10
_SCALAR = {"VARCHAR": "text", "INTEGER": "integer", "BIGINT": "bigint", "DOUBLE": "double precision",
           "BOOLEAN": "boolean", "TIMESTAMP": "timestamp", "JSON": "text"}
# Schema changes of several processes starting at once are taken in turn.
_SCHEMA_LOCK = 7_212_021
_READY: set[str] = set()  # URLs whose schema this process has checked
_LOCAL = threading.local()  # .held: URL → the session's connection of this thread


def _held() -> dict[str, _Connection]:
    if not hasattr(_LOCAL, "held"):
        _LOCAL.held = {}
    return _LOCAL.held


class PostgresStore:
    """A PostgreSQL database shared by processes and machines: a `Store` (store/protocol.py)."""

    engine = "PostgreSQL"

    def __init__(self, url: str, lock_timeout_s: float = 180.0):
        self.url = url
        self.lock_timeout_s = lock_timeout_s
        # What messages name: the URL without its password.
        self.location = redact(url)
        # Files derived from the store (the review pages' image cache) live in the knowledge
        # home; `path` is that home's stand-in for code that derives a folder from a file's.
        self.state_dir = knowledge_home()
        self.path = self.state_dir / "shared-store"

    @contextmanager
    def connect(self) -> Iterator[_Connection]:
        with held_or_own(_held().get(self.url), self._open) as con:
            yield con

    @contextmanager
    def session(self) -> Iterator[PostgresStore]:
        """One connection for this thread until the outermost session ends."""
        held = _held()
        if self.url in held:
            yield self
            return
        held[self.url] = self._open()
        try:
            yield self
        finally:
            held.pop(self.url).close()

    @contextmanager
    def released(self) -> Iterator[None]:
        """Nothing to release: an idle connection in autocommit holds no lock (module docstring)."""
        yield

    def cached_page_bytes(self) -> int:
        """0: the pages a query touched are cached by the server, not in this process."""
        return 0

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Every store operation inside, on this thread, in one transaction: all or none. Its
        connection is the thread's for the time inside (as in a session), so the operations
        of any PostgresStore on the URL run in it; a transaction inside one is a savepoint."""
        with self.connect() as con, _holding(self.url, con), con.failures(), con.raw.transaction():
            yield

    def replace_partition(
        self,
        doc_id: str,
        rows_by_table: dict[str, Iterable[dict[str, Any]]],
        scope: dict[str, dict[str, Any]] | None = None,
        appends: dict[str, Iterable[dict[str, Any]]] | None = None,
    ) -> None:
        """Replaces exactly this document's rows in each table, all in one transaction (as
        `DuckDBStore.replace_partition`; `scope` narrows a table's replacement, `appends` adds
        history). The rows may come as generators (a long document's parsed rows do): they are
        taken into lists first, since a retried transaction writes them again."""
        self.replace_partitions([doc_id], rows_by_table, scope, appends)

    def replace_partitions(
        self,
        doc_ids: Sequence[str],
        rows_by_table: dict[str, Iterable[dict[str, Any]]],
        scope: dict[str, dict[str, Any]] | None = None,
        appends: dict[str, Iterable[dict[str, Any]]] | None = None,
    ) -> None:
        """`replace_partition` for several documents in one transaction (as
        `DuckDBStore.replace_partitions`)."""
        rows_by_table = {table: list(rows) for table, rows in rows_by_table.items()}
        appends = {table: list(rows) for table, rows in (appends or {}).items()}
        with self.connect() as con:
            nested = con.in_transaction()
            for attempt in range(1, RETRIES + 1):
                try:
                    with con.failures(), con.raw.transaction():
                        for table, rows in rows_by_table.items():
                            narrow = (scope or {}).get(table, {})
                            for some in batched(doc_ids, DOC_IDS_PER_STATEMENT):
                                where = " AND ".join([in_list("doc_id", len(some), "%s"),
                                                      *(f'"{column}" = %s' for column in narrow)])
                                con.raw.execute(f'DELETE FROM "{table}" WHERE {where}', [*some, *narrow.values()])
                            con.copy(table, rows)
                        for table, rows in appends.items():
                            con.copy(table, rows)
                    return
                except _Retry as retry:
                    if nested or attempt == RETRIES:
                        raise StoreError(f"{self.location}: writing {_named(doc_ids)} failed {attempt} times "
                                         f"({retry.cause})") from None
                    time.sleep(0.05 * 2 ** attempt * (0.5 + random.random()))

    def append(self, table: str, rows: Iterable[dict[str, Any]]) -> None:
        with self.connect() as con, con.failures(), con.raw.transaction():
            con.copy(table, list(rows))

    def fetch(self, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        with self.connect() as con:
            return row_dicts(con.execute(sql, params or []))

    def _open(self) -> _Connection:
        try:
            import psycopg
        except ImportError:
            raise StoreError(f"{self.location}: KNOWLEDGE_STORE names a PostgreSQL store, but psycopg is "
                             'not installed; install the shared-store extra: pip install -e ".[shared]"') from None
        try:
            raw = psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
            if "lock_timeout" in self.url:  # the URL's own `options=-c lock_timeout=…` wins
                lock_wait = raw.execute("SHOW lock_timeout").fetchone()[0]
            else:
                raw.execute(f"SET lock_timeout = {int(self.lock_timeout_s * 1000)}")
                lock_wait = f"{self.lock_timeout_s:g}s"
        except psycopg.Error as exc:
            raise StoreError(f"{self.location}: cannot open the store ({_one_line(exc)})") from None
        _read_numeric_as_float(raw)
        con = _Connection(raw, self, lock_wait)
        if self.url not in _READY:
            try:
                _ensure_schema(con)
            except BaseException:
                con.close()
                raise
            _READY.add(self.url)
        return con


@contextmanager
def _holding(url: str, con: _Connection) -> Iterator[None]:
    """`con` as this thread's connection to `url` for the time inside, unless one is held."""
    held = _held()
    if url in held:
        yield
        return
    held[url] = con
    try:
        yield
    finally:
        held.pop(url, None)


class _Retry(StoreError):
    """A serialization failure or deadlock: a replace tries its transaction again; anywhere
    else it is a StoreError like any other."""

    def __init__(self, location: str, cause: str):
        super().__init__(f"{location}: a concurrent write conflicted ({cause})")
        self.cause = cause


class _Connection:
    """A psycopg connection that runs the store modules' DuckDB-style SQL (module docstring)."""

    def __init__(self, raw: Any, store: PostgresStore, lock_wait: str):
        self.raw, self.store, self.lock_wait = raw, store, lock_wait

    def execute(self, sql: str, params: list[Any] | tuple[Any, ...] | None = None) -> Any:
        with self.failures():
            return self.raw.execute(placeholders(sql), list(params or []))

    def copy(self, table: str, rows: list[dict[str, Any]]) -> None:
        """The rows into `table` by COPY, each value as DuckDB would hold it."""
        if not rows:
            return
        check_row_columns(table, rows)
        columns = TABLES[table]
        names = ", ".join(f'"{c}"' for c in columns)
        with self.raw.cursor().copy(f'COPY "{table}" ({names}) FROM STDIN') as copy:
            copy.set_types([_pg_type(t) for t in columns.values()])
            for row in rows:
                copy.write_row([_held_value(row[c], t) for c, t in columns.items()])

    def in_transaction(self) -> bool:
        from psycopg.pq import TransactionStatus

        return self.raw.info.transaction_status != TransactionStatus.IDLE

    @contextmanager
    def failures(self) -> Iterator[None]:
        """psycopg's errors as this store's, each one StoreError line: a lock not had in time, a
        key broken, a lost server; a serialization failure or deadlock as `_Retry`."""
        import psycopg
        from psycopg import errors

        try:
            yield
        except (errors.SerializationFailure, errors.DeadlockDetected) as exc:
            raise _Retry(self.store.location, _one_line(exc)) from None
        except errors.LockNotAvailable:
            raise StoreError(f"{self.store.location}: could not get the store's locks within "
                             f"{self.lock_wait}: another connection holds them "
                             "(a long transaction, a lock taken by hand); nothing was written") from None
        except psycopg.IntegrityError as exc:
            raise StoreError(f"{self.store.location}: a row breaks a constraint ({_one_line(exc)})") from None
        except psycopg.OperationalError as exc:
            raise StoreError(f"{self.store.location}: the store failed ({_one_line(exc)})") from None

    def close(self) -> None:
        self.raw.close()


def _named(doc_ids: Sequence[str]) -> str:
    """The documents a message names: the first and how many more, never a list of thousands."""
    if len(doc_ids) <= 1:
        return doc_ids[0] if doc_ids else "no document"
    return f"{doc_ids[0]} and {len(doc_ids) - 1} more documents"


def placeholders(sql: str) -> str:
    """DuckDB's `?` placeholders as psycopg's `%s`, outside quoted strings and identifiers; every
    other `%` doubled, so psycopg reads it as a literal percent sign."""
    out, quote = [], ""
    for ch in sql:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "?":
            out.append("%s")
            continue
        out.append("%%" if ch == "%" else ch)
    return "".join(out)


def _pg_type(duck_type: str) -> str:
    plain = duck_type.removesuffix(" NOT NULL")
    if plain.startswith("STRUCT("):
        return "json"
    if plain.endswith("[]"):
        return _pg_type(plain[:-2]) + "[]"
    return _SCALAR[plain]


def _held_value(value: Any, duck_type: str) -> Any:
    """A column's value as psycopg writes it: nested values as DuckDB's JSON text of them."""
    plain = duck_type.removesuffix(" NOT NULL")
    if value is None:
        return None
    if plain.startswith("STRUCT("):
        from psycopg.types.json import Json

        return Json(_as_duckdb_holds(value, plain), dumps=lambda v: json.dumps(v, ensure_ascii=False))
    return _as_duckdb_holds(value, plain)


def _as_duckdb_holds(value: Any, duck_type: str) -> Any:
    """`value` as DuckDB holds a value of `duck_type`: a STRUCT as a dict of every declared field
    in declared order (None where missing), a list element by element, a scalar cast."""
    if value is None:
        return None
    if duck_type.endswith("[]"):
        return [_as_duckdb_holds(item, duck_type[:-2]) for item in value]
    if duck_type.startswith("STRUCT("):
        fields = [field.partition(" ") for field in struct_fields(duck_type)]
        return {name: _as_duckdb_holds(value.get(name), field_type) for name, _, field_type in fields}
    if duck_type == "INTEGER" or duck_type == "BIGINT":
        return int(value)
    if duck_type == "DOUBLE":
        return float(value)
    if duck_type == "TIMESTAMP" and isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(timezone.utc).replace(tzinfo=None)
    return value


def _read_numeric_as_float(raw: Any) -> None:
    """`numeric` results (`avg`, `sum` of a bigint) read back as floats, as DuckDB's doubles."""
    from psycopg.adapt import Loader

    class FloatLoader(Loader):
        def load(self, data: bytes) -> float:
            return float(bytes(data))

    raw.adapters.register_loader("numeric", FloatLoader)


def _ensure_schema(con: _Connection) -> None:
    """Every table of store/schema.TABLES, created when absent, in turn with other processes
    starting at once; a table whose columns differ from this version's is refused."""
    with con.failures(), con.raw.transaction():
        con.raw.execute("SELECT pg_advisory_xact_lock(%s)", [_SCHEMA_LOCK])
        for table in TABLES:
            con.raw.execute(create_statement(table))
        found: dict[str, list[str]] = {}
        for table, column in con.raw.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
        ).fetchall():
            found.setdefault(table, []).append(column)
    for table, columns in TABLES.items():
        if found.get(table, []) != list(columns):
            raise StoreError(f"{con.store.location}: table {table} has columns {found.get(table, [])}, this "
                             f"version expects {list(columns)}; copy the store into a new database")


def create_statement(table: str) -> str:
    """The table's CREATE statement in PostgreSQL's types, with its natural key if it has one."""
    columns = [f'"{name}" {_pg_type(sql_type)}' + _collation(sql_type)
               + (" NOT NULL" if sql_type.endswith(" NOT NULL") else "")
               for name, sql_type in TABLES[table].items()]
    if table in KEYS:
        columns.append("PRIMARY KEY (" + ", ".join(f'"{c}"' for c in KEYS[table]) + ")")
    return f'CREATE TABLE IF NOT EXISTS "{table}" ({", ".join(columns)})'


def _collation(duck_type: str) -> str:
    """Text compared by code point, as DuckDB compares it, whatever the database's locale: the
    store's ORDER BY and its keys then sort and match as in the DuckDB file (a server made with
    a language locale would otherwise put `a` before `B`, and the contract files' order would
    follow the server)."""
    return ' COLLATE "C"' if duck_type.removesuffix(" NOT NULL").removesuffix("[]") == "VARCHAR" else ""


def _one_line(exc: BaseException) -> str:
    return redact(" ".join(str(exc).split()))

