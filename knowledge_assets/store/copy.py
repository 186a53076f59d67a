"""Copying one store into another, then proving the copy (`knowledge-assets store copy`, D71).

`copy_store(source, target)` copies every table of the schema (store/schema.py), the experts'
decisions and the audit trail included, through the store interface alone (`fetch`,
`replace_partition`, `append`), so either side may be the DuckDB file or the shared store:

- **Into an empty store only.** A target that holds any row is refused, the tables that hold
  rows named: merging two stores' histories, or deleting a store's decisions to make room, is
  not a copy, and a user who means it removes the target first.
- **A document at a time.** Each document's rows, every table with a `doc_id`, are read and
  written in one `replace_partition` (one transaction on the target), then read back and
  compared; a table without one (`llm_cache`) goes in pages of `PAGE_ROWS`. Memory holds one
  document's rows, never the store's.
- **Verified by content, not only by count.** Each row is reduced to a canonical text (columns
  in the schema's order, JSON parsed, timestamps in UTC) and hashed; a table's digest is the
  sum of its rows' hashes modulo 2**256, which needs no order and no sort, so the backends'
  different orderings of text do not matter and the digest streams. Counts and digests are
  compared per table and per document; at the end the source's count per table is read again,
  so rows added or removed meanwhile show as a mismatch.

The caller decides how the source is held: the CLI holds the DuckDB file in one session for the
whole copy, so no other process writes it meanwhile (one consistent state).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from knowledge_assets.store.protocol import Store, StoreError
from knowledge_assets.store.removal import document_tables
from knowledge_assets.store.schema import TABLES

PAGE_ROWS = 5000
_DIGEST_MODULUS = 2**256
_JSON_TYPES = ("JSON", "JSON NOT NULL")


class TargetNotEmpty(StoreError):
    """The store to copy into already holds rows; the message names the tables."""


@dataclass
class TableCopy:
    """One table's rows as read from the source and as read back from the target."""

    table: str
    source_rows: int = 0
    target_rows: int = 0
    source_digest: int = 0
    target_digest: int = 0
    # Rows counted in the source once the copy ended (a write meanwhile shows here).
    source_rows_after: int = 0
    mismatched_documents: list[str] = field(default_factory=list)

    @property
    def matches(self) -> bool:
        return (self.source_rows == self.target_rows == self.source_rows_after
                and self.source_digest == self.target_digest and not self.mismatched_documents)

    @property
    def digest(self) -> str:
        """The source's digest, short enough for a line (the full sum is compared)."""
        return f"{self.source_digest:064x}"[:16]


@dataclass(frozen=True)
class CopyReport:
    tables: list[TableCopy]
    documents: int

    @property
    def matches(self) -> bool:
        return all(table.matches for table in self.tables)

    @property
    def rows(self) -> int:
        return sum(table.source_rows for table in self.tables)


def tables_with_rows(store: Store) -> dict[str, int]:
    """Table → row count, for the tables of the schema that hold any row."""
    counts = {table: _count(store, table) for table in TABLES}
    return {table: n for table, n in counts.items() if n}


def copy_store(source: Store, target: Store, page_rows: int = PAGE_ROWS) -> CopyReport:
    """Copies every row of `source` into the empty `target` and verifies it (module docstring),
    a table without a doc_id `page_rows` rows at a time; raises TargetNotEmpty, naming the
    tables, when `target` holds any row."""
    if held := tables_with_rows(target):
        named = ", ".join(f"{table} ({n} rows)" for table, n in held.items())
        raise TargetNotEmpty(f"the target store is not empty: {named}; copy into a new file or an empty database")
    copies = {table: TableCopy(table) for table in TABLES}
    doc_ids = _document_ids(source)
    for doc_id in doc_ids:
        _copy_document(source, target, doc_id, copies)
    for table in TABLES:
        if table not in document_tables(with_decisions=True):
            _copy_pages(source, target, copies[table], page_rows)
    for table in TABLES:
        copies[table].source_rows_after = _count(source, table)
    return CopyReport(tables=list(copies.values()), documents=len(doc_ids))


