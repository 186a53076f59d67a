"""One document's scores against its gold, read from the store, and the kill lines.

| metric | what | kill line |
|---|---|---|
| e1_term_filter_recall | gold terms that survive to a cluster (`evaluation.term_scores`) | >= 0.70 |
| e2_compression | mentions after the noise filter per cluster | |
| e3_schema_fill_precision | judged filled fields that are correct (`evaluation.knowledge_scores`) | >= 0.80 |
| definition_precision / _recall | filled definitions correct / gold definitions found | |
| formula_recall / _precision | gold formulas stated by an entry / entries stating a gold formula | |
| rule_recall / _precision | gold rules stated by an entry / entries stating a gold rule | |

A metric is None when it has nothing to measure (no gold formulas, nothing filled, ...).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import get_args

from knowledge_assets import contracts as c
from knowledge_assets.errors import MissingUpstream
from knowledge_assets.evaluation.gold import Gold
from knowledge_assets.evaluation.knowledge_scores import (
    FieldTally,
    Judgement,
    judge_domain,
    judge_formulas,
    judge_glossary,
    judge_rules,
    schema_fill_precision,
)
from knowledge_assets.evaluation.term_scores import compression, term_filter_recall
from knowledge_assets.store.audit import latest_glossary_run, rejected_counts_by_branch
from knowledge_assets.store.knowledge import load_entities
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.terms import kept_mention_count
from knowledge_assets.terms.clusters import TermCluster
from knowledge_assets.terms.store import load_clusters

# Bump when a scoring rule changes, so scores of two versions are never compared unawares.
SCORING_VERSION = "1"

METRICS = (
    "e1_term_filter_recall",
    "e2_compression",
    "e3_schema_fill_precision",
    "definition_precision",
    "definition_recall",
    "formula_recall",
    "formula_precision",
    "rule_recall",
    "rule_precision",
)
KILL_LINES = {"e1_term_filter_recall": 0.70, "e3_schema_fill_precision": 0.80}


@dataclass(frozen=True)
class RunInfo:
    """What produced the scored outputs."""

    backend: str
    model: str
    prompt_hashes: dict[str, str]

    @property
    def prompt_hash(self) -> str:
        """One short hash over every branch's prompt, for file names and at-a-glance comparison."""
        joined = "|".join(f"{branch}={sha}" for branch, sha in sorted(self.prompt_hashes.items()))
        return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:10]


@dataclass(frozen=True)
class DocumentScores:
    doc_id: str
    has_gold: bool
    metrics: dict[str, float | None] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    fields: dict[str, FieldTally] = field(default_factory=dict)


@dataclass(frozen=True)
class Extraction:
    """What the pipeline wrote for one document: the inputs of every score."""

    clusters: list[TermCluster]
    mentions_after_noise: int
    glossary: list[c.GlossaryEntry]
    formulas: list[c.FormulaEntry]
    rules: list[c.RuleEntry]
    domain: c.DomainContext | None
    rejected_by_branch: dict[str, int]


def score_extraction(gold: Gold, found: Extraction) -> DocumentScores:
    judgement = Judgement()
    metrics: dict[str, float | None] = dict.fromkeys(METRICS)
    metrics["e2_compression"] = compression(found.mentions_after_noise, len(found.clusters))
    if gold.terms:
        metrics["e1_term_filter_recall"] = term_filter_recall(gold.terms, found.clusters)
        metrics |= judge_glossary(found.glossary, found.clusters, gold.terms, judgement)
    if gold.formulas is not None:
        metrics |= judge_formulas(found.formulas, gold.formulas, gold.terms, judgement)
    if gold.rules is not None:
        metrics |= judge_rules(found.rules, gold.rules, judgement)
    if gold.domain is not None:
        judge_domain(found.domain, gold.domain, judgement)
    metrics["e3_schema_fill_precision"] = schema_fill_precision(judgement)
    counts = {
        **judgement.counts,
        "e3_filled": sum(t.filled for t in judgement.fields.values()),
        "e3_correct": sum(t.correct for t in judgement.fields.values()),
        "rejected_fields": sum(found.rejected_by_branch.values()),
        **{f"rejected_{branch}": found.rejected_by_branch.get(branch, 0) for branch in get_args(c.Branch)},
    }
    return DocumentScores(gold.doc_id, True, metrics, counts, dict(sorted(judgement.fields.items())))


def read_extraction(store: Store, doc_id: str) -> Extraction:
    domains = load_entities(store, "domain_context", doc_id, c.DomainContext)
    if not domains:
        # domain_context is written after glossary, formulas and rules: without it the
        # knowledge assets of this document have not (all) run.
        raise MissingUpstream(
            f"{doc_id}: the knowledge assets have not been materialised; run `knowledge-assets run` first"
        )
    return Extraction(
        clusters=load_clusters(store, doc_id),
        mentions_after_noise=kept_mention_count(store, doc_id),
        glossary=load_entities(store, "glossary", doc_id, c.GlossaryEntry),
        formulas=load_entities(store, "formulas", doc_id, c.FormulaEntry),
        rules=load_entities(store, "rules", doc_id, c.RuleEntry),
        domain=domains[0],
        rejected_by_branch=rejected_counts_by_branch(store, doc_id),
    )


def score_document(store: Store, doc_id: str, gold: Gold | None) -> DocumentScores:
    if gold is None:
        return DocumentScores(doc_id, has_gold=False)
    return score_extraction(gold, read_extraction(store, doc_id))


def recorded_run(store: Store, doc_id: str, prompt_hashes: dict[str, str]) -> tuple[RunInfo, bool]:
    """The backend and model that wrote the document's current glossary, with today's prompt
    hashes, and whether the glossary was written with the glossary prompt it has today."""
    run = latest_glossary_run(store, doc_id)
    if run is None:
        return RunInfo("unknown", "unknown", prompt_hashes), True
    return RunInfo(run.backend, run.model, prompt_hashes), run.prompt_hash == prompt_hashes.get("glossary")


@dataclass(frozen=True)
class KillLine:
    metric: str
    threshold: float
    value: float | None
    passed: bool
    note: str


def kill_lines(scores: DocumentScores) -> list[KillLine]:
    verdicts = []
    for metric, threshold in KILL_LINES.items():
        value = scores.metrics.get(metric)
        if not scores.has_gold:
            verdicts.append(KillLine(metric, threshold, None, True, "no gold: nothing to score"))
        elif value is None:
            verdicts.append(
                KillLine(metric, threshold, None, False, "not measurable: gold or output has nothing to score")
            )
        else:
            passed = value >= threshold
            verdicts.append(
                KillLine(metric, threshold, value, passed, f"{value:.3f} {'>=' if passed else '<'} {threshold:.2f}")
            )
    return verdicts
