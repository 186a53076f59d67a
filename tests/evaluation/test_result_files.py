"""Result files (name, merge, refusal) and the metric-by-metric comparison with a baseline."""

import json
from datetime import datetime, timezone

import pytest

from knowledge_assets.evaluation.knowledge_scores import FieldTally
from knowledge_assets.evaluation.result_files import (
    ResultsError,
    compare,
    read_results,
    regressions,
    result_name,
    results_payload,
    write_results,
)
from knowledge_assets.evaluation.scores import DocumentScores, RunInfo

WHEN = datetime(2025, 3, 4, 5, 6, 7, tzinfo=timezone.utc)
OFFLINE = RunInfo("offline", "offline", {"glossary": "a" * 64, "rule": "b" * 64})


def scores(doc_id="DOC-1", e3=0.9, **metrics):
    return DocumentScores(
        doc_id, True, {"e3_schema_fill_precision": e3, "e2_compression": 3.0, **metrics},
        {"abstentions": 4}, {"glossary.definition": FieldTally(10, 9)},
    )


def test_the_name_carries_date_backend_model_and_prompt_hash():
    assert result_name(OFFLINE, WHEN) == f"2025-03-04_offline_{OFFLINE.prompt_hash}.json"
    openai = RunInfo("openai", "gpt-5.4 nano/eu", OFFLINE.prompt_hashes)
    assert result_name(openai, WHEN) == f"2025-03-04_openai-gpt-5.4-nano-eu_{OFFLINE.prompt_hash}.json"


def test_a_result_file_holds_what_produced_the_scores(tmp_path):
    path = write_results(tmp_path, OFFLINE, [scores()], WHEN)
    data = read_results(path)
    assert (data["backend"], data["model"], data["prompt_hashes"]) == ("offline", "offline", OFFLINE.prompt_hashes)
    document = data["documents"]["DOC-1"]
    assert document["prompt_hash"] == OFFLINE.prompt_hash
    assert document["fields"] == {"glossary.definition": {"filled": 10, "correct": 9}}
    assert document["counts"] == {"abstentions": 4}


def test_writing_again_the_same_day_replaces_that_document_and_keeps_the_others(tmp_path):
    write_results(tmp_path, OFFLINE, [scores("DOC-1", 0.5), scores("DOC-2", 0.6)], WHEN)
    path = write_results(tmp_path, OFFLINE, [scores("DOC-1", 0.9)], WHEN)
    documents = read_results(path)["documents"]
    assert {k: v["metrics"]["e3_schema_fill_precision"] for k, v in documents.items()} == {"DOC-1": 0.9, "DOC-2": 0.6}
    assert len(list(tmp_path.iterdir())) == 1


@pytest.mark.parametrize(
    ("content", "cause"),
    [(None, "cannot read"), ("{", "not a UTF-8 JSON file"), ('{"documents": {}}', "not a result file")],
)
def test_an_unreadable_result_file_is_refused_naming_it(tmp_path, content, cause):
    path = tmp_path / "baseline.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(ResultsError, match=cause) as refused:
        read_results(path)
    assert str(path) in str(refused.value)


def payload(*scored):
    return json.loads(json.dumps(results_payload(OFFLINE, list(scored), WHEN)))


def verdicts(baseline, current, tolerance=0.02):
    return {(c.doc_id, c.metric): c.verdict for c in compare(baseline, current, tolerance)}


def test_a_rate_falling_by_more_than_the_tolerance_is_a_regression():
    found = verdicts(payload(scores(e3=0.90)), payload(scores(e3=0.87)))
    assert found[("DOC-1", "e3_schema_fill_precision")] == "regressed"


def test_a_fall_within_the_tolerance_is_ok_and_a_rise_beyond_it_improved():
    assert verdicts(payload(scores(e3=0.90)),
                    payload(scores(e3=0.885)))[("DOC-1", "e3_schema_fill_precision")] == "ok"
    assert verdicts(payload(scores(e3=0.90)),
                    payload(scores(e3=0.95)))[("DOC-1", "e3_schema_fill_precision")] == "improved"
    assert verdicts(payload(scores(e3=0.90)), payload(scores(e3=0.87)),
                    tolerance=0.05)[("DOC-1", "e3_schema_fill_precision")] == "ok"


def test_counts_and_compression_are_information_never_regressions():
    current = DocumentScores("DOC-1", True, {"e3_schema_fill_precision": 0.9, "e2_compression": 1.0},
                             {"abstentions": 9})
    changes = compare(payload(scores()), payload(current))
    found = {c.metric: c.verdict for c in changes}
    assert found["e2_compression"] == "changed" and found["abstentions"] == "changed"
    assert regressions(changes) == []


def test_a_baseline_document_or_rate_no_longer_scored_is_a_regression():
    changes = compare(payload(scores("DOC-1"), scores("DOC-2")), payload(scores("DOC-1", e3=None)))
    failed = {(c.doc_id, c.metric) for c in regressions(changes)}
    assert ("DOC-1", "e3_schema_fill_precision") in failed
    assert ("DOC-2", "e3_schema_fill_precision") in failed and ("DOC-2", "abstentions") in failed


def test_a_document_or_rate_new_since_the_baseline_is_reported_new():
    found = verdicts(payload(scores("DOC-1", e3=None)), payload(scores("DOC-1"), scores("DOC-2")))
    assert found[("DOC-1", "e3_schema_fill_precision")] == "new"
    assert found[("DOC-2", "e3_schema_fill_precision")] == "new"
