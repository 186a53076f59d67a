"""The response cache: answers stored in DuckDB under the sha256 of (backend, model, full
request body incl. prompt text and schema).

The key covers everything that decides an answer, so changing one prompt file changes the
keys of that branch only, and an unchanged document re-materialises with zero requests.
Only successful answers are stored: a failure is retried on the next run, never replayed.
A request whose answer was cut off and asked again as two halves stores what it came to,
`ANSWERED_BY_HALVES`, so a re-run goes straight to the halves' own entries. Each key is
stored once.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timezone

from knowledge_assets.llm.requests import BranchName
from knowledge_assets.llm.responses import ExtractionResponse
from knowledge_assets.store.database import Store

# No response model accepts it (they forbid fields they do not name), so a reader that does
# not know it sees an answer it cannot validate, and asks again.
ANSWERED_BY_HALVES = '{"answered_by_halves": true}'


def cache_key(identity: dict) -> str:
    canonical = json.dumps(identity, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedAnswer:
    response_json: str
    structured_output_mode: str

    @property
    def answered_by_halves(self) -> bool:
        return self.response_json == ANSWERED_BY_HALVES


class ResponseCache:
    def __init__(self, store: Store):
        self.store = store

    def lookup(self, keys: list[str]) -> dict[str, CachedAnswer]:
        """key → what is stored under it, for the keys present, in one query."""
        if not keys:
            return {}
        rows = self.store.fetch(
            "SELECT cache_key, any_value(response_json) AS response_json, "
            "any_value(structured_output_mode) AS mode FROM llm_cache "
            "WHERE cache_key IN (SELECT unnest(?)) GROUP BY cache_key",
            [sorted(set(keys))],
        )
        return {row["cache_key"]: CachedAnswer(row["response_json"], row["mode"]) for row in rows}

    def store_answer(self, key: str, branch: BranchName, backend: str, model: str,
                     response: ExtractionResponse, structured_output_mode: str) -> None:
        self._store(key, branch, backend, model, response.model_dump_json(), structured_output_mode)

    def store_split(self, key: str, branch: BranchName, backend: str, model: str, structured_output_mode: str) -> None:
        """The request was answered by its two halves."""
        self._store(key, branch, backend, model, ANSWERED_BY_HALVES, structured_output_mode)

    def _store(self, key: str, branch: BranchName, backend: str, model: str, response_json: str,
               structured_output_mode: str) -> None:
        # Guarded in the statement, so two runs answering the same request store it once.
        with self.store.connect() as con:
            con.execute(
                "INSERT INTO llm_cache (cache_key, branch, backend, model, response_json, structured_output_mode, "
                "created_at) SELECT ?, ?, ?, ?, ?, ?, ? "
                "WHERE NOT EXISTS (SELECT 1 FROM llm_cache WHERE cache_key = ?)",
                [key, branch, backend, model, response_json, structured_output_mode,
                 datetime.now(timezone.utc).replace(tzinfo=None), key],
            )
