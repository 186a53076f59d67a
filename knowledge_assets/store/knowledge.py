"""Contract entities in and out of their tables: a row is the entity's JSON shape plus doc_id."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from knowledge_assets.store.database import Store

Entity = TypeVar("Entity", bound=BaseModel)

ORDER_BY = {
    "formulas": "provenance.chunk_id, formula_id",
    "glossary": "mention_count DESC, term, term_id",
    "rules": "provenance.chunk_id, rule_id",
    "domain_context": "domain_id",
    "review_queue": "rank",
    "rejected_fields": "branch, entry_term, field",
}


def entity_rows(doc_id: str, entities: list[BaseModel]) -> list[dict]:
    return [{"doc_id": doc_id, **entity.model_dump()} for entity in entities]


def load_entities(store: Store, table: str, doc_id: str, model: type[Entity]) -> list[Entity]:
    rows = store.fetch(f'SELECT * EXCLUDE (doc_id) FROM "{table}" WHERE doc_id = ? ORDER BY {ORDER_BY[table]}', [doc_id])
    return [model.model_validate({k: v for k, v in row.items() if v is not None or k in model.model_fields}) for row in rows]
