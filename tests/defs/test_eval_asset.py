"""The eval_scores asset as Dagster runs it: in the extract_document job, per document
partition, with its kill-line checks; for the samples, a document without gold, and a
document whose outputs miss its gold."""

from __future__ import annotations

import json

import dagster as dg
import pytest

from knowledge_assets.evaluation.scores import METRICS
from tests.conftest import SAMPLE_MARKDOWN, SAMPLE_PDF
from tests.support.materialised import check_evaluations, check_status, materialised_samples, skipped_checks

KILL_CHECKS = {"e1_kill_line", "e3_kill_line"}


def metadata(result: dg.ExecuteInProcessResult, asset: str = "eval_scores") -> dict[str, object]:
    (event,) = [e for e in result.get_asset_materialization_events() if e.asset_key == dg.AssetKey(asset)]
    return {k: v.value for k, v in event.event_specific_data.materialization.metadata.items()}


def kill_line_checks(result: dg.ExecuteInProcessResult) -> dict[str, dg.AssetCheckEvaluation]:
    return {name: e for (asset, name), e in check_evaluations(result).items() if asset == "eval_scores"}


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    with pytest.MonkeyPatch.context() as env, materialised_samples(tmp_path_factory.mktemp("eval"), env) as samples:
        yield samples


@pytest.fixture(scope="module")
def strangers(tmp_path_factory):
    """A document nobody annotated, and one registered under a sample's doc_id whose content
    is not that sample, so its outputs cannot match the sample's gold."""
    root = tmp_path_factory.mktemp("strangers")
    unannotated = root / "note.md"
    unannotated.write_text(
        "# 1. Scope\n\nFill Factor (FF) adalah perbandingan volume.\n\nFF naik bila Fill Factor naik.\n")
    impostor = root / "impostor.md"
    impostor.write_text(
        "# 1. Cuaca\n\nCurah hujan dicatat setiap hari.\n\n## 1.1. Rain Gauge (RG)\n\nRG adalah alat ukur hujan.\n")
    (root / "impostor.md.meta.json").write_text(json.dumps({"doc_id": "SKT-MNT-KPI-002"}))
    (root / "run").mkdir()
    with pytest.MonkeyPatch.context() as env, materialised_samples(root / "run", env, (unannotated, impostor)) as run:
        yield run


@pytest.mark.parametrize("path", [SAMPLE_PDF, SAMPLE_MARKDOWN])
def test_a_sample_scores_every_metric_as_a_float_with_what_produced_it(samples, path):
    doc_id = next(d for d in samples.doc_ids if d.startswith("SKT-STD" if path == SAMPLE_PDF else "SKT-MNT"))
    meta = metadata(samples.results[doc_id])
    assert meta["has_gold"] is True
    assert (meta["doc_id"], meta["file_name"]) == (doc_id, path.name)
    assert all(isinstance(meta[metric], float) for metric in METRICS)
    assert (meta["llm_backend"], meta["llm_deployment"]) == ("offline", "offline")
    assert {k for k in meta if k.startswith("prompt_sha256_")} == {
        f"prompt_sha256_{b}" for b in ("glossary", "formula", "rule", "domain_context")
    }
    glossary = metadata(samples.results[doc_id], "glossary")
    assert meta["glossary_entries"] == glossary["entries"]
    assert meta["definitions_found"] == glossary["with_definition"]
    assert meta["abstentions"] == glossary["abstained"]
    assert meta["formulas_found"] == metadata(samples.results[doc_id], "formulas")["formulas"]


def test_the_samples_pass_both_kill_lines_offline(samples):
    for doc_id, result in samples.results.items():
        checks = kill_line_checks(result)
        assert set(checks) == KILL_CHECKS
        assert all(c.passed and c.partition == doc_id and c.severity == dg.AssetCheckSeverity.ERROR
                   for c in checks.values())
        meta = metadata(result)
        assert meta["e1_term_filter_recall"] >= 0.70 and meta["e3_schema_fill_precision"] >= 0.80


def test_the_scores_are_a_row_of_eval_scores(samples):
    rows = samples.store.fetch(
        "SELECT doc_id, has_gold, backend, e3_schema_fill_precision, len(fields) AS n_fields "
        "FROM eval_scores ORDER BY doc_id"
    )
    assert [r["doc_id"] for r in rows] == sorted(samples.doc_ids)
    for row in rows:
        meta = metadata(samples.results[row["doc_id"]])
        assert row["has_gold"] and row["backend"] == "offline"
        assert row["e3_schema_fill_precision"] == meta["e3_schema_fill_precision"] and row["n_fields"] > 5


def test_a_document_without_gold_materialises_with_no_scores_and_its_kill_lines_skipped(strangers):
    doc_id = next(d for d in strangers.doc_ids if d != "SKT-MNT-KPI-002")
    result = strangers.results[doc_id]
    assert result.success
    meta = metadata(result)
    assert meta["has_gold"] is False and not set(METRICS) & set(meta)
    assert kill_line_checks(result) == {}
    skipped = {check: reason for (asset, check), reason in skipped_checks(strangers.instance, result).items()
               if asset == "eval_scores"}
    assert skipped == dict.fromkeys(KILL_CHECKS, "no gold: nothing to score")
    assert {check_status(strangers.instance, "eval_scores", check, doc_id).value for check in KILL_CHECKS} == {
        "SKIPPED"}
    (row,) = strangers.store.fetch("SELECT has_gold, e1_term_filter_recall FROM eval_scores WHERE doc_id = ?", [doc_id])
    assert row == {"has_gold": False, "e1_term_filter_recall": None}


def test_outputs_that_miss_their_gold_fail_both_kill_lines_with_severity_error(strangers):
    result = strangers.results["SKT-MNT-KPI-002"]
    checks = kill_line_checks(result)
    assert {name: c.passed for name, c in checks.items()} == {"e1_kill_line": False, "e3_kill_line": False}
    assert all(c.severity == dg.AssetCheckSeverity.ERROR for c in checks.values())
    assert metadata(result)["e1_term_filter_recall"] < 0.70
