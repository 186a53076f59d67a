"""Every asset, one module per stage."""

from knowledge_assets.defs.assets import ingest, terms

all_assets = [*ingest.ASSETS, *terms.ASSETS]
