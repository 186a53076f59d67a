"""Training the defining-sentence scorer (`candidates/definition_scorer.py`) on a corpus's gold.

Samples: every corpus document is parsed as the pipeline parses it, and each defining-sentence
candidate the scorer would be asked about (`defining_sentence_samples`) is labelled against
the document's gold as the corpus scorer grades a glossary entry: positive when its term, short
form or long form is a name of a gold term and its sentence matches that term's gold definition
(token F1 >= 0.6, `corpus_scores.THRESHOLD`); negative otherwise. A candidate naming no gold
term is a negative of a tenth's weight: the gold of a long document covers a subset of its
terms, so many of these are definitions nobody wrote down (a Ketentuan Umum of 40 items with
gold for 12); at half weight they taught the scorer that a statutory `X adalah …` defines
nothing.

Model: scikit-learn's logistic regression (liblinear, L2 with C = `REGULARISATION`),
deterministic for the same samples in the same order. C = 0.3, and features without length
buckets (the term's and the sentence's word counts told genres apart, not definitions), were
chosen by `python -m knowledge_assets.evaluation.scorer_choice`, which scores each document
with a scorer trained without it: kept right 109 -> 119 of 164, kept wrong 16 -> 14 (D79).
The threshold is chosen for precision on predictions for documents the model did not see
(grouped cross-validation by document inside the training documents): the lowest probability
at which the held-out precision reaches `TARGET_PRECISION`, counted as the corpus scorer
counts definition precision, over candidates that name a gold term. Weights are
rounded to 6 decimals, so the committed file is reproduced byte for byte.

scikit-learn is needed to train only (the `train` extra); scoring is a sum of weights.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from knowledge_assets.candidates.definition_scorer import Scorer, scorer_payload
from knowledge_assets.candidates.definitions import defining_sentence_samples
from knowledge_assets.candidates.model import Candidate
from knowledge_assets.candidates.source import SourceChunk
from knowledge_assets.errors import KnowledgeError
from knowledge_assets.evaluation.corpus_scores import THRESHOLD, f1, gold_names, norm_name, word_tokens
from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.parse import parse_document

TARGET_PRECISION = 0.9
UNKNOWN_TERM_WEIGHT = 0.1
REGULARISATION = 0.3
_FOLDS = 5
_DECIMALS = 6


class TrainingError(KnowledgeError, RuntimeError):
    """Training cannot run: scikit-learn is missing, or there is nothing to learn from."""


@dataclass(frozen=True)
class Sample:
    features: dict[str, float]
    label: int
    weight: float


def document_samples(path: Path, stem: str, gold: dict) -> list[Sample]:
    """The labelled defining-sentence candidates of one corpus document (module docstring)."""
    try:
        parsed = parse_document(identify(path, stem))
    except DocumentError:
        return []
    chunks = [SourceChunk(chunk_id=c.chunk_id, text=c.text, heading_path=c.heading_path) for c in parsed.chunks]
    return [_labelled(found.candidate, found.features, gold) for found in defining_sentence_samples(chunks)]


def _labelled(candidate: Candidate, features: dict[str, float], gold: dict) -> Sample:
    names = {norm_name(p.text) for p in candidate.parts if p.role in ("term", "abbreviation", "expansion")}
    named = [t for t in gold.get("terms", []) if gold_names(t) & names]
    if not named:
        return Sample(features, 0, UNKNOWN_TERM_WEIGHT)
    definition = word_tokens(candidate.part("definition").text)
    right = any(t.get("definition_verbatim") and f1(definition, word_tokens(t["definition_verbatim"])) >= THRESHOLD
                for t in named)
    return Sample(features, int(right), 1.0)


def _learning():
    try:
        from sklearn.feature_extraction import DictVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import GroupKFold
    except ImportError:
        raise TrainingError("training the scorer needs scikit-learn: pip install -e \".[train]\"") from None
    return DictVectorizer, LogisticRegression, GroupKFold


def _fit(samples: Sequence[Sample]):
    vectorizer_class, model_class, _ = _learning()
    vectorizer = vectorizer_class(sparse=False, sort=True)
    matrix = vectorizer.fit_transform([s.features for s in samples])
    model = model_class(C=REGULARISATION, solver="liblinear", max_iter=1000)
    model.fit(matrix, [s.label for s in samples], sample_weight=[s.weight for s in samples])
    return vectorizer, model


def _held_out_probabilities(by_document: dict[str, list[Sample]]) -> list[tuple[float, Sample]]:
    """Each sample's probability from a model fitted without its document's fold."""
    _, _, group_k_fold = _learning()
    stems = sorted(stem for stem, samples in by_document.items() if samples)
    folds = min(_FOLDS, len(stems))
    if folds < 2:
        return []
    scored: list[tuple[float, Sample]] = []
    for _, test in group_k_fold(n_splits=folds).split(stems, groups=stems):
        held = {stems[i] for i in test}
        training = [s for stem in stems if stem not in held for s in by_document[stem]]
        if len({s.label for s in training}) < 2:
            continue
        vectorizer, model = _fit(training)
        for stem in sorted(held):
            samples = by_document[stem]
            probabilities = model.predict_proba(vectorizer.transform([s.features for s in samples]))[:, 1]
            scored += zip(probabilities.tolist(), samples)
    return scored


def precise_threshold(scored: Sequence[tuple[float, Sample]], target: float = TARGET_PRECISION) -> float:
    """The lowest probability at which keeping every sample of `scored` that reaches it has a
    precision of at least `target` among those naming a gold term; 1.0 (keep nothing) when
    there is none. Samples of equal probability are kept or dropped together, as the scorer
    keeps them."""
    judged = sorted(((round(p, _DECIMALS), s.label) for p, s in scored if s.weight >= 1.0), key=lambda pair: -pair[0])
    kept = right = 0
    threshold = 1.0
    for index, (probability, label) in enumerate(judged):
        kept += 1
        right += label
        last_of_its_value = index + 1 == len(judged) or judged[index + 1][0] != probability
        if last_of_its_value and right and right >= target * kept:
            threshold = probability
    return threshold


def train(by_document: dict[str, list[Sample]], target: float = TARGET_PRECISION) -> Scorer:
    """The scorer of all samples of `by_document`, its threshold from held-out documents."""
    samples = [s for stem in sorted(by_document) for s in by_document[stem]]
    if len({s.label for s in samples}) < 2:
        raise TrainingError("the samples hold no positive or no negative: nothing to learn")
    vectorizer, model = _fit(samples)
    weights = {name: round(float(w), _DECIMALS) for name, w in zip(vectorizer.get_feature_names_out(), model.coef_[0])}
    threshold = precise_threshold(_held_out_probabilities(by_document), target)
    return Scorer({k: v for k, v in weights.items() if v}, round(float(model.intercept_[0]), _DECIMALS), threshold)


def corpus_digest(paths: Sequence[Path]) -> str:
    """A digest of the files' names and bytes (the documents and gold files trained on)."""
    digest = hashlib.sha256()
    for path in sorted(paths, key=lambda p: (p.parent.name, p.name)):
        name = f"{path.parent.name}/{path.name}"
        digest.update(name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def write_scorer(path: Path, scorer: Scorer, stems: Sequence[str], digest: str, samples: int) -> None:
    provenance = {"trained_on": sorted(stems), "corpus_digest": digest, "samples": samples,
                  "target_precision": TARGET_PRECISION}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(scorer_payload(scorer, provenance), indent=1, ensure_ascii=False) + "\n",
                    encoding="utf-8")
