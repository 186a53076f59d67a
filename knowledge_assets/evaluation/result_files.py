"""Result files under `eval_assets/results/`, and the comparison of a run with a baseline.

A result file is named `<date>_<backend>[-<model>]_<prompt hash>.json` and holds, per
document, the metrics, counts and per-field E3 tallies, with the backend, model and every
branch's prompt hash that produced them. Writing a document into a file of the same name
replaces that document's entry and keeps the others, so a day's run of one backend and prompt
set fills one file.

Comparison is metric by metric. The rates in `GATED` are higher-is-better: one that falls by
more than the tolerance (absolute, default 0.02) is a regression, as is a baseline document
or metric the current run no longer scores. Counts and E2 are shown for information only,
since more abstentions or rejections can be the better answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from knowledge_assets.errors import KnowledgeError, read_json
from knowledge_assets.evaluation.gold import GOLD_DIR
from knowledge_assets.evaluation.scores import METRICS, SCORING_VERSION, DocumentScores, RunInfo

RESULTS_DIR = GOLD_DIR.parent / "results"
FORMAT = "knowledge-assets-eval/1"
DEFAULT_TOLERANCE = 0.02
# Every metric but E2 is a higher-is-better rate; more (or less) compression is not better.
GATED = tuple(metric for metric in METRICS if metric != "e2_compression")


class ResultsError(KnowledgeError, ValueError):
    """A result file that cannot be read; the message names the file."""


def document_entry(scores: DocumentScores, run: RunInfo) -> dict:
    return {
        "backend": run.backend,
        "model": run.model,
        "prompt_hash": run.prompt_hash,
        "prompt_hashes": dict(sorted(run.prompt_hashes.items())),
        "metrics": scores.metrics,
        "counts": scores.counts,
        "fields": {name: {"filled": t.filled, "correct": t.correct} for name, t in scores.fields.items()},
    }


def results_payload(run: RunInfo, scored: list[DocumentScores], created_at: datetime) -> dict:
    return {
        "format": FORMAT,
        "scoring_version": SCORING_VERSION,
        "created_at": created_at.isoformat(timespec="seconds"),
        "backend": run.backend,
        "model": run.model,
        "prompt_hash": run.prompt_hash,
        "prompt_hashes": dict(sorted(run.prompt_hashes.items())),
        "documents": {s.doc_id: document_entry(s, run) for s in sorted(scored, key=lambda s: s.doc_id)},
    }


def run_label(run: RunInfo) -> str:
    """The backend, with the model when it is not the backend's own name, safe in a file name."""
    who = run.backend if run.model in (run.backend, "") else f"{run.backend}-{run.model}"
    return re.sub(r"[^A-Za-z0-9.-]+", "-", who)


def result_name(run: RunInfo, created_at: datetime) -> str:
    return f"{created_at:%Y-%m-%d}_{run_label(run)}_{run.prompt_hash}.json"


def write_results(directory: Path, run: RunInfo, scored: list[DocumentScores], created_at: datetime) -> Path:
    payload = results_payload(run, scored, created_at)
    path = directory / result_name(run, created_at)
    if path.is_file():
        payload["documents"] = dict(sorted({**read_results(path)["documents"], **payload["documents"]}.items()))
    return write_result_file(path, payload)


def read_result_file(path: Path, fmt: str, error: type[KnowledgeError], kind: str = "result file") -> dict:
    """A result JSON of format `fmt` with a `documents` object; anything else is `error`."""
    data = read_json(path, error, "result file")
    if not isinstance(data, dict) or data.get("format") != fmt or not isinstance(data.get("documents"), dict):
        raise error(f"{path}: not a {kind} of format {fmt}")
    return data


def write_result_file(path: Path, payload: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def read_results(path: Path) -> dict:
    return read_result_file(path, FORMAT, ResultsError)


@dataclass(frozen=True)
class MetricChange:
    doc_id: str
    metric: str
    baseline: float | None
    current: float | None
    verdict: str  # ok | improved | regressed | changed | new | missing

    @property
    def delta(self) -> float | None:
        if self.baseline is None or self.current is None:
            return None
        return self.current - self.baseline


def _verdict(metric: str, baseline: float | None, current: float | None, tolerance: float,
             gated: Collection[str]) -> str:
    if baseline is None:
        return "ok" if current is None else "new"
    if current is None:
        return "missing" if metric in gated else "changed"
    if metric not in gated:
        return "ok" if current == baseline else "changed"
    if current < baseline - tolerance:
        return "regressed"
    return "improved" if current > baseline + tolerance else "ok"


def compare(baseline: dict, current: dict, tolerance: float = DEFAULT_TOLERANCE,
            gated: Collection[str] = GATED) -> list[MetricChange]:
    """Every metric and count of every document in either payload, baseline first; `gated`
    names the higher-is-better rates (the corpus evaluation passes its own)."""
    changes = []
    for doc_id in sorted(baseline["documents"].keys() | current["documents"].keys()):
        old, new = baseline["documents"].get(doc_id), current["documents"].get(doc_id)
        for part in ("metrics", "counts"):
            before, after = (old or {}).get(part, {}), (new or {}).get(part, {})
            for metric in [*before, *(m for m in after if m not in before)]:
                if new is None:
                    verdict = "missing"
                else:
                    verdict = _verdict(metric, before.get(metric), after.get(metric), tolerance, gated)
                changes.append(MetricChange(doc_id, metric, before.get(metric), after.get(metric), verdict))
    return changes


def regressions(changes: list[MetricChange]) -> list[MetricChange]:
    return [c for c in changes if c.verdict in ("regressed", "missing")]
