"""The response cache: answers stored in DuckDB under the sha256 of (backend, model, full
request body incl. prompt text and schema).

The key covers everything that decides an answer, so changing one prompt file changes the
keys of that branch only, and an unchanged document re-materialises with zero requests.
Only successful answers are stored: a failure is retried on the next run, never replayed.
A request whose answer was cut off and asked again as two halves stores what it came to,
`ANSWERED_BY_HALVES`, so a re-run goes straight to the halves' own entries. Each key is
stored once. The rows are kept by `store/cache.py`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from knowledge_assets.llm.requests import BranchName
from knowledge_assets.llm.responses import ExtractionResponse
from knowledge_assets.store.cache import store_answer_once, stored_answers
from knowledge_assets.store.protocol import Store

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
        return {key: CachedAnswer(*stored) for key, stored in stored_answers(self.store, keys).items()}

    def store_answer(self, key: str, branch: BranchName, backend: str, model: str,
                     response: ExtractionResponse, structured_output_mode: str) -> None:
        store_answer_once(self.store, key, branch, backend, model, response.model_dump_json(), structured_output_mode)

    def store_split(self, key: str, branch: BranchName, backend: str, model: str, structured_output_mode: str) -> None:
        """The request was answered by its two halves."""
        store_answer_once(self.store, key, branch, backend, model, ANSWERED_BY_HALVES, structured_output_mode)
