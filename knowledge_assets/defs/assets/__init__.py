"""Every asset, one module per stage."""

from knowledge_assets.defs.assets import extract, ingest, terms

document_assets = [*ingest.ASSETS, *terms.ASSETS, *extract.ASSETS]
all_assets = document_assets
