"""Every asset, one module per stage."""

from knowledge_assets.defs.assets import ingest, terms

document_assets = [*ingest.ASSETS, *terms.ASSETS]
all_assets = document_assets
