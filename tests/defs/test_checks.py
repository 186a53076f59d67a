"""The asset checks as Dagster runs them: per document partition, in the `extract_document` job,
blocking downstream assets on failure, warning on dangle rates above their configured limit."""

from __future__ import annotations

import dagster as dg
import pytest

from knowledge_assets.defs.checks import BLOCKING_CHECKS
from knowledge_assets.definitions import defs
from tests.support.materialised import check_evaluations, materialised_samples, run_document

_DANGLE_CHECKED = {"formulas", "rules", "domain_context"}
_CHECKED_ASSETS = {"formulas", "glossary", "rules", "domain_context", "review_queue"}


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    with pytest.MonkeyPatch.context() as env, materialised_samples(tmp_path_factory.mktemp("checks"), env) as samples:
        yield samples


def test_every_check_runs_and_passes_on_each_sample_partition(samples):
    expected = {(asset, name) for asset in _CHECKED_ASSETS for name in BLOCKING_CHECKS}
    expected |= {(asset, "dangle_rate") for asset in _DANGLE_CHECKED}
    for doc_id, result in samples.results.items():
        evaluations = {key: e for key, e in check_evaluations(result).items() if key[0] in _CHECKED_ASSETS}
        assert set(evaluations) == expected
        assert all(e.passed and e.partition == doc_id for e in evaluations.values()), doc_id


def test_only_the_dangle_checks_are_non_blocking():
    graph = defs.get_repository_def().asset_graph
    checks = [graph.get(key) for key in graph.asset_check_keys if key.asset_key.to_user_string() in _CHECKED_ASSETS]
    assert len(checks) == len(_CHECKED_ASSETS) * len(BLOCKING_CHECKS) + len(_DANGLE_CHECKED)
    for check in checks:
        assert check.blocking == (check.key.name != "dangle_rate"), check.key
        assert check.partitions_def == dg.DynamicPartitionsDefinition(name="documents")


def test_a_failing_blocking_check_keeps_downstream_assets_from_running(samples):
    doc_id = samples.doc_ids[1]
    # A canonical edited in the store: the glossary keeps the cluster's old term_id, which the
    # contract's formula no longer derives — an id an approval could not follow across runs.
    edited = samples.store.fetch(
        "UPDATE term_clusters SET canonical = canonical || ' (edited)' WHERE doc_id = ? AND rank = 1 RETURNING term_id",
        [doc_id],
    )[0]["term_id"]
    result = run_document(samples.instance, doc_id, asset_selection=[
        dg.AssetKey("glossary"), dg.AssetKey("domain_context"), dg.AssetKey("review_queue")])
    assert not result.success
    evaluation = check_evaluations(result)[("glossary", "ids_unique_and_stable")]
    assert not evaluation.passed and evaluation.partition == doc_id
    assert edited in evaluation.metadata["findings"].value
    materialised = {e.asset_key.to_user_string() for e in result.get_asset_materialization_events()}
    assert materialised == {"glossary"}  # domain_context and review_queue did not run


def test_a_dangle_rate_above_its_configured_threshold_warns_without_failing_the_run(samples):
    doc_id = samples.doc_ids[0]
    strict = {"ops": {"formulas_checks": {"config": {"variables_without_term": 0.0}}}}
    result = run_document(samples.instance, doc_id, asset_selection=[dg.AssetKey("formulas")], run_config=strict)
    assert result.success
    dangle = check_evaluations(result)[("formulas", "dangle_rate")]
    assert not dangle.passed and dangle.severity == dg.AssetCheckSeverity.WARN
    assert dangle.metadata["threshold"].value == 0.0 and dangle.metadata["dangling"].value > 0
