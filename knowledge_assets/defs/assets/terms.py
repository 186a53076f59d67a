"""Assets of the term funnel."""

from contextlib import nullcontext

import dagster as dg

from knowledge_assets.candidates.definition_scorer import committed_scorer_version
from knowledge_assets.defs.assets.batch import failing_the_document, materialize_each, step_store
from knowledge_assets.defs.assets.code_versions import chained_code_version
from knowledge_assets.defs.assets.ingest import parsed_chunks
from knowledge_assets.defs.assets.metadata import preview_table, revision_metadata, store_value, table_metadata
from knowledge_assets.defs.partitions import documents
from knowledge_assets.defs.resources import KnowledgeStore
from knowledge_assets.errors import MissingUpstream
from knowledge_assets.evaluation.term_scores import compression, funnel_gold_scores
from knowledge_assets.store.held import drop_cached_pages, reopen_connection
from knowledge_assets.store.parsed import load_parsed
from knowledge_assets.store.protocol import Store
from knowledge_assets.terms.funnel import FUNNEL_VERSION, TermFunnel, edge_lines_only, run_term_funnel
from knowledge_assets.terms.store import write_terms

_PREVIEW_CLUSTERS = 15
# From this many chunks (about 2.5 MB of text) the document is read, and its rows written, on
# connections closed right after: DuckDB's allocator keeps what a long read or write took until
# the connection closes, beside the funnel's own memory and every later stage's (a 50 MB text:
# ~155 MiB after reading it back, ~100 MiB after writing its million mentions), and its count
# of cached blocks, which `drop_cached_pages` reads, does not see it. A close and an open cost
# ~40 ms, a short document's stage keeps the session's connection (D78).
_LONG_DOCUMENT_CHUNKS = 2_000


def _preview(funnel: TermFunnel) -> dg.MetadataValue:
    return preview_table([{"rank": cluster.rank, "canonical": cluster.canonical, "abbreviation": cluster.abbreviation,
                           "mentions": cluster.mention_count, "surfaces": ", ".join(cluster.surfaces)}
                          for cluster in funnel.clusters], _PREVIEW_CLUSTERS, cell_chars=200)


@dg.asset(
    partitions_def=documents,
    deps=[parsed_chunks],
    group_name="terms",
    kinds={"python", "duckdb"},
    owners=["team:knowledge-assets"],
    backfill_policy=dg.BackfillPolicy.single_run(),
    code_version=chained_code_version(f"term_clusters-{FUNNEL_VERSION}-{committed_scorer_version()}", parsed_chunks),
    metadata=table_metadata("term_clusters"),
    automation_condition=dg.AutomationCondition.eager(),
    description=(
        "The document's candidate terms: every mention (abbreviations and their long forms, "
        "heading and defined terms, capitalised phrases, glosses, formula symbols), the noise "
        "filter's verdict on each, and the clusters of surface variants ranked by mention "
        "count, each with a deterministic canonical and term_id. Tables: term_mentions, "
        "term_clusters."
    ),
)
def term_clusters(context: dg.AssetExecutionContext, knowledge_store: KnowledgeStore):
    store = step_store(context, knowledge_store.open())
    yield from materialize_each(context, lambda doc_id: _cluster(store, doc_id),
                                lambda doc_ids: revision_metadata(store, context, doc_ids), store)


def _cluster(store: Store, doc_id: str) -> dg.MaterializeResult:
    with failing_the_document(MissingUpstream):
        parsed = load_parsed(store, doc_id)
        if parsed is None:
            raise MissingUpstream.parsed_document(doc_id)
    long_document = len(parsed.chunks) >= _LONG_DOCUMENT_CHUNKS
    if long_document:
        reopen_connection(store)
    # A text file's page is the whole file again: only its edge lines are held through the funnel.
    parsed = edge_lines_only(parsed)
    funnel = run_term_funnel(parsed)
    del parsed  # the chunks: not held through the write
    on_its_own_connection = store.released() if long_document else nullcontext()
    with on_its_own_connection:
        write_terms(store, funnel)
    drop_cached_pages(store)
    clusters = len(funnel.clusters)
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": clusters,
            "raw_mentions": funnel.raw_mentions,
            "mentions_after_noise": funnel.mentions_after_noise,
            "clusters": clusters,
            "compression": compression(funnel.mentions_after_noise, clusters),
            **{f"noise_{reason}": count for reason, count in funnel.noise_by_reason().items()},
            **funnel_gold_scores(funnel),
            "table": "term_clusters",
            "database": store_value(store),
            "preview": _preview(funnel),
        }
    )


ASSETS = [term_clusters]
