"""Training the defining-sentence scorer (`evaluation/scorer_training.py`): how a document's
candidates are labelled against its gold, the threshold chosen for precision, a real
scikit-learn training on samples built here, the corpus digest, and that training on the
development corpus reproduces the committed scorer file byte for byte."""

from __future__ import annotations

import pytest

from knowledge_assets.candidates.definition_scorer import COMMITTED
from knowledge_assets.evaluation.corpus import corpus_documents
from knowledge_assets.evaluation.leave_one_out import train_corpus_scorer
from knowledge_assets.evaluation.scorer_training import (
    UNKNOWN_TERM_WEIGHT,
    Sample,
    TrainingError,
    corpus_digest,
    document_samples,
    precise_threshold,
    train,
)

WORKSHOP = """# Workshop

A torque wrench is a tool that measures twisting force.

Round-Trip Time (RTT) is the time from sending a packet to receiving its acknowledgement.

The bench vise is heavy and sits in the corner.

The feeler gauge is kept in a drawer.
"""
WORKSHOP_GOLD = {"terms": [
    {"canonical": "torque wrench", "definition_verbatim": "A torque wrench is a tool that measures twisting force."},
    # Named by its abbreviation only: the candidate's short form is one of the term's names.
    {"canonical": "Round Trip Delay", "abbreviation": "RTT", "definition_verbatim":
        "Round-Trip Time (RTT) is the time from sending a packet to receiving its acknowledgement."},
    {"canonical": "Bench Vise", "definition_verbatim": "A bench vise is a clamp fixed to a workbench."},
]}


def test_a_candidate_is_labelled_by_its_gold_term_and_one_naming_no_gold_term_weighs_less(tmp_path):
    path = tmp_path / "workshop.md"
    path.write_text(WORKSHOP, encoding="utf-8")

    samples = document_samples(path, "workshop", WORKSHOP_GOLD)

    assert [(s.label, s.weight) for s in samples] == [
        (1, 1.0),  # torque wrench: the gold definition is the sentence
        (1, 1.0),  # RTT: the same, found by the abbreviation
        (0, 1.0),  # bench vise: a gold term, another definition
        (0, UNKNOWN_TERM_WEIGHT),  # feeler gauge: no gold term of that name
    ]
    assert all(s.features["cue=sentence_subject"] == 1.0 for s in samples)


def test_a_document_that_cannot_be_parsed_gives_no_samples(tmp_path):
    path = tmp_path / "empty.md"
    path.write_text("", encoding="utf-8")
    assert document_samples(path, "empty", WORKSHOP_GOLD) == []


RIGHT, WRONG, UNNAMED = Sample({}, 1, 1.0), Sample({}, 0, 1.0), Sample({}, 0, UNKNOWN_TERM_WEIGHT)


def test_the_threshold_is_the_lowest_probability_whose_precision_reaches_the_target():
    scored = [(0.9, RIGHT), (0.8, RIGHT), (0.7, WRONG), (0.6, RIGHT), (0.5, WRONG)]
    assert precise_threshold(scored, 0.9) == 0.8  # 2/2; from 0.7 down 2/3, 3/4, 3/5
    assert precise_threshold(scored, 0.75) == 0.6  # 3/4
    assert precise_threshold(scored, 0.6) == 0.5  # 3/5
    assert precise_threshold(list(reversed(scored)), 0.9) == 0.8


def test_candidates_naming_no_gold_term_do_not_count_in_the_precision():
    scored = [(0.95, UNNAMED), (0.9, RIGHT), (0.8, RIGHT), (0.7, WRONG)]
    assert precise_threshold(scored, 0.9) == 0.8


def test_the_threshold_is_one_when_no_probability_reaches_the_target():
    assert precise_threshold([(0.9, WRONG), (0.8, RIGHT)], 0.9) == 1.0
    assert precise_threshold([(0.9, WRONG), (0.4, UNNAMED)]) == 1.0
    assert precise_threshold([]) == 1.0


