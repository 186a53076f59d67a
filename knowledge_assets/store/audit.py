"""What a document's runs left beside its entities: the fields the span guard rejected, the
run that wrote its glossary, and the calls that reached a model."""

from __future__ import annotations

from dataclasses import dataclass

from knowledge_assets.store.protocol import Store
from knowledge_assets.store.schema import column_list


@dataclass(frozen=True)
class GlossaryRun:
    backend: str
    model: str
    prompt_hash: str


def rejected_counts_by_branch(store: Store, doc_id: str) -> dict[str, int]:
    """branch → how many of the document's fields the span guard rejected (branches with none left out)."""
    rows = store.fetch(
        "SELECT branch, count(*) AS n FROM rejected_fields WHERE doc_id = ? GROUP BY branch", [doc_id]
    )
    return {row["branch"]: row["n"] for row in rows}


def latest_glossary_run(store: Store, doc_id: str) -> GlossaryRun | None:
    """The backend, model and glossary prompt of the run that wrote the document's current
    glossary; None before its first run."""
    rows = store.fetch(
        "SELECT backend, model, prompt_hash FROM glossary_versions WHERE doc_id = ? ORDER BY created_at DESC LIMIT 1",
        [doc_id],
    )
    return GlossaryRun(rows[0]["backend"], rows[0]["model"], rows[0]["prompt_hash"]) if rows else None


def model_call_count(store: Store, except_deployment: str) -> int:
    """Calls recorded in the whole store that were answered by a deployment other than
    `except_deployment` and not replayed from the cache."""
    rows = store.fetch("SELECT count(*) AS n FROM llm_usage WHERE deployment <> ? AND NOT cache_hit",
                       [except_deployment])
    return int(rows[0]["n"])


def latest_calls(store: Store, doc_id: str) -> list[dict]:
    """The `llm_usage` rows (doc_id left out) of each branch's latest materialisation of the
    document: the run of the branch's last recorded call, ordered by branch, then time."""
    return store.fetch(
        f"SELECT {column_list('llm_usage', 'doc_id', alias='u')} FROM llm_usage u JOIN ("
        "  SELECT branch, run_id FROM (SELECT branch, run_id, row_number() OVER "
        "(PARTITION BY branch ORDER BY created_at DESC) AS recency FROM llm_usage WHERE doc_id = ?) ranked "
        "WHERE recency = 1) latest USING (branch, run_id) WHERE u.doc_id = ? ORDER BY u.branch, u.created_at",
        [doc_id, doc_id],
    )
