"""Tables of the knowledge assets: one per contract payload, nested fields as real STRUCT/LIST
columns, so `SELECT provenance.page_no FROM glossary` works."""

from knowledge_assets.store.tables import PROVENANCE

TABLES: dict[str, dict[str, str]] = {
    "formulas": {
        "doc_id": "VARCHAR NOT NULL",
        "formula_id": "VARCHAR NOT NULL",
        "name": "VARCHAR",
        "formula_latex": "VARCHAR",
        "variables": "STRUCT(symbol VARCHAR, term_id VARCHAR, meaning VARCHAR)[] NOT NULL",
        "unit": "VARCHAR",
        "latex_verification": "VARCHAR",
        "provenance": f"{PROVENANCE} NOT NULL",
    },
    "glossary": {
        "doc_id": "VARCHAR NOT NULL",
        "term_id": "VARCHAR NOT NULL",
        "term": "VARCHAR NOT NULL",
        "full_name": "VARCHAR",
        "source_wording": "VARCHAR",
        "definition": "VARCHAR",
        "defining_formula_id": "VARCHAR",
        "subdomain_tags": "VARCHAR[] NOT NULL",
        "mention_count": "INTEGER NOT NULL",
        "provenance": f"{PROVENANCE} NOT NULL",
        "extraction_status": "VARCHAR NOT NULL",
        "diff_status": "VARCHAR",
        "definition_conflict": "BOOLEAN NOT NULL",
        "conflict_variants": "VARCHAR[] NOT NULL",
    },
    "rules": {
        "doc_id": "VARCHAR NOT NULL",
        "rule_id": "VARCHAR NOT NULL",
        "rule_type": "VARCHAR NOT NULL",
        "statement": "VARCHAR",
        "condition": "VARCHAR",
        "consequence": "VARCHAR",
        "formula_ids": "VARCHAR[] NOT NULL",
        "term_ids": "VARCHAR[] NOT NULL",
        "provenance": f"{PROVENANCE} NOT NULL",
    },
    "domain_context": {
        "doc_id": "VARCHAR NOT NULL",
        "domain_id": "VARCHAR NOT NULL",
        "title": "VARCHAR",
        "purpose_verbatim": "VARCHAR",
        "outline": "VARCHAR[] NOT NULL",
        "key_parameters": "STRUCT(surface VARCHAR, term_id VARCHAR)[] NOT NULL",
        "subdomains": "VARCHAR[] NOT NULL",
        "n_terms": "INTEGER NOT NULL",
        "n_formulas": "INTEGER NOT NULL",
        "n_rules": "INTEGER NOT NULL",
        "provenance": f"{PROVENANCE} NOT NULL",
    },
    "review_queue": {
        "doc_id": "VARCHAR NOT NULL",
        "rank": "INTEGER NOT NULL",
        "row_kind": "VARCHAR NOT NULL",
        "term_id": "VARCHAR",
        "domain_id": "VARCHAR",
        "term": "VARCHAR NOT NULL",
        "definition": "VARCHAR",
        "source_wording": "VARCHAR",
        "mention_count": "INTEGER NOT NULL",
        "page": "INTEGER",
        "page_no": "INTEGER",
        "section_no": "VARCHAR",
        "span": "VARCHAR NOT NULL",
        "review_reason": "VARCHAR NOT NULL",
    },
    # What the span check caught, per branch; replaced with the branch's partition.
    "rejected_fields": {
        "doc_id": "VARCHAR NOT NULL",
        "branch": "VARCHAR NOT NULL",
        "entry_term": "VARCHAR NOT NULL",
        "field": "VARCHAR NOT NULL",
        "offending_value": "VARCHAR NOT NULL",
        "reason": "VARCHAR NOT NULL",
    },
    # The rows a branch's write kept from an earlier run because this run's model calls for
    # them failed (D58); replaced with the branch's partition, so a healthy run clears them.
    "kept_rows": {
        "doc_id": "VARCHAR NOT NULL",
        "branch": "VARCHAR NOT NULL",
        "entity_id": "VARCHAR NOT NULL",
        "kept_from_run_id": "VARCHAR NOT NULL",
        "kept_from_revision": "INTEGER NOT NULL",
        "run_id": "VARCHAR NOT NULL",
    },
    # Append-only history: every materialised glossary, so the diff stage can compare.
    "glossary_versions": {
        "doc_id": "VARCHAR NOT NULL",
        "run_id": "VARCHAR NOT NULL",
        "created_at": "TIMESTAMP NOT NULL",
        "backend": "VARCHAR NOT NULL",
        "model": "VARCHAR NOT NULL",
        "prompt_hash": "VARCHAR NOT NULL",
        "term_id": "VARCHAR NOT NULL",
        "term": "VARCHAR NOT NULL",
        "definition": "VARCHAR",
    },
}

# The natural key of each table of this stage that has one (store/schema.py, KEYS).
KEYS: dict[str, tuple[str, ...]] = {
    "glossary": ("doc_id", "term_id"),
    "formulas": ("doc_id", "formula_id"),
    "rules": ("doc_id", "rule_id"),
    "domain_context": ("doc_id", "domain_id"),
    "review_queue": ("doc_id", "rank"),
}
