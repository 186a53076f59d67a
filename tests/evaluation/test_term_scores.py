"""E1 term-filter recall, E2 compression and gold precision."""

import pytest

from knowledge_assets.contracts import Provenance
from knowledge_assets.evaluation.gold import GoldTerm, load_gold
from knowledge_assets.evaluation.term_scores import (
    clusters_outside_gold,
    compression,
    gold_precision,
    missed_gold_terms,
    term_filter_recall,
)
from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.parse import parse_document
from knowledge_assets.terms.clusters import TermCluster
from knowledge_assets.terms.funnel import run_term_funnel
from tests.conftest import SAMPLE_MARKDOWN, SAMPLE_PDF


def cluster(*surfaces: str) -> TermCluster:
    return TermCluster(
        doc_id="DOC-1",
        term_id="t_0000000000",
        canonical=surfaces[0],
        abbreviation=None,
        long_forms=(),
        surfaces=surfaces,
        mention_count=len(surfaces),
        rank=1,
        provenance=Provenance(doc_id="DOC-1", span=surfaces[0]),
    )


GOLD = (
    GoldTerm("Physical Availability", "PA", None),
    GoldTerm("Cut-off", None, None),
    GoldTerm("Joint Survey", None, None),
)


def test_a_gold_term_is_found_by_its_canonical_or_abbreviation_ignoring_case_and_spacing():
    clusters = [cluster("PA", "Physical of Availability"), cluster("cut-off"), cluster("Swell  Factor")]
    assert missed_gold_terms(GOLD, clusters) == [GOLD[2]]
    assert term_filter_recall(GOLD, clusters) == pytest.approx(2 / 3)


def test_e1_needs_gold():
    with pytest.raises(ValueError):
        term_filter_recall((), [cluster("PA")])


def test_compression_is_mentions_after_noise_per_cluster():
    assert compression(163, 58) == pytest.approx(2.81, abs=0.01)
    assert compression(0, 0) == 0.0


def test_gold_precision_counts_clusters_holding_a_gold_term():
    clusters = [cluster("PA"), cluster("cut off"), cluster("Mine Plan"), cluster("Cut-off")]
    assert clusters_outside_gold(GOLD, clusters) == [clusters[1], clusters[2]]
    assert gold_precision(GOLD, clusters) == 0.5


@pytest.mark.parametrize("path", [SAMPLE_PDF, SAMPLE_MARKDOWN])
def test_sample_documents_reach_the_e1_target(path):
    parsed = parse_document(identify(path))
    gold = load_gold(parsed.doc_id)
    assert term_filter_recall(gold.terms, run_term_funnel(parsed).clusters) >= 0.90
