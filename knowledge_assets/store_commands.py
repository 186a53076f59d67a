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

from knowledge_assets.errors import KnowledgeError
from knowledge_assets.settings import store_setting
from knowledge_assets.store.backends import is_shared_store, open_store
from knowledge_assets.store.copy import TableCopy, copy_store
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.redaction import redact

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
    setting = store_setting()
    if not is_shared_store(setting) and not Path(setting).is_file():
        raise StoreCommandError(f"{setting}: no store to copy (KNOWLEDGE_STORE or KNOWLEDGE_DB names another file?)")
    shown = shown_target(args.to)
    try:
        with contextlib.ExitStack() as held:
            source = held.enter_context(open_store(setting).session())
            target = open_target(args.to, setting)
            held.enter_context(target.session())
            print(f"copying {source.location} into {shown}")
            report = copy_store(source, target)
    except KnowledgeError as exc:
        raise StoreCommandError(redact(str(exc))) from None
    for table in report.tables:
        print(_table_line(table))
    if not report.matches:
        wrong = ", ".join(table.table for table in report.tables if not table.matches)
        raise StoreCommandError(f"the copy in {shown} does not match the source in {wrong}")
    print(f"copied {report.rows} rows of {report.documents} documents in {len(report.tables)} tables "
          f"into {shown}: every table and document matches")
    return 0


def open_target(target: str, source: str) -> Store:
    """The store TARGET names (`KNOWLEDGE_STORE` syntax): a DuckDB file path, or a
    `postgresql://` URL; never the configured store itself."""
    if is_shared_store(target):
        if target == source:
            raise StoreCommandError(f"{redact(target)}: that is the configured store itself; copy into another")
        return open_store(target)
    if "://" in target:
        raise StoreCommandError(f"{shown_target(target)}: not a DuckDB file path or a postgresql:// URL")
    path = Path(target).resolve()
    if not is_shared_store(source) and path == Path(source).resolve():
        raise StoreCommandError(f"{path}: that is the configured store itself; copy into another file")
    return DuckDBStore(path)


def shown_target(target: str) -> str:
    """TARGET as it may be printed: a path resolved, a URL without its password."""
    return redact(target) if "://" in target else str(Path(target).resolve())


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

