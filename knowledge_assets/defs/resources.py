import dagster as dg

from pathlib import Path

from knowledge_assets.settings import database_path, inbox_path
from knowledge_assets.store.database import Store


class KnowledgeStore(dg.ConfigurableResource):
    """The DuckDB file every asset writes to.

    Left empty, the path comes from `KNOWLEDGE_DB` (read when a run starts, not at import),
    else `knowledge.duckdb` in the project's home (`KNOWLEDGE_HOME`, default `.knowledge/` at
    the project root), the folder that also holds the Dagster instance.
    """

    database: str = ""

    def open(self) -> Store:
        return Store(self.database or database_path())


class Inbox(dg.ConfigurableResource):
    """The folder the new-document sensor watches; empty means `KNOWLEDGE_INBOX`, else `inbox/`
    at the project root."""

    path: str = ""
    max_runs_per_tick: int = 10

    def folder(self) -> Path:
        return Path(self.path) if self.path else inbox_path()
