"""Every table of the store, with explicit column lists: writes name their columns, so a
column-order change can never shift values into the wrong column."""

from __future__ import annotations

from knowledge_assets.store.tables import evaluation, ingest, knowledge, llm, review, revisions, terms

TABLES: dict[str, dict[str, str]] = {
    **ingest.TABLES,
    **terms.TABLES,
    **llm.TABLES,
    **knowledge.TABLES,
    **review.TABLES,
    **evaluation.TABLES,
    **revisions.TABLES,
}


def create_statement(table: str) -> str:
    columns = ", ".join(f'"{name}" {sql_type}' for name, sql_type in TABLES[table].items())
    return f'CREATE TABLE IF NOT EXISTS "{table}" ({columns})'
