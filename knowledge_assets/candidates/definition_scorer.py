"""The scorer of defining-sentence candidates: a logistic regression learned from the corpus
gold (`evaluation/scorer_training.py`), its weights a small committed data file,
`scorers/defining_sentences.json`, with the corpus digest it was trained on. Scoring is a sum
of weights and a logistic function, so running it needs no learning library, and it is
deterministic.

A candidate is kept when its probability reaches the file's threshold, chosen on held-out
documents for precision; of the candidates of one sentence, only the most probable.
`KNOWLEDGE_DEFINITION_SCORER` names another file (the leave-one-out evaluation's folds). With
no file at all, nothing is kept: an untrained recogniser abstains.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from knowledge_assets.candidates.defining_sentences import Found
from knowledge_assets.errors import KnowledgeError, read_json
from knowledge_assets.settings import definition_scorer_override

COMMITTED = Path(__file__).resolve().parent / "scorers" / "defining_sentences.json"
FORMAT = "knowledge-assets-definition-scorer/1"


@dataclass(frozen=True)
class Scorer:
    weights: dict[str, float]
    intercept: float
    threshold: float

    def probability(self, features: dict[str, float]) -> float:
        z = self.intercept + sum(self.weights.get(name, 0.0) * value for name, value in features.items())
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))

    def kept(self, found: Sequence[Found]) -> list[Found]:
        """The most probable candidate of `found` (one sentence's), if it reaches the threshold."""
        if not found or self.threshold >= 1.0:
            return []
        best = max(found, key=lambda f: (self.probability(f.features), -f.candidate.start))
        return [best] if self.probability(best.features) >= self.threshold else []


ABSTAINING = Scorer({}, -50.0, 1.0)


def scorer_payload(scorer: Scorer, provenance: dict) -> dict:
    return {"format": FORMAT, **provenance, "threshold": scorer.threshold, "intercept": scorer.intercept,
            "weights": dict(sorted(scorer.weights.items()))}


def read_scorer(path: Path) -> Scorer:
    data = read_json(path, ScorerError, "definition scorer file")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ScorerError(f"{path}: not a definition scorer file ({FORMAT})")
    return Scorer({k: float(v) for k, v in data["weights"].items()}, float(data["intercept"]),
                  float(data["threshold"]))


@cache
def _scorer_at(path: Path, mtime_ns: int) -> Scorer:
    return read_scorer(path)


def committed_scorer_version() -> str:
    """A digest of the committed scorer file ("none" without one): the term funnel's code
    version carries it, so retraining marks what it changes stale in the Dagster UI."""
    if not COMMITTED.is_file():
        return "none"
    return hashlib.sha256(COMMITTED.read_bytes()).hexdigest()[:12]


class ScorerError(KnowledgeError, ValueError):
    """The scorer file named by KNOWLEDGE_DEFINITION_SCORER is missing or is no scorer file."""


def current_scorer() -> Scorer:
    """The override's scorer, else the committed one, else (no committed file) one that keeps
    nothing. An override naming no file is an error: a typo must not switch the recogniser
    off unnoticed."""
    override = definition_scorer_override()
    if override is not None and not override.is_file():
        raise ScorerError(f"{override}: no such definition scorer file (KNOWLEDGE_DEFINITION_SCORER)")
    path = override or COMMITTED
    if not path.is_file():
        return ABSTAINING
    return _scorer_at(path, path.stat().st_mtime_ns)
