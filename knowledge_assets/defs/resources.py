from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg

from knowledge_assets.defs.llm import KnowledgeLLM
from knowledge_assets.settings import inbox_path
from knowledge_assets.store.backends import open_store
from knowledge_assets.store.protocol import Store


class KnowledgeStore(dg.ConfigurableResource):
    """The store every asset writes to: a DuckDB file path or a PostgreSQL URL.

    Left empty, it comes from `KNOWLEDGE_STORE` (read when a run starts, not at import): unset,
    the DuckDB file of `KNOWLEDGE_DB`, else `knowledge.duckdb` in the project's home
    (`KNOWLEDGE_HOME`, default `.knowledge/` at the project root), the folder that also holds
    the Dagster instance; a `postgresql://` URL, the shared store (store/postgres.py).

    A run keeps one connection to the file (`Store.session`): opening it costs tens of
    milliseconds and a document run does some seventy store operations. The session is
    released while a stage asks the model (`Store.released`, in the extractor), so the file is
    locked only for a stage's reads and writes and its model-free compute: another run or a
    review page waits seconds, not the run's length. `hold_connection: false` goes back to
    one connection per operation. Sensor and schedule ticks (no run) keep one connection per
    operation, so a tick never waits on its own lock.
    """

    database: str = ""
    hold_connection: bool = True

    def open(self) -> Store:
        return open_store(self.database or None)

    @contextmanager
    def yield_for_execution(self, context: dg.InitResourceContext) -> Iterator["KnowledgeStore"]:
        if not self.hold_connection or context.run is None:
            yield self
            return
        with self.open().session():
            yield self


class Inbox(dg.ConfigurableResource):
    """The folder the new-document sensor watches; empty means `KNOWLEDGE_INBOX`, else `inbox/`
    at the project root."""

    path: str = ""
    max_runs_per_tick: int = 10

    def folder(self) -> Path:
        return Path(self.path) if self.path else inbox_path()


# The resources every run gets, under the names the assets, checks and sensor ask for: the
# definitions the UI loads and the CLI's launcher both use this one mapping.
RESOURCES = {"knowledge_store": KnowledgeStore(), "knowledge_llm": KnowledgeLLM(), "inbox": Inbox()}
