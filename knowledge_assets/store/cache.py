"""The llm response cache's rows: what is stored under a set of keys, and one answer stored once.

What a key covers and what an answer means belong to the llm package (`llm/response_cache.py`); this
module only keeps the rows."""

from __future__ import annotations

from datetime import datetime, timezone

from knowledge_assets.store.protocol import Store
from knowledge_assets.store.schema import placeholders

# Placeholders per query: PostgreSQL takes at most 65,535 in one statement.
_KEYS_PER_QUERY = 1_000


def stored_answers(store: Store, keys: list[str]) -> dict[str, tuple[str, str]]:
    """key → (response_json, structured_output_mode) stored under it, for the keys present,
    in one query per thousand keys."""
    wanted = sorted(set(keys))
    found: dict[str, tuple[str, str]] = {}
    for start in range(0, len(wanted), _KEYS_PER_QUERY):
        batch = wanted[start:start + _KEYS_PER_QUERY]
        rows = store.fetch(
            "SELECT cache_key, response_json, structured_output_mode FROM llm_cache "
            f"WHERE cache_key IN ({placeholders(len(batch))})",
            batch,
        )
        for row in rows:  # a key is stored once (`store_answer_once`); of two rows, the first read counts
            found.setdefault(row["cache_key"], (row["response_json"], row["structured_output_mode"]))
    return found


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
