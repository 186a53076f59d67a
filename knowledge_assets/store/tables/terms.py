"""Tables of the terms stage."""

from knowledge_assets.store.tables import PROVENANCE

TABLES: dict[str, dict[str, str]] = {
    # Every raw mention; a dropped one names its noise reason, a kept one its cluster.
    "term_mentions": {
        "doc_id": "VARCHAR NOT NULL",
        "chunk_id": "VARCHAR NOT NULL",
        "char_start": "INTEGER NOT NULL",
        "char_end": "INTEGER NOT NULL",
        "surface": "VARCHAR NOT NULL",
        "kind": "VARCHAR NOT NULL",
        "noise": "VARCHAR",
        "term_id": "VARCHAR",
    },
    # Every definition candidate the term stage found, in document order, as JSON: the glossary
    # reads them rather than finding them again.
    "definition_candidates": {
        "doc_id": "VARCHAR NOT NULL",
        "position": "INTEGER NOT NULL",
        "candidate": "VARCHAR NOT NULL",
    },
    "term_clusters": {
        "doc_id": "VARCHAR NOT NULL",
        "term_id": "VARCHAR NOT NULL",
        "canonical": "VARCHAR NOT NULL",
        "abbreviation": "VARCHAR",
        "long_forms": "VARCHAR[] NOT NULL",
        "surfaces": "VARCHAR[] NOT NULL",
        "mention_count": "INTEGER NOT NULL",
        "rank": "INTEGER NOT NULL",
        "provenance": f"{PROVENANCE} NOT NULL",
    },
}

# The natural key of each table of this stage that has one (store/schema.py, KEYS).
KEYS: dict[str, tuple[str, ...]] = {
    "definition_candidates": ("doc_id", "position"),
    "term_clusters": ("doc_id", "term_id"),
}
