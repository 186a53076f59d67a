"""The response cache: answers stored in DuckDB under the sha256 of (backend, model, full
request body incl. prompt text and schema).

The key covers everything that decides an answer, so changing one prompt file changes the
keys of that branch only, and an unchanged document re-materialises with zero requests.
Only successful answers are stored: a failure is retried on the next run, never replayed.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone

from knowledge_assets.llm.requests import BranchName
from knowledge_assets.llm.responses import ExtractionResponse
from knowledge_assets.store.database import Store


def cache_key(identity: dict) -> str:
    canonical = json.dumps(identity, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    def __init__(self, store: Store):
        self.store = store

    def lookup(self, keys: list[str]) -> dict[str, tuple[str, str]]:
        """key → (response_json, structured_output_mode) for the keys present, in one query."""
        if not keys:
            return {}
        rows = self.store.fetch(
            "SELECT cache_key, any_value(response_json) AS response_json, "
            "any_value(structured_output_mode) AS mode FROM llm_cache "
            "WHERE cache_key IN (SELECT unnest(?)) GROUP BY cache_key",
            [sorted(set(keys))],
        )
        return {row["cache_key"]: (row["response_json"], row["mode"]) for row in rows}

    def store_answer(self, key: str, branch: BranchName, backend: str, model: str,
                     response: ExtractionResponse, structured_output_mode: str) -> None:
        self.store.append("llm_cache", [{
            "cache_key": key,
            "branch": branch,
            "backend": backend,
            "model": model,
            "response_json": response.model_dump_json(),
            "structured_output_mode": structured_output_mode,
            "created_at": datetime.now(timezone.utc).replace(tzinfo=None),
        }])
