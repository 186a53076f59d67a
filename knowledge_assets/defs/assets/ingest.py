import dagster as dg

from knowledge_assets.defs.assets.batch import materialize_each
from knowledge_assets.defs.assets.metadata import revision_metadata, store_value, table_metadata
from knowledge_assets.defs.partitions import documents
from knowledge_assets.defs.resources import KnowledgeStore
from knowledge_assets.ingest.errors import DocumentError
from knowledge_assets.ingest.parse import parser_versions
from knowledge_assets.ingest.stage import chunk_size_summary, parse_registered
from knowledge_assets.store.database import Store

_PREVIEW_CHUNKS = 8


def _preview(parsed) -> str:
    lines = ["| chunk_id | page_no | section_no | chars | text |", "|---|---|---|---|---|"]
    for chunk in parsed.chunks[:_PREVIEW_CHUNKS]:
        text = " ".join(chunk.text.split())[:80].replace("|", "\\|")
        lines.append(f"| {chunk.chunk_id} | {chunk.page_no} | {chunk.section_no or ''} | {len(chunk.text)} | {text} |")
    return "\n".join(lines)


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
    store = knowledge_store.open()
    yield from materialize_each(context, lambda doc_id: _parse(store, doc_id),
                                lambda doc_ids: revision_metadata(store, context, doc_ids))


def _parse(store: Store, doc_id: str) -> dg.MaterializeResult:
    try:
        parsed = parse_registered(store, doc_id)
    except DocumentError as exc:
        # Bad input is the document's fault, not the code's: fail this partition with the
        # cause a user can act on, and do not retry.
        raise dg.Failure(description=str(exc), allow_retries=False) from None
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": len(parsed.chunks),
            "pages": parsed.page_count,
            "chunks": len(parsed.chunks),
            **chunk_size_summary(parsed),
            "source_file": parsed.source_file,
            "content_sha256": parsed.content_sha256,
            "parser": f"{parsed.parser} {parsed.parser_version}",
            "table": "parsed_chunks",
            "database": store_value(store),
            "preview": dg.MetadataValue.md(_preview(parsed)),
        }
    )


ASSETS = [parsed_chunks]
