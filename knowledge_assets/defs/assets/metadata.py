"""Metadata a user reads in the UI beside every materialisation: the table's column schema
(taken from the store's own table declarations, so it cannot drift from what is written), the
links between entities by id, read back from the table just written, and the names a person
knows the document by beside its doc_id (file name, title once located, revision)."""

from collections.abc import Callable, Sequence

import dagster as dg

from knowledge_assets.branches import BranchTable
from knowledge_assets.store.knowledge import documents_rows
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.registry import document_titles, latest_sources
from knowledge_assets.store.revisions import record_revisions
from knowledge_assets.store.rows import batched
from knowledge_assets.store.schema import TABLES

_SHOWN_LINKS = 12
_NOT_NULL = " NOT NULL"


def preview_table(rows: Sequence[dict], limit: int, cell_chars: int = 90) -> dg.MetadataValue:
    """The first `limit` rows as a Markdown table, the columns of the first row, each cell on
    one line and cut to `cell_chars`: what the UI shows of a materialisation's rows."""
    if not rows:
        return dg.MetadataValue.md("_no rows_")
    columns = list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows[:limit]:
        cells = ("" if row[c] is None else " ".join(str(row[c]).split())[:cell_chars].replace("|", "\\|")
                 for c in columns)
        lines.append("| " + " | ".join(cells) + " |")
    return dg.MetadataValue.md("\n".join(lines))


def column_schema(table: str) -> dg.TableSchema:
    columns = []
    for name, sql_type in TABLES[table].items():
        nullable = not sql_type.endswith(_NOT_NULL)
        columns.append(dg.TableColumn(
            name, sql_type.removesuffix(_NOT_NULL), constraints=dg.TableColumnConstraints(nullable=nullable),
        ))
    return dg.TableSchema(columns=columns)


def table_metadata(table: str) -> dict[str, object]:
    """Definition metadata: shown on the asset's page before anything is materialised."""
    return {"dagster/table_name": table, "dagster/column_schema": column_schema(table)}


Row = dict[str, object]

# Per table: the entity's id column and the ids it links to (contract §10), the branches' from
# the registry; a queue row links to the term or the domain it asks about.
ENTITY_LINKS: BranchTable[tuple[str, Callable[[Row], list[str]]]] = BranchTable(
    lambda spec: spec.table, lambda spec: (spec.id_field, spec.linked_ids),
    extra={"review_queue": ("rank", lambda r: [r["term_id"] or r["domain_id"]])},
)


def entity_links(store: Store, table: str, doc_ids: Sequence[str]) -> dict[str, dict[str, object]]:
    """Each document's count of entities that link to another one, and a Markdown table of the
    first links, read back from the rows stored: for the documents a step materialised, once all
    are written, `_LINKS_READ` documents a read (a read per document cost a folder run ~2 ms
    each; a group bounds what is held at once, as the checks' reads do)."""
    id_column, linked = ENTITY_LINKS[table]
    found: dict[str, dict[str, object]] = {}
    for some in batched(doc_ids, _LINKS_READ):
        rows_of = documents_rows(store, table, some)
        for doc_id in some:
            rows = sorted(rows_of.get(doc_id, []), key=lambda row: row[id_column])
            links = [(row[id_column], targets) for row in rows if (targets := linked(row))]
            lines = [f"| {id_column} | links to |", "|---|---|"]
            lines += [f"| {entity} | {', '.join(targets)} |" for entity, targets in links[:_SHOWN_LINKS]]
            found[doc_id] = {"linked_entities": len(links), "links": dg.MetadataValue.md("\n".join(lines))}
    return found


_LINKS_READ = 20


def document_names_of(store: Store, doc_ids: Sequence[str]) -> dict[str, dict[str, object]]:
    """Each document's doc_id, the file it was registered from and the title its domain context
    located (once extracted; the latest extraction's): a partition key is a hash a person cannot
    read. Read for all the documents at once."""
    sources, titles = latest_sources(store, doc_ids), document_titles(store, doc_ids)
    names: dict[str, dict[str, object]] = {}
    for doc_id in doc_ids:
        names[doc_id] = {"doc_id": doc_id}
        if doc_id in sources:
            names[doc_id]["file_name"] = sources[doc_id][0].path.name
        if title := titles.get(doc_id):
            names[doc_id]["title"] = title
    return names


def revision_metadata(store: Store, context: dg.AssetExecutionContext, doc_ids: Sequence[str]) -> dict[str, dict]:
    """Each document's names, and which revision of it this materialisation was derived from,
    recorded in the store too (for the consistency check and export): for the documents a
    step materialised, once all of them are written (`batch.materialize_each`'s `finish`)."""
    revisions = record_revisions(store, doc_ids, context.asset_key.to_user_string(), context.run.run_id)
    return {doc_id: names | ({"document_revision": revisions[doc_id]} if doc_id in revisions else {})
            for doc_id, names in document_names_of(store, doc_ids).items()}


def store_value(store: Store) -> dg.MetadataValue:
    """Where the rows are: the DuckDB file as a path, the shared store as its URL, password masked."""
    return dg.MetadataValue.path(store.location) if store.engine == "DuckDB" else dg.MetadataValue.text(store.location)
