import dagster as dg

from knowledge_assets.defs.assets import document_assets

# Every per-document asset, for one document partition: what the sensor and users launch.
extract_document = dg.define_asset_job(
    "extract_document",
    selection=dg.AssetSelection.assets(*document_assets),
    description="Parse, cluster and extract one document partition.",
)
