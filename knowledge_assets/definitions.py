"""The single entry point that workspace.yaml and `dagster dev` load."""

import dagster as dg

# The module, not its Definitions: Dagster loads the one Definitions object at this module's
# scope, and a second one imported by name would be a second.
from knowledge_assets.defs import jobs
from knowledge_assets.defs.schedules import SCHEDULES
from knowledge_assets.defs.sensors import failed_document_checks, new_documents

defs = dg.Definitions.merge(
    jobs.RUNNABLE, dg.Definitions(sensors=[new_documents, failed_document_checks], schedules=SCHEDULES))
