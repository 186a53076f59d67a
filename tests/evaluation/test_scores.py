"""A document's scores: which parts of gold are scored, the kill lines, and reading the store."""

from datetime import datetime

import pytest

from knowledge_assets import contracts as c
from knowledge_assets.errors import MissingUpstream
from knowledge_assets.evaluation.gold import Gold, GoldDomain, GoldFormula, GoldTerm
from knowledge_assets.evaluation.scores import (
    METRICS,
    DocumentScores,
    Extraction,
    RunInfo,
    kill_lines,
    recorded_run,
    score_document,
    score_extraction,
)
from knowledge_assets.terms.clusters import TermCluster

DOC = "DOC-1"
DEFINITION = "Adalah jumlah unit."
GOLD = Gold(DOC, (GoldTerm("Quantity", "Qty", DEFINITION), GoldTerm("joint survey", None, None)))


def cluster(term_id, surface):
    return TermCluster(
        doc_id=DOC, term_id=term_id, canonical=surface, abbreviation=None, long_forms=(), surfaces=(surface,),
        mention_count=3, rank=1, provenance=c.Provenance(doc_id=DOC, span=surface),
    )


def extraction(**changes) -> Extraction:
    values = {
        "clusters": [cluster("t_q", "Qty")],
        "mentions_after_noise": 6,
        "glossary": [c.GlossaryEntry(term_id="t_q", term="Qty", full_name="Quantity", definition=DEFINITION,
                                     provenance=c.Provenance(doc_id=DOC, span=DEFINITION))],
        "formulas": [c.FormulaEntry(formula_id="f_1", formula_latex="Qty = A / B",
                                    provenance=c.Provenance(doc_id=DOC, span="Qty"))],
        "rules": [],
        "domain": c.DomainContext(domain_id="d_1", title="Standard", provenance=c.Provenance(doc_id=DOC, span="S")),
        "rejected_by_branch": {"glossary": 2},
    }
    return Extraction(**(values | changes))


def test_unannotated_parts_of_gold_are_not_scored_and_their_fields_not_judged():
    scores = score_extraction(GOLD, extraction())
    assert set(scores.metrics) == set(METRICS)
    assert scores.metrics["e1_term_filter_recall"] == 0.5  # joint survey has no cluster
    assert scores.metrics["e2_compression"] == 6.0
    assert scores.metrics["formula_recall"] is None and scores.metrics["rule_recall"] is None
    assert set(scores.fields) == {"glossary.definition", "glossary.full_name"}
    assert scores.metrics["e3_schema_fill_precision"] == 1.0
    assert scores.counts["rejected_fields"] == 2
    assert (scores.counts["rejected_glossary"], scores.counts["rejected_formula"]) == (2, 0)


def test_annotated_parts_judge_their_fields_and_drag_e3_when_wrong():
    gold = Gold(DOC, GOLD.terms, formulas=(GoldFormula("Qty", "Qty = X / Y", ("X", "Y")),), rules=(),
                domain=GoldDomain("Other", None))
    scores = score_extraction(gold, extraction())
    assert scores.metrics["formula_recall"] == 0.0 and scores.metrics["rule_recall"] is None
    assert scores.fields["formulas.formula_latex"].correct == 0
    assert scores.fields["domain.title"].correct == 0
    # definition and full_name right; formula_latex and title wrong
    assert scores.metrics["e3_schema_fill_precision"] == 0.5
    assert (scores.counts["e3_filled"], scores.counts["e3_correct"]) == (4, 2)


def test_a_kill_line_passes_at_its_threshold_and_fails_below():
    scores = DocumentScores(DOC, True, {"e1_term_filter_recall": 0.70, "e3_schema_fill_precision": 0.79})
    e1, e3 = kill_lines(scores)
    assert (e1.metric, e1.passed, e3.metric, e3.passed) == (
        "e1_term_filter_recall", True, "e3_schema_fill_precision", False)
    assert e3.note == "0.790 < 0.80"


def test_a_kill_line_with_nothing_to_measure_fails_and_without_gold_passes_with_a_note():
    unmeasurable = kill_lines(DocumentScores(DOC, True,
                                             {"e1_term_filter_recall": 0.9, "e3_schema_fill_precision": None}))
    assert [v.passed for v in unmeasurable] == [True, False] and "not measurable" in unmeasurable[1].note
    no_gold = kill_lines(DocumentScores(DOC, False))
    assert all(v.passed and v.value is None and "no gold" in v.note for v in no_gold)


def test_the_prompt_hash_covers_every_branch():
    one = RunInfo("offline", "offline", {"glossary": "a" * 64, "rule": "b" * 64})
    other = RunInfo("offline", "offline", {"glossary": "a" * 64, "rule": "c" * 64})
    assert len(one.prompt_hash) == 10 and one.prompt_hash != other.prompt_hash


def test_a_document_whose_knowledge_assets_have_not_run_is_not_scored(store):
    assert score_document(store, DOC, None) == DocumentScores(DOC, has_gold=False)
    with pytest.raises(MissingUpstream, match=f"{DOC}: the knowledge assets have not been materialised"):
        score_document(store, DOC, GOLD)


def test_the_recorded_run_is_the_backend_and_model_of_the_latest_glossary(store):
    hashes = {"glossary": "g" * 64}
    assert recorded_run(store, DOC, hashes) == (RunInfo("unknown", "unknown", hashes), True)
    row = {"doc_id": DOC, "term_id": "t_q", "term": "Qty", "definition": None}
    store.append("glossary_versions", [
        {**row, "run_id": "r1", "created_at": datetime(2025, 1, 1), "backend": "offline", "model": "offline",
         "prompt_hash": "g" * 64},
        {**row, "run_id": "r2", "created_at": datetime(2025, 1, 2), "backend": "openai", "model": "gpt-x",
         "prompt_hash": "h" * 64},
    ])
    assert recorded_run(store, DOC, hashes) == (RunInfo("openai", "gpt-x", hashes), False)
