"""The store a command, a run or the review server uses, from one setting (`KNOWLEDGE_STORE`).

Unset, the DuckDB file (`KNOWLEDGE_DB`, else `<home>/knowledge.duckdb`), exactly as before a
shared store existed; a `postgresql://USER@HOST:PORT/DB` URL, the shared store
(store/postgres.py). psycopg is imported only when a PostgreSQL store connects (D63), so
importing its module here costs a DuckDB user nothing.
"""

from __future__ import annotations

from knowledge_assets.settings import is_shared_store, store_setting
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.postgres import PostgresStore
from knowledge_assets.store.protocol import Store


def open_store(setting: str | None = None, lock_timeout_s: float = 180.0) -> Store:
    """The store `setting` names (a DuckDB file path or a PostgreSQL URL), by default
    `KNOWLEDGE_STORE`'s. A PostgresStore has Store's interface; the annotation names Store,
    which every caller already takes."""
    setting = setting or store_setting()
    if is_shared_store(setting):
        return PostgresStore(setting, lock_timeout_s)  # type: ignore[return-value]
    return DuckDBStore(setting, lock_timeout_s)
