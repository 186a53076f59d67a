import dagster as dg

from knowledge_assets.defs.assets import all_assets, document_assets
from knowledge_assets.defs.checks import CHECKS
from knowledge_assets.defs.executors import chosen_executor
from knowledge_assets.defs.resources import RESOURCES

# Who launched a run of these jobs (`cli`, `reextract_stale`): the failed-run sensor leaves the
# CLI's runs to the CLI, which runs their checks itself.
LAUNCHED_BY_TAG = "knowledge_assets/launched_by"

# Every per-document asset, for one document partition or a range of them: what the sensor, the
# UI and the CLI launch. By default its steps run in one process, one after another: they share
# one DuckDB file (one writer at a time) and are short, so a process per step (the multiprocess
# default) only adds start-up time — 13 processes made a UI run 5x slower than the same work in
# the CLI. On the shared store, KNOWLEDGE_EXECUTOR may spread them (defs/executors.py). The CLI
# executes in its own process whichever is chosen.
EXECUTOR = chosen_executor()
extract_document = dg.define_asset_job(
    "extract_document",
    selection=dg.AssetSelection.assets(*document_assets),
    executor_def=EXECUTOR,
    description="Parse, cluster and extract one document partition, or a range of them in one run.",
)

# Every check alone (none is declared inside its asset), of one document or a range: what
# follows a run that failed for a document, so its checks read what the store holds of it
# (nothing, for a file that never parsed: skipped with the reason) instead of the failed run's
# "execution failed", which Dagster counts against every partition's aggregate (D90).
check_document = dg.define_asset_job(
    "check_document",
    selection=dg.AssetSelection.checks(*CHECKS),
    executor_def=EXECUTOR,
    description="Run the asset checks of one document partition, or a range of them, on what the store holds.",
)

# What runs: the assets, their checks, the job and the resources every run gets. The project's
# definitions (definitions.py) add the sensor and the schedules; the CLI's launcher resolves its
# job from this alone, so it never imports the entry point above it.
RUNNABLE = dg.Definitions(
    assets=all_assets,
    asset_checks=CHECKS,
    jobs=[extract_document, check_document],
    resources=RESOURCES,
    # What the UI's "Materialize" launches runs on the same executor as extract_document.
    executor=EXECUTOR,
)
