"""Tables of the llm stage: what every call cost, and the answers worth not asking twice."""

TABLES: dict[str, dict[str, str]] = {
    # Append-only, one row per call (contract §11 CallUsage plus where and when). A cache
    # replay is a row too, with zero tokens and cache_hit, so cost figures stay honest.
    "llm_usage": {
        "doc_id": "VARCHAR NOT NULL",
        "run_id": "VARCHAR NOT NULL",
        "branch": "VARCHAR NOT NULL",
        "deployment": "VARCHAR NOT NULL",
        "tier": "VARCHAR NOT NULL",
        "prompt_tokens": "INTEGER NOT NULL",
        "cached_tokens": "INTEGER NOT NULL",
        "completion_tokens": "INTEGER NOT NULL",
        "latency_s": "DOUBLE NOT NULL",
        "retries": "INTEGER NOT NULL",
        "structured_output_mode": "VARCHAR NOT NULL",
        "simulated": "BOOLEAN NOT NULL",
        "cache_hit": "BOOLEAN NOT NULL",
        "outcome": "VARCHAR NOT NULL",
        "created_at": "TIMESTAMP NOT NULL",
    },
    # Keyed by sha256 of (backend, model, full request body incl. prompt text and schema):
    # an unchanged prompt, model and document sends zero requests on re-materialisation.
    "llm_cache": {
        "cache_key": "VARCHAR NOT NULL",
        "branch": "VARCHAR NOT NULL",
        "backend": "VARCHAR NOT NULL",
        "model": "VARCHAR NOT NULL",
        "response_json": "VARCHAR NOT NULL",
        "structured_output_mode": "VARCHAR NOT NULL",
        "created_at": "TIMESTAMP NOT NULL",
    },
}

# No key: usage is append-only history, and an answer is cached once by a guarded insert (a rare
# duplicate under a race is harmless; reads pick any).
KEYS: dict[str, tuple[str, ...]] = {}
