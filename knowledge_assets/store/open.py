"""The store a command, a run or the review server uses, from one setting (`KNOWLEDGE_STORE`).

Unset, the DuckDB file (`KNOWLEDGE_DB`, else `<home>/knowledge.duckdb`), exactly as before a
shared store existed; a `postgresql://USER@HOST:PORT/DB` URL, the shared store
(store/postgres.py), whose module, and psycopg with it, is imported only then.
"""

from __future__ import annotations

import re

from knowledge_assets.settings import is_shared_store, store_setting
from knowledge_assets.store.database import Store

# `user:password@` in a URL, and `password=…` in a libpq key=value string or a URL's query.
_SECRET = re.compile(r"(?P<keep>[a-z][a-z0-9+.-]*://[^:/@\s]*):[^@\s]*@|(?P<key>password\s*=\s*)[^\s&]+",
                     re.IGNORECASE)


def open_store(setting: str | None = None, lock_timeout_s: float = 180.0) -> Store:
    """The store `setting` names (a DuckDB file path or a PostgreSQL URL), by default
    `KNOWLEDGE_STORE`'s. A PostgresStore has Store's interface; the annotation names Store,
    which every caller already takes."""
    setting = setting or store_setting()
    if is_shared_store(setting):
        from knowledge_assets.store.postgres import PostgresStore

        return PostgresStore(setting, lock_timeout_s)  # type: ignore[return-value]
    return Store(setting, lock_timeout_s)


def redact(text: str) -> str:
    """`text` with every URL password and libpq `password=` value replaced by `***`: what a
    message, an error or metadata may say about a store."""
    return _SECRET.sub(lambda m: f"{m['keep']}:***@" if m["keep"] is not None else f"{m['key']}***", text)
