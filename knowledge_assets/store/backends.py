"""The store a command, a run or the review server uses, from one setting (`KNOWLEDGE_STORE`),
and the one place store backends are registered, by URL scheme.

A setting `SCHEME://…` whose scheme is registered opens that backend: `postgresql://USER@HOST:PORT/DB`
(or libpq's `postgres://…`) the shared store (store/postgres.py). Anything else is a DuckDB file's
path; unset, `KNOWLEDGE_DB`, else `<home>/knowledge.duckdb`, exactly as before a shared store
existed. A third backend is one module whose class is a `Store` (store/protocol.py) and one
`register` line below.

The backends' modules are imported here, not named in strings and imported later: an import
behind `importlib` would hide an edge from the import contracts and the circle test. So a
backend's module must be cheap to import and load its driver only when a store connects, as
store/postgres.py does with psycopg (D63): importing it costs a DuckDB user ~3 ms and no psycopg.
"""

from __future__ import annotations

from collections.abc import Callable

from knowledge_assets.settings import store_setting
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.postgres import PostgresStore
from knowledge_assets.store.protocol import Store

# What opens a store: its class, or any callable taking the setting and the lock timeout (s).
Backend = Callable[[str, float], Store]

# Each registered URL scheme (without `://`) and the backend its settings open.
BACKENDS: dict[str, Backend] = {}


def register(scheme: str, backend: Backend) -> None:
    """Settings `scheme://…` open `backend` from now on."""
    BACKENDS[scheme] = backend


register("postgresql", PostgresStore)
register("postgres", PostgresStore)


def _registered(setting: str) -> Backend | None:
    scheme, separator, _ = setting.partition("://")
    return BACKENDS.get(scheme) if separator else None


def is_shared_store(setting: str) -> bool:
    """True when the setting is a URL of a registered backend (a store on a server, which several
    machines may share and which is in no folder); False for a DuckDB file's path."""
    return _registered(setting) is not None


def open_store(setting: str | None = None, lock_timeout_s: float = 180.0) -> Store:
    """The store `setting` names (a registered backend's URL, else a DuckDB file path), by default
    `KNOWLEDGE_STORE`'s."""
    setting = setting or store_setting()
    backend = _registered(setting) or DuckDBStore
    return backend(setting, lock_timeout_s)
