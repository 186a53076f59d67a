"""Tables of the review stage: the expert's decisions, and the knowledge they approved."""

TABLES: dict[str, dict[str, str]] = {
    # Append-only: nothing updates or deletes a row, re-extraction included. The latest row per
    # entity is the decision that applies, while its fingerprint matches the current content.
    "knowledge_reviews": {
        "review_id": "VARCHAR NOT NULL",
        "doc_id": "VARCHAR NOT NULL",
        "entity_kind": "VARCHAR NOT NULL",
        # term_id, formula_id, rule_id or domain_id; a key parameter's is its domain's id.
        "entity_id": "VARCHAR NOT NULL",
        # Key parameters only: with entity_id, what identifies one.
        "surface": "VARCHAR",
        "decision": "VARCHAR NOT NULL",
        "edited_payload": "JSON",
        "reviewer": "VARCHAR NOT NULL",
        "reviewed_at": "TIMESTAMP NOT NULL",
        "note": "VARCHAR",
        "fingerprint": "VARCHAR NOT NULL",
        # The content the fingerprint hashes, kept so a later change can be named field by field.
        "reviewed_content": "JSON NOT NULL",
    },
    # Append-only, beside the decisions: which rows of knowledge_reviews one bulk action wrote,
    # so that a batch can be undone whole after the page is left or the server restarts (D88).
    # A table of its own, not a column of knowledge_reviews: a store written before gains it by
    # CREATE TABLE IF NOT EXISTS on either engine, its decisions untouched.
    "review_batches": {
        "batch_id": "VARCHAR NOT NULL",
        "doc_id": "VARCHAR NOT NULL",
        "review_id": "VARCHAR NOT NULL",
    },
    # Replaced per document by the approved_knowledge asset: entries whose latest review is
    # approved (the entity) or edited (the edited payload), as contract JSON.
    "approved_knowledge": {
        "doc_id": "VARCHAR NOT NULL",
        "entity_kind": "VARCHAR NOT NULL",
        "entity_id": "VARCHAR NOT NULL",
        "surface": "VARCHAR",
        "decision": "VARCHAR NOT NULL",
        "review_id": "VARCHAR NOT NULL",
        "reviewer": "VARCHAR NOT NULL",
        "reviewed_at": "TIMESTAMP NOT NULL",
        "payload": "JSON NOT NULL",
    },
}

# The natural key of each table of this stage that has one (store/schema.py, KEYS).
KEYS: dict[str, tuple[str, ...]] = {
    "knowledge_reviews": ("review_id",),
    "review_batches": ("batch_id", "review_id"),
}
