"""Tables of the evaluation stage."""

TABLES: dict[str, dict[str, str]] = {
    # One row per document: its latest scores against gold (evaluation/scores.py names each
    # metric), with what produced the scored outputs. Metrics are null without gold, or when
    # there is nothing to measure; the history of runs is kept in eval_assets/results/.
    "eval_scores": {
        "doc_id": "VARCHAR NOT NULL",
        "run_id": "VARCHAR NOT NULL",
        "scored_at": "TIMESTAMP NOT NULL",
        "scoring_version": "VARCHAR NOT NULL",
        "has_gold": "BOOLEAN NOT NULL",
        "backend": "VARCHAR NOT NULL",
        "model": "VARCHAR NOT NULL",
        "prompt_hash": "VARCHAR NOT NULL",
        "prompt_hashes": "STRUCT(branch VARCHAR, sha256 VARCHAR)[] NOT NULL",
        "e1_term_filter_recall": "DOUBLE",
        "e2_compression": "DOUBLE",
        "e3_schema_fill_precision": "DOUBLE",
        "definition_precision": "DOUBLE",
        "definition_recall": "DOUBLE",
        "formula_recall": "DOUBLE",
        "formula_precision": "DOUBLE",
        "rule_recall": "DOUBLE",
        "rule_precision": "DOUBLE",
        # Every count the scores report (glossary entries, abstentions, rejected fields, ...).
        "counts": "STRUCT(name VARCHAR, value INTEGER)[] NOT NULL",
        # E3 per field: how many the model filled and how many are correct.
        "fields": "STRUCT(field VARCHAR, filled INTEGER, correct INTEGER)[] NOT NULL",
    },
}

# The natural key of each table of this stage that has one (store/schema.py, KEYS).
KEYS: dict[str, tuple[str, ...]] = {
    "eval_scores": ("doc_id",),
}
