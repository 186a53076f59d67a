"""Both backends are a `Store`: each has every member the protocol declares, each method taking
the protocol's parameters; and the check names what a backend lacks."""

from __future__ import annotations

import inspect
from contextlib import nullcontext

import pytest

from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.postgres import PostgresStore
from knowledge_assets.store.protocol import Store

MEMBERS = sorted(name for name in {*vars(Store), *Store.__annotations__} if not name.startswith("_"))


def unlike_the_protocol(store: object) -> list[str]:
    """What `store` lacks of the protocol, or takes differently: a missing member, a method whose
    parameters are not the protocol's, a property that is called."""
    found = []
    for name in MEMBERS:
        declared = vars(Store).get(name)
        if not hasattr(store, name):
            found.append(f"{name}: missing")
        elif isinstance(declared, property) and callable(getattr(store, name)):
            found.append(f"{name}: a method, the protocol's is a value")
        elif callable(declared):
            wanted = list(inspect.signature(declared).parameters)[1:]  # without self
            given = list(inspect.signature(getattr(store, name)).parameters)
            if given != wanted:
                found.append(f"{name}: takes {given}, the protocol {wanted}")
    return found


def test_the_protocol_declares_what_callers_call():
    assert MEMBERS == ["append", "cached_page_bytes", "connect", "engine", "fetch", "location", "released",
                       "replace_partition", "replace_partitions", "session", "state_dir", "transaction"]


@pytest.mark.parametrize("backend", [
    pytest.param(lambda tmp_path: DuckDBStore(tmp_path / "k.duckdb"), id="duckdb"),
    # Nothing connects until an operation runs, so no server is needed to see the members.
    pytest.param(lambda tmp_path: PostgresStore("postgresql://someone@127.0.0.1:1/db"), id="postgresql"),
])
def test_each_backend_is_a_store(backend, tmp_path):
    assert unlike_the_protocol(backend(tmp_path)) == []


class _HalfAStore:
    engine = "half"
    location = "nowhere"

    def fetch(self, query, params=None):
        return []

    def connect(self):
        return nullcontext()


def test_a_backend_without_every_member_is_named():
    found = unlike_the_protocol(_HalfAStore())
    assert "state_dir: missing" in found and "append: missing" in found
    assert "fetch: takes ['query', 'params'], the protocol ['sql', 'params']" in found
    assert not any(line.startswith(("engine", "location", "connect")) for line in found)
