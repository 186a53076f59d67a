"""Every table of the store, with explicit column lists: writes name their columns, so a
column-order change can never shift values into the wrong column; and each table's natural key
(`KEYS`), where its rows have one. The PostgreSQL store declares the keys as PRIMARY KEYs, so a
duplicate id fails the write there (store/postgres.py); the DuckDB file declares none."""

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

KEYS: dict[str, tuple[str, ...]] = {
    **ingest.KEYS,
    **terms.KEYS,
    **llm.KEYS,
    **knowledge.KEYS,
    **review.KEYS,
    **evaluation.KEYS,
    **revisions.KEYS,
}


def create_statement(table: str) -> str:
    columns = ", ".join(f'"{name}" {sql_type}' for name, sql_type in TABLES[table].items())
    return f'CREATE TABLE IF NOT EXISTS "{table}" ({columns})'


def column_list(table: str, *left_out: str, alias: str = "") -> str:
    """The table's columns, quoted (qualified by `alias` when given), in schema order, but those
    `left_out`: what a read names in place of `SELECT *` without them, which not every engine
    can write."""
    qualifier = f"{alias}." if alias else ""
    return ", ".join(f'{qualifier}"{name}"' for name in TABLES[table] if name not in left_out)


def placeholders(n: int) -> str:
    """`?, ?, …` for an `IN (…)` of n values: every engine takes a list this way."""
    return ", ".join(["?"] * n)


def struct_fields(struct: str) -> list[str]:
    """The top-level fields of a `STRUCT(...)` type string, split at depth-0 commas."""
    inner, fields, depth, start = struct[len("STRUCT("):-1], [], 0, 0
    for i, ch in enumerate(inner):
        depth += ch in "(["
        depth -= ch in ")]"
        if ch == "," and depth == 0:
            fields.append(inner[start:i].strip())
            start = i + 1
    fields.append(inner[start:].strip())
    return fields
