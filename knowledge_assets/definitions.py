"""The single entry point that workspace.yaml and `dagster dev` load."""

import dagster as dg

from knowledge_assets.defs.assets import all_assets
from knowledge_assets.defs.checks import CHECKS
from knowledge_assets.defs.jobs import extract_document
from knowledge_assets.defs.llm import KnowledgeLLM
from knowledge_assets.defs.resources import Inbox, KnowledgeStore
from knowledge_assets.defs.schedules import SCHEDULES
from knowledge_assets.defs.sensors import new_documents

defs = dg.Definitions(
    assets=all_assets,
    asset_checks=CHECKS,
    jobs=[extract_document],
    sensors=[new_documents],
    schedules=SCHEDULES,
    resources={"knowledge_store": KnowledgeStore(), "knowledge_llm": KnowledgeLLM(), "inbox": Inbox()},
    # What the UI's "Materialize" launches runs in one process too, as extract_document does:
    # the steps share one DuckDB file, and one run holds one connection and one retry budget.
    executor=dg.in_process_executor,
)
