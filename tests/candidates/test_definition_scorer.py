"""The defining-sentence scorer (`candidates/definition_scorer.py`): a probability from its
weights, the one candidate of a sentence it keeps, its file and the refusal of another
format, the file in use (`KNOWLEDGE_DEFINITION_SCORER`, read again when it changes) and, end to
end, that it decides which defining sentences `find_definitions` keeps."""

from __future__ import annotations

import json
import math
import os
import re

import pytest

from knowledge_assets.candidates.defining_sentences import CUES, NAMING, SUBJECT, Found
from knowledge_assets.candidates.definition_scorer import (
    ABSTAINING,
    COMMITTED,
    FORMAT,
    Scorer,
    current_scorer,
    read_scorer,
    scorer_payload,
)
from knowledge_assets.candidates.definitions import find_definitions
from knowledge_assets.candidates.model import span
from knowledge_assets.candidates.source import SourceChunk

SETTING = "KNOWLEDGE_DEFINITION_SCORER"
# A sentence only the defining-sentence cues find (`A torque wrench is a tool …` is the generic
# finder's): what becomes of it is the scorer's decision alone.
SENTENCE = "A torque wrench measures the twisting force applied to a fastener."


def logistic(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def candidate_of(cue: str, term: str, features: dict[str, float]) -> Found:
    """A candidate over the whole of SENTENCE, found by `cue`, naming `term`."""
    start = SENTENCE.index(term)
    parts = {"term": (start, start + len(term)), "definition": (0, len(SENTENCE))}
    return Found(span("definition", "D::0001", SENTENCE, 0, len(SENTENCE), cue, parts), features)


def write_scorer_file(path, scorer: Scorer) -> None:
    path.write_text(json.dumps(scorer_payload(scorer, {"trained_on": ["tools"]})), encoding="utf-8")


def test_a_positive_weight_raises_the_probability_a_negative_lowers_it_and_an_unknown_feature_counts_nothing():
    scorer = Scorer({"good": 2.0, "bad": -1.5}, 0.25, 0.5)
    assert scorer.probability({}) == pytest.approx(logistic(0.25))
    assert scorer.probability({"good": 1.0}) == pytest.approx(logistic(2.25))
    assert scorer.probability({"bad": 1.0}) == pytest.approx(logistic(-1.25))
    assert scorer.probability({"good": 1.0, "bad": 1.0}) == pytest.approx(logistic(0.75))
    assert scorer.probability({"good": 1.0, "never seen": 1.0}) == scorer.probability({"good": 1.0})


def test_of_one_sentences_candidates_only_the_most_probable_is_kept_and_only_from_the_threshold_up():
    subject = candidate_of(SUBJECT, "torque wrench", {"weak": 1.0})
    naming = candidate_of(NAMING, "fastener", {"strong": 1.0})
    weights = {"weak": 1.0, "strong": 3.0}
    at_strong = logistic(3.0)

    assert Scorer(weights, 0.0, 0.5).kept([subject, naming]) == [naming]
    assert Scorer(weights, 0.0, 0.5).kept([naming, subject]) == [naming]
    assert Scorer(weights, 0.0, at_strong).kept([subject, naming]) == [naming]  # the threshold itself is reached
    assert Scorer(weights, 0.0, at_strong + 1e-9).kept([subject, naming]) == []
    assert Scorer(weights, 0.0, 0.9).kept([subject]) == []  # logistic(1) = 0.73
    assert Scorer(weights, 0.0, 0.5).kept([]) == []


def test_the_abstaining_scorer_keeps_nothing():
    features = {"cue=sentence_subject": 1.0, "genus_follows": 1.0, "term_at_start": 1.0}
    assert ABSTAINING.kept([candidate_of(SUBJECT, "torque wrench", features)]) == []


def test_a_scorer_file_reads_back_as_the_scorer_it_was_written_from(tmp_path):
    scorer = Scorer({"term_marked": 1.25, "cue=sentence_subject": -0.5}, -0.75, 0.62)
    payload = scorer_payload(scorer, {"trained_on": ["a", "b"], "samples": 7})
    assert payload["format"] == FORMAT and payload["trained_on"] == ["a", "b"] and payload["samples"] == 7
    assert list(payload["weights"]) == ["cue=sentence_subject", "term_marked"]  # sorted, for a stable file
    path = tmp_path / "scorer.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    assert read_scorer(path) == scorer


@pytest.mark.parametrize("format_", ["knowledge-assets-definition-scorer/0", None])
def test_a_file_of_another_format_is_refused_and_the_message_names_it(tmp_path, format_):
    path = tmp_path / "other.json"
    payload = {**scorer_payload(Scorer({"a": 1.0}, 0.0, 0.5), {}), "format": format_}
    path.write_text(json.dumps(payload), encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(f"{path}: not a definition scorer file")):
        read_scorer(path)


def test_the_scorer_in_use_is_the_file_the_setting_names_and_a_rewrite_of_it_is_seen(tmp_path, monkeypatch):
    path = tmp_path / "fold.json"
    write_scorer_file(path, Scorer({"a": 1.0}, 0.0, 0.3))
    monkeypatch.setenv(SETTING, str(path))
    assert current_scorer() == Scorer({"a": 1.0}, 0.0, 0.3)

    written = path.stat().st_mtime_ns
    write_scorer_file(path, Scorer({"a": 1.0}, 0.0, 0.7))
    os.utime(path, ns=(written + 10**9, written + 10**9))  # a rewrite within the file system's mtime resolution
    assert current_scorer().threshold == 0.7


def test_without_the_setting_the_committed_scorer_is_in_use(monkeypatch):
    monkeypatch.delenv(SETTING, raising=False)
    assert current_scorer() == (read_scorer(COMMITTED) if COMMITTED.is_file() else ABSTAINING)


@pytest.mark.parametrize(("intercept", "kept"), [(10.0, True), (-10.0, False)])
def test_the_scorer_decides_whether_find_definitions_keeps_a_defining_sentence(tmp_path, monkeypatch, intercept, kept):
    path = tmp_path / "scorer.json"
    write_scorer_file(path, Scorer({}, intercept, 0.5))
    monkeypatch.setenv(SETTING, str(path))
    chunk = SourceChunk(chunk_id="D::0001", text=f"Workshop tools\n\n{SENTENCE}\n", heading_path=["Workshop tools"])

    sentences = [c for c in find_definitions([chunk]) if c.cue in CUES]

    if kept:
        (candidate,) = sentences
        assert candidate.cue == SUBJECT and candidate.text == SENTENCE
        assert candidate.part("term").text == "torque wrench"
    else:
        assert sentences == []
