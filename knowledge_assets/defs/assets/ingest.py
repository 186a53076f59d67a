import dagster as dg

from knowledge_assets.defs.assets.batch import failing_the_document, materialize_each, step_store
from knowledge_assets.defs.assets.metadata import preview_table, revision_metadata, store_value, table_metadata
from knowledge_assets.defs.partitions import documents
from knowledge_assets.defs.resources import KnowledgeStore
from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.parse import parser_versions
from knowledge_assets.ingest.stage import PREVIEW_CHUNKS, ParseReport, chunk_size_summary, parse_registered
from knowledge_assets.store.protocol import Store


def _preview(report: ParseReport) -> dg.MetadataValue:
    return preview_table([{"chunk_id": chunk.chunk_id, "page_no": chunk.page_no, "section_no": chunk.section_no,
                           "chars": len(chunk.text), "text": chunk.text} for chunk in report.first_chunks],
                         PREVIEW_CHUNKS, cell_chars=80)


@dg.asset(
    partitions_def=documents,
    group_name="ingest",
    kinds={"python", "duckdb"},
    owners=["team:knowledge-assets"],
    backfill_policy=dg.BackfillPolicy.single_run(),
    code_version=f"parsed_chunks-1;{parser_versions()}",
    metadata=table_metadata("parsed_chunks"),
    description=(
        "The document's text, parsed and cut into section-aware chunks (one section, one page "
        "each), kept verbatim so later stages can check spans against it. Tables: "
        "parsed_documents, parsed_pages, parsed_chunks."
    ),
)
def parsed_chunks(context: dg.AssetExecutionContext, knowledge_store: KnowledgeStore):
    store = step_store(context, knowledge_store.open())
    yield from materialize_each(context, lambda doc_id: _parse(store, doc_id),
                                lambda doc_ids: revision_metadata(store, context, doc_ids), store)


def _parse(store: Store, doc_id: str) -> dg.MaterializeResult:
    with failing_the_document(DocumentError):
        report = parse_registered(store, doc_id)
    header = report.header
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": len(report.chunk_chars),
            "pages": header["page_count"],
            "chunks": len(report.chunk_chars),
            **chunk_size_summary(report),
            "source_file": header["source_file"],
            "content_sha256": header["content_sha256"],
            "parser": f"{header['parser']} {header['parser_version']}",
            "table": "parsed_chunks",
            "database": store_value(store),
            "preview": _preview(report),
        }
    )


ASSETS = [parsed_chunks]
