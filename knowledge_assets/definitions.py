"""The single entry point that workspace.yaml and `dagster dev` load."""

import dagster as dg

from knowledge_assets.defs.jobs import RUNNABLE
from knowledge_assets.defs.schedules import SCHEDULES
from knowledge_assets.defs.sensors import new_documents

defs = dg.Definitions.merge(RUNNABLE, dg.Definitions(sensors=[new_documents], schedules=SCHEDULES))
