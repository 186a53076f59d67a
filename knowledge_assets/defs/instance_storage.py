"""The storage class's old module path, kept so that a dagster.yaml naming it still loads: a
home's file written before the class moved to `knowledge_assets.instance.storage`, read by
Dagster before the next `knowledge-assets` command rewrites it (`DAGSTER_HOME=.knowledge dg dev`),
or a DAGSTER_HOME of the user's own that names it (docs/decisions.md D100)."""

from knowledge_assets.instance.storage import HeldSqliteStorage

__all__ = ["HeldSqliteStorage"]
