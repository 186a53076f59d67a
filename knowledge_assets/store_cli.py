"""The `knowledge-assets store` commands:

    store copy --to TARGET    copy the configured store into TARGET, an empty store: a DuckDB
                              file path, or a `postgresql://USER@HOST:PORT/DB` URL (the shared
                              store); then verify it, one line per table and a summary
                              exit 0 when every table and document matches, 1 otherwise

The copy and its proof are store/copy.py's (docs/decisions.md D71). The configured store is
held for the whole copy, so no other process writes it meanwhile: a run started during the
copy waits for it, and says so. A URL's password is never printed, in a line or in an error.
"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path
from urllib.parse import urlsplit

from knowledge_assets.errors import KnowledgeError
from knowledge_assets.settings import database_path
from knowledge_assets.store.copy import TableCopy, copy_store
from knowledge_assets.store.database import Store

_SHARED_SCHEMES = ("postgresql", "postgres")
_TABLE_CHARS = 20


class StoreCommandError(KnowledgeError):
    """A copy that cannot start (no source, a target that is no store) or whose proof failed."""


def add_commands(sub: argparse._SubParsersAction) -> None:
    store = sub.add_parser("store", help="the store itself: copy it into another")
    commands = store.add_subparsers(dest="store_command", required=True)
    copy = commands.add_parser("copy", help="copy the configured store into an empty one and verify the copy")
    copy.add_argument("--to", required=True, metavar="TARGET",
                      help="a DuckDB file path, or a postgresql:// URL (the shared store); it must hold no rows")
    copy.set_defaults(handler=cmd_copy)


def cmd_copy(args: argparse.Namespace) -> int:
    source_path = database_path()
    if not source_path.is_file():
        raise StoreCommandError(f"{source_path}: no store to copy (KNOWLEDGE_DB names another file?)")
    shown = shown_target(args.to)
    try:
        with contextlib.ExitStack() as held:
            source = held.enter_context(Store(source_path).session())
            target = open_target(args.to, source_path)
            held.enter_context(target.session())
            print(f"copying {source_path} into {shown}")
            report = copy_store(source, target)
    except KnowledgeError as exc:
        raise StoreCommandError(_without_password(str(exc), args.to)) from None
    for table in report.tables:
        print(_table_line(table))
    if not report.matches:
        wrong = ", ".join(table.table for table in report.tables if not table.matches)
        raise StoreCommandError(f"the copy in {shown} does not match the source in {wrong}")
    print(f"copied {report.rows} rows of {report.documents} documents in {len(report.tables)} tables "
          f"into {shown}: every table and document matches")
    return 0


def open_target(target: str, source_path: Path) -> Store:
    """The store TARGET names (`KNOWLEDGE_STORE` syntax): a DuckDB file path, or a
    `postgresql://` URL opened by the shared store's `open_store`, where this build has it."""
    scheme = urlsplit(target).scheme
    if scheme in _SHARED_SCHEMES:
        try:
            from knowledge_assets.store.open import open_store
        except ModuleNotFoundError as exc:
            if exc.name != "knowledge_assets.store.open":
                raise
            raise StoreCommandError(f"{shown_target(target)}: the shared store is not available in this build; "
                                    "copy into a DuckDB file path") from None
        return open_store(target)
    if "://" in target:
        raise StoreCommandError(f"{shown_target(target)}: not a DuckDB file path or a postgresql:// URL")
    path = Path(target).resolve()
    if path == source_path.resolve():
        raise StoreCommandError(f"{path}: that is the configured store itself; copy into another file")
    return Store(path)


def shown_target(target: str) -> str:
    """TARGET as it may be printed: a path resolved, a URL without its password."""
    parts = urlsplit(target)
    if parts.scheme in _SHARED_SCHEMES or "://" in target:
        return target if parts.password is None else _without_password(target, target)
    return str(Path(target).resolve())


def _without_password(text: str, target: str) -> str:
    password = urlsplit(target).password if "://" in target else None
    return text.replace(f":{password}@", ":***@").replace(password, "***") if password else text


def _table_line(table: TableCopy) -> str:
    state = "ok"
    if table.mismatched_documents:
        state = "MISMATCH in documents " + ", ".join(table.mismatched_documents)
    elif table.source_rows != table.target_rows or table.source_digest != table.target_digest:
        state = "MISMATCH"
    elif table.source_rows_after != table.source_rows:
        state = f"MISMATCH: the source changed during the copy ({table.source_rows_after} rows now)"
    return (f"{table.table:<{_TABLE_CHARS}} {table.source_rows:>8} rows  {table.target_rows:>8} in the target  "
            f"digest {table.digest}  {state}")