def _copy_document(source: Store, target: Store, doc_id: str, copies: dict[str, TableCopy]) -> None:
    tables = document_tables(with_decisions=True)
    rows = {table: _document_rows(source, table, doc_id) for table in tables}
    target.replace_partition(doc_id, {table: [_as_written(table, row) for row in found]
                                      for table, found in rows.items() if found})
    for table in tables:
        copied = copies[table]
        read_back = _document_rows(target, table, doc_id)
        sent, got = rows_digest(table, rows[table]), rows_digest(table, read_back)
        copied.source_rows += len(rows[table])
        copied.target_rows += len(read_back)
        copied.source_digest = (copied.source_digest + sent) % _DIGEST_MODULUS
        copied.target_digest = (copied.target_digest + got) % _DIGEST_MODULUS
        if (len(rows[table]), sent) != (len(read_back), got):
            copied.mismatched_documents.append(doc_id)


def _copy_pages(source: Store, target: Store, copied: TableCopy, page_rows: int) -> None:
    """A table without a doc_id, a page at a time; read back the same way once written."""
    for page in _pages(source, copied.table, page_rows):
        target.append(copied.table, [_as_written(copied.table, row) for row in page])
        copied.source_rows += len(page)
        copied.source_digest = (copied.source_digest + rows_digest(copied.table, page)) % _DIGEST_MODULUS
    for page in _pages(target, copied.table, page_rows):
        copied.target_rows += len(page)
        copied.target_digest = (copied.target_digest + rows_digest(copied.table, page)) % _DIGEST_MODULUS


def _pages(store: Store, table: str, page_rows: int) -> Iterator[list[dict[str, Any]]]:
    # Ordered by every column, so each page follows from the last on a store nobody writes.
    order = ", ".join(f'"{column}"' for column in TABLES[table])
    offset = 0
    while page := store.fetch(f'SELECT * FROM "{table}" ORDER BY {order} LIMIT ? OFFSET ?', [page_rows, offset]):
        yield page
        offset += len(page)


def _document_ids(store: Store) -> list[str]:
    found: set[str] = set()
    for table in document_tables(with_decisions=True):
        found.update(row["doc_id"] for row in store.fetch(f'SELECT DISTINCT doc_id FROM "{table}"'))
    return sorted(found)


def _document_rows(store: Store, table: str, doc_id: str) -> list[dict[str, Any]]:
    return store.fetch(f'SELECT * FROM "{table}" WHERE doc_id = ?', [doc_id])


def _count(store: Store, table: str) -> int:
    return int(store.fetch(f'SELECT count(*) AS n FROM "{table}"')[0]["n"])


def _as_written(table: str, row: dict[str, Any]) -> dict[str, Any]:
    """The row as the store's writes take it: the schema's columns, a JSON column as JSON text
    (one backend reads it back as text, another as the parsed value)."""
    return {column: json.dumps(row[column], ensure_ascii=False)
            if sql_type in _JSON_TYPES and row[column] is not None and not isinstance(row[column], str)
            else row[column]
            for column, sql_type in TABLES[table].items()}


def rows_digest(table: str, rows: list[dict[str, Any]]) -> int:
    """The sum of the rows' hashes modulo 2**256 (module docstring): the same for the same rows
    in any order, whichever backend read them."""
    total = 0
    for row in rows:
        canonical = json.dumps([_canonical(row[column], sql_type) for column, sql_type in TABLES[table].items()],
                               sort_keys=True, ensure_ascii=False, default=_canonical_scalar)
        total += int.from_bytes(hashlib.sha256(canonical.encode("utf-8")).digest(), "big")
    return total % _DIGEST_MODULUS


def _canonical(value: Any, sql_type: str) -> Any:
    if sql_type in _JSON_TYPES and isinstance(value, str):
        return json.loads(value)
    return value


def _canonical_scalar(value: Any) -> str:
    """What json cannot write itself: a timestamp, as UTC without a zone (the schema's TIMESTAMP
    has none; a backend that returns zoned values means UTC)."""
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(timezone.utc).replace(tzinfo=None)
        return value.isoformat()
    raise TypeError(f"a stored value of type {type(value).__name__} has no canonical text")
