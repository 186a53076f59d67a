"""The llm response cache's rows: what is stored under a set of keys, and one answer stored once.

What a key covers and what an answer means belong to the llm package (`llm/cache.py`); this
module only keeps the rows."""

from __future__ import annotations

from datetime import datetime, timezone

from knowledge_assets.store.database import Store


def stored_answers(store: Store, keys: list[str]) -> dict[str, tuple[str, str]]:
    """key → (response_json, structured_output_mode) stored under it, for the keys present,
    in one query."""
    if not keys:
        return {}
    rows = store.fetch(
        "SELECT cache_key, any_value(response_json) AS response_json, "
        "any_value(structured_output_mode) AS mode FROM llm_cache "
        "WHERE cache_key IN (SELECT unnest(?)) GROUP BY cache_key",
        [sorted(set(keys))],
    )
    return {row["cache_key"]: (row["response_json"], row["mode"]) for row in rows}


def store_answer_once(store: Store, key: str, branch: str, backend: str, model: str, response_json: str,
                      structured_output_mode: str) -> None:
    """Stores the answer under `key`, stamped now, unless the key is stored already."""
    # Guarded in the statement, so two runs answering the same request store it once.
    with store.connect() as con:
        con.execute(
            "INSERT INTO llm_cache (cache_key, branch, backend, model, response_json, structured_output_mode, "
            "created_at) SELECT ?, ?, ?, ?, ?, ?, ? "
            "WHERE NOT EXISTS (SELECT 1 FROM llm_cache WHERE cache_key = ?)",
            [key, branch, backend, model, response_json, structured_output_mode,
             datetime.now(timezone.utc).replace(tzinfo=None), key],
        )
