"""A store is found by its setting's URL scheme: a registered scheme opens its backend, a third
backend included once it registers; anything else is a DuckDB file's path."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge_assets.store import backends
from knowledge_assets.store.backends import is_shared_store, open_store, register
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.postgres import PostgresStore


class _MemoryStore:
    """A third backend, as small as a test needs: what it was opened with."""

    engine = "memory"

    def __init__(self, setting: str, lock_timeout_s: float):
        self.setting, self.lock_timeout_s = setting, lock_timeout_s


@pytest.fixture(autouse=True)
def _own_registry(monkeypatch):
    """Registrations made by a test end with it."""
    monkeypatch.setattr(backends, "BACKENDS", dict(backends.BACKENDS))


def test_a_third_backend_registered_by_its_scheme_is_found():
    register("memtest", _MemoryStore)
    store = open_store("memtest://somewhere/x", lock_timeout_s=5)
    assert isinstance(store, _MemoryStore)
    assert (store.setting, store.lock_timeout_s) == ("memtest://somewhere/x", 5)
    assert is_shared_store("memtest://somewhere/x")


def test_an_unregistered_scheme_and_a_path_are_duckdb_files(tmp_path):
    for setting in ("memtest://somewhere/x", str(tmp_path / "k.duckdb"), "k.duckdb"):
        store = open_store(setting)
        assert type(store) is DuckDBStore and store.path == Path(setting)
        assert not is_shared_store(setting)


@pytest.mark.parametrize("url", ["postgresql://u@h:5432/db", "postgres://u@h/db"])
def test_postgresql_urls_open_the_shared_store(url):
    assert isinstance(open_store(url), PostgresStore) and is_shared_store(url)


@pytest.mark.parametrize("setting", ["postgresqlx://u@h/db", "xpostgresql://u@h/db", "postgresql:/u@h/db",
                                     "/data/postgresql://x"])
def test_only_a_whole_registered_scheme_before_the_separator_counts(setting):
    assert not is_shared_store(setting) and type(open_store(setting)) is DuckDBStore
