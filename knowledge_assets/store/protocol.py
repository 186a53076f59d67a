"""What a store is: the calls every caller makes on one, whichever engine holds the tables.

Two backends implement it: the DuckDB file (store/database.py, `DuckDBStore`) and the PostgreSQL
database several machines share (store/postgres.py, `PostgresStore`); store/backends.py opens
the one a setting names. Callers name `Store`, never a backend's class, so a third backend is a
module and a registration line, not an edit of every caller (issue 32).

The store modules' SQL is written once for every engine (D64): the connection `connect()`
yields runs DuckDB's SQL with `?` placeholders and returns a cursor with `description`,
`fetchall`, `fetchone` and `fetchmany`. Every expected failure of a store is a StoreError.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol, Self

from knowledge_assets.errors import KnowledgeError


class StoreError(KnowledgeError):
    """The store cannot be opened or used (held by another process, damaged); the message says which."""


class Store(Protocol):
    @property
    def engine(self) -> str:
        """The engine's name, shown beside `location` ("DuckDB", "PostgreSQL")."""

    @property
    def location(self) -> str:
        """What messages name: the file, or the URL without its password."""

    @property
    def state_dir(self) -> Path:
        """Where files derived from the store live (the review pages' image cache)."""

    def connect(self) -> AbstractContextManager[Any]:
        """The session's connection when one is held, else one of the operation's own."""

    def session(self) -> AbstractContextManager[Self]:
        """One connection for this thread's operations until the outermost session ends (a run,
        a command): an operation then costs no connect."""

    def released(self) -> AbstractContextManager[None]:
        """The session's hold on the store let go for the time inside (a model call, seconds to
        minutes), so another process may read or write meanwhile."""

    def cached_page_bytes(self) -> int:
        """What the session's connection holds cached in this process (0 when nothing is)."""

    def transaction(self) -> AbstractContextManager[None]:
        """The operations inside, on this thread, all or none."""

    def replace_partition(
        self,
        doc_id: str,
        rows_by_table: dict[str, Iterable[dict[str, Any]]],
        scope: dict[str, dict[str, Any]] | None = None,
        appends: dict[str, Iterable[dict[str, Any]]] | None = None,
    ) -> None:
        """Exactly this document's rows in each table replaced, in one transaction; `scope`
        narrows a table's replacement, `appends` adds history rows in the same transaction.
        The tables' rows are drawn in `rows_by_table`'s order, each table's to its end before the
        next one's: `store.parsed.write_parsed`'s header counts the chunks taken before it, and
        `write_branch`'s kept marks are complete once its entities are drawn."""

    def replace_partitions(
        self,
        doc_ids: Sequence[str],
        rows_by_table: dict[str, Iterable[dict[str, Any]]],
        scope: dict[str, dict[str, Any]] | None = None,
        appends: dict[str, Iterable[dict[str, Any]]] | None = None,
    ) -> None:
        """`replace_partition` for several documents in one transaction."""

    def append(self, table: str, rows: Iterable[dict[str, Any]]) -> None:
        """The rows added to `table`."""

    def fetch(self, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        """The rows of `sql` as dicts by column name."""
