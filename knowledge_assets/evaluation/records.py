"""The `eval_scores` table: each document's latest scores, one row per document."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from knowledge_assets.evaluation.scores import METRICS, SCORING_VERSION, DocumentScores, RunInfo
from knowledge_assets.store.knowledge import documents_rows
from knowledge_assets.store.protocol import Store


def score_row(scores: DocumentScores, run: RunInfo, run_id: str, scored_at: datetime) -> dict:
    return {
        "doc_id": scores.doc_id,
        "run_id": run_id,
        "scored_at": scored_at,
        "scoring_version": SCORING_VERSION,
        "has_gold": scores.has_gold,
        "backend": run.backend,
        "model": run.model,
        "prompt_hash": run.prompt_hash,
        "prompt_hashes": [{"branch": b, "sha256": sha} for b, sha in sorted(run.prompt_hashes.items())],
        **{metric: scores.metrics.get(metric) for metric in METRICS},
        "counts": [{"name": name, "value": value} for name, value in scores.counts.items()],
        "fields": [{"field": name, "filled": t.filled, "correct": t.correct} for name, t in scores.fields.items()],
    }


def record_scores(store: Store, scores: DocumentScores, run: RunInfo, run_id: str, scored_at: datetime) -> None:
    store.replace_partition(scores.doc_id, {"eval_scores": [score_row(scores, run, run_id, scored_at)]})


def recorded_scores(store: Store, doc_ids: Sequence[str]) -> dict[str, DocumentScores]:
    """The scores recorded for each of the documents that has any: whether it has gold and its
    metrics, what the kill lines judge."""
    return {doc_id: DocumentScores(doc_id, row["has_gold"], {metric: row[metric] for metric in METRICS})
            for doc_id, rows in documents_rows(store, "eval_scores", doc_ids).items() for row in rows}
