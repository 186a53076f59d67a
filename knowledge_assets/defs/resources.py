import dagster as dg

from knowledge_assets.settings import database_path
from knowledge_assets.store.database import Store


class KnowledgeStore(dg.ConfigurableResource):
    """The DuckDB file every asset writes to.

    Left empty, the path comes from `KNOWLEDGE_DB` (read when a run starts, not at import),
    else `.knowledge/knowledge.duckdb` under the working directory.
    """

    database: str = ""

    def open(self) -> Store:
        return Store(self.database or database_path())
