import dagster as dg

from knowledge_assets.defs.assets import document_assets

# Every per-document asset, for one document partition: what the sensor, the UI and the CLI
# launch. Its steps run in one process, one after another: they share one DuckDB file (one
# writer at a time) and are short, so a process per step (the multiprocess default) only adds
# start-up time — 13 processes made a UI run 5x slower than the same work in the CLI.
extract_document = dg.define_asset_job(
    "extract_document",
    selection=dg.AssetSelection.assets(*document_assets),
    executor_def=dg.in_process_executor,
    description="Parse, cluster and extract one document partition.",
)