def documents(count: int = 4) -> dict[str, list[Sample]]:
    """Per document: right definitions with `good`, wrong ones with `bad`, and one wrong one
    with `good` as well, so that `good` alone is not enough."""
    rows = ([Sample({"good": 1.0, "cue=x": 1.0}, 1, 1.0)] * 3 + [Sample({"bad": 1.0, "cue=x": 1.0}, 0, 1.0)] * 3
            + [Sample({"good": 1.0}, 0, 1.0), Sample({"bad": 1.0}, 0, UNKNOWN_TERM_WEIGHT)])
    return {f"doc{i}": list(rows) for i in range(count)}


def test_training_weighs_the_feature_of_right_definitions_up_and_keeps_them_only():
    scorer = train(documents())
    assert scorer.weights["good"] > 0 > scorer.weights["bad"]
    assert 0 < scorer.threshold < 1
    assert scorer.probability({"good": 1.0, "cue=x": 1.0}) >= scorer.threshold
    assert scorer.probability({"bad": 1.0, "cue=x": 1.0}) < scorer.threshold
    assert scorer.probability({"good": 1.0}) < scorer.threshold


def test_training_is_deterministic_whatever_the_order_of_the_documents():
    by_document = documents()
    assert train(by_document) == train(by_document)
    assert train(dict(reversed(by_document.items()))) == train(by_document)


def test_trained_on_one_document_the_scorer_keeps_nothing_as_no_document_was_held_out():
    assert train(documents(1)).threshold == 1.0


@pytest.mark.parametrize("by_document", [
    {"a": [Sample({"good": 1.0}, 0, 1.0)], "b": [Sample({"bad": 1.0}, 0, UNKNOWN_TERM_WEIGHT)]},
    {"a": [Sample({"good": 1.0}, 1, 1.0)] * 2},
    {"a": [], "b": []},
])
def test_training_without_both_labels_is_refused(by_document):
    with pytest.raises(TrainingError, match="nothing to learn"):
        train(by_document)


def test_the_corpus_digest_follows_the_bytes_of_the_files_not_their_order(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "gold").mkdir()
    document, gold = tmp_path / "docs" / "a.md", tmp_path / "gold" / "a.json"
    document.write_text("# A\n\nText.\n", encoding="utf-8")
    gold.write_text('{"terms": []}', encoding="utf-8")
    digest = corpus_digest([document, gold])

    assert corpus_digest([gold, document]) == digest
    assert len(digest) == 16 and int(digest, 16) >= 0
    gold.write_text('{"terms": [] }', encoding="utf-8")
    assert corpus_digest([document, gold]) != digest


def test_training_on_the_development_corpus_reproduces_the_committed_scorer(corpus_dir, tmp_path):
    written = tmp_path / "scorer.json"
    train_corpus_scorer(corpus_documents(corpus_dir)[0], corpus_dir, written)
    assert written.read_text(encoding="utf-8") == COMMITTED.read_text(encoding="utf-8"), (
        f"{COMMITTED} is not what the code trains on the corpus; regenerate it from the project root with "
        "`knowledge-assets eval --corpus ../shared/corpus --train-scorer` and commit it")


def test_each_document_is_scored_by_a_scorer_trained_without_it():
    from knowledge_assets.evaluation.scorer_choice import held_out_counts

    seen = [Sample({"genus": 1.0}, 1, 1.0)] * 4 + [Sample({"pronoun": 1.0}, 0, 1.0)] * 4
    by_document = {stem: list(seen) for stem in "abcd"}
    by_document["own"] = [Sample({"own_cue": 1.0}, 1, 1.0)] * 6 + [Sample({"pronoun": 1.0}, 0, 1.0)]
    counts = held_out_counts(by_document, 0.9)
    assert counts["a"] == (4, 4, 0)
    # What only "own" shows is learned from "own" alone: held out, nothing of it is kept.
    assert counts["own"] == (6, 0, 0)
