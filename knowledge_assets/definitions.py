"""The single entry point that workspace.yaml and `dagster dev` load."""

import dagster as dg

from knowledge_assets.defs.assets import all_assets
from knowledge_assets.defs.resources import KnowledgeStore

defs = dg.Definitions(
    assets=all_assets,
    resources={"knowledge_store": KnowledgeStore()},
)
