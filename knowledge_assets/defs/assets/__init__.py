"""Every asset, one module per stage."""

from knowledge_assets.defs.assets import evaluation, extract, ingest, review, terms

# Partitioned per document: what one document's run materialises.
document_assets = [*ingest.ASSETS, *terms.ASSETS, *extract.ASSETS, *evaluation.ASSETS]
# Across all documents.
corpus_assets = [*review.ASSETS]
all_assets = [*document_assets, *corpus_assets]
