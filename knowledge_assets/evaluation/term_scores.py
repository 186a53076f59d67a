"""Scores of the term funnel against gold (issue 3).

- E1 term-filter recall: the share of gold terms that survive to some cluster; a gold term
  is found when its canonical or its abbreviation equals a cluster surface, ignoring case.
- E2 compression: mentions after the noise filter per cluster.
- Gold precision: the share of clusters that hold a gold term. A floor for precision, since
  a cluster outside the gold list may still be a defensible term.
"""

from __future__ import annotations

from collections.abc import Sequence

from knowledge_assets.evaluation.gold import GoldTerm, load_gold
from knowledge_assets.evaluation.matching import fold
from knowledge_assets.terms.clusters import TermCluster
from knowledge_assets.terms.funnel import TermFunnel


def gold_term_names(term: GoldTerm) -> set[str]:
    """The names a gold term is accepted under: its canonical and its abbreviation."""
    return {fold(name) for name in (term.canonical, term.abbreviation) if name}


def _surfaces(cluster: TermCluster) -> set[str]:
    return {fold(surface) for surface in cluster.surfaces}


def missed_gold_terms(gold: Sequence[GoldTerm], clusters: Sequence[TermCluster]) -> list[GoldTerm]:
    surfaces = set().union(*(_surfaces(c) for c in clusters))
    return [term for term in gold if not gold_term_names(term) & surfaces]


def term_filter_recall(gold: Sequence[GoldTerm], clusters: Sequence[TermCluster]) -> float:
    """E1."""
    if not gold:
        raise ValueError("E1 needs at least one gold term")
    return 1 - len(missed_gold_terms(gold, clusters)) / len(gold)


def compression(mentions_after_noise: int, clusters: int) -> float:
    """E2: how many mentions, on average, each cluster gathers."""
    return mentions_after_noise / clusters if clusters else 0.0


def clusters_outside_gold(gold: Sequence[GoldTerm], clusters: Sequence[TermCluster]) -> list[TermCluster]:
    names = set().union(*(gold_term_names(term) for term in gold))
    return [c for c in clusters if not _surfaces(c) & names]


def gold_precision(gold: Sequence[GoldTerm], clusters: Sequence[TermCluster]) -> float:
    if not clusters:
        return 0.0
    return 1 - len(clusters_outside_gold(gold, clusters)) / len(clusters)


def funnel_gold_scores(funnel: TermFunnel) -> dict[str, float]:
    """The term stage's figures against the document's gold, when it has gold terms: what the
    term_clusters materialisation shows beside its counts."""
    gold = load_gold(funnel.doc_id)
    if gold is None or not gold.terms:
        return {}
    outside = len(clusters_outside_gold(gold.terms, funnel.clusters))
    return {
        "e1_term_filter_recall": term_filter_recall(gold.terms, funnel.clusters),
        "gold_precision": gold_precision(gold.terms, funnel.clusters),
        # Non-gold clusters per page: an upper bound on noise clusters per page, since a
        # cluster outside the gold list may still be a defensible term.
        "non_gold_clusters_per_page": outside / max(funnel.page_count, 1),
    }
