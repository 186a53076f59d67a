"""The asset checks as Dagster runs them: per document partition, in the `extract_document` job,
blocking downstream assets on failure, warning on dangle rates above their configured limit."""

from __future__ import annotations

import dagster as dg
import pytest

from knowledge_assets.definitions import defs
from knowledge_assets.defs.checks import BLOCKING_CHECKS, DOCUMENT_CHECKS
from knowledge_assets.store.revisions import CHECKED_ASSETS, revision_state
from tests.support.materialised import (
    check_evaluations,
    check_status,
    materialised_samples,
    run_document,
    skipped_checks,
)

_DANGLE_CHECKED = {"formulas", "rules", "domain_context"}
_CHECKED_ASSETS = set(CHECKED_ASSETS)


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    with pytest.MonkeyPatch.context() as env, materialised_samples(tmp_path_factory.mktemp("checks"), env) as samples:
        yield samples


def test_every_check_passes_on_each_sample_partition_or_is_skipped_with_its_reason(samples):
    expected = {(asset, name) for asset in _CHECKED_ASSETS for name in BLOCKING_CHECKS}
    expected |= {(asset, "dangle_rate") for asset in _DANGLE_CHECKED}
    expected |= {(asset, name) for asset, (name, _, _) in DOCUMENT_CHECKS.items()}
    for doc_id, result in samples.results.items():
        evaluations = {key: e for key, e in check_evaluations(result).items() if key[0] in _CHECKED_ASSETS}
        skipped = {key: reason for key, reason in skipped_checks(samples.instance, result).items()
                   if key[0] in _CHECKED_ASSETS}
        assert set(evaluations) | set(skipped) == expected and not set(evaluations) & set(skipped)
        assert all(e.passed and e.partition == doc_id for e in evaluations.values()), doc_id
        # The store recorded that every checked asset's blocking checks ended and passed.
        assert revision_state(samples.store, doc_id).current, doc_id
    # The one-page Markdown sample has no yield to judge: skipped, as Dagster shows it, not passed.
    markdown = samples.doc_ids[1]
    reasons = skipped_checks(samples.instance, samples.results[markdown])
    assert reasons == {("domain_context", "document_yield"): "1 page: the yield is judged on longer documents"}
    assert check_status(samples.instance, "domain_context", "document_yield", markdown).value == "SKIPPED"
    assert check_status(samples.instance, "glossary", "spans_verbatim", markdown).value == "SUCCEEDED"


def test_a_table_without_rows_skips_its_row_checks_and_dangle_rate(tmp_path):
    from knowledge_assets.ingest.documents import identify
    from knowledge_assets.store.registry import register

    note = tmp_path / "note.md"
    note.write_text("# 1. Scope\n\nThis note lists who attended the meeting.\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as env, materialised_samples(tmp_path, env, paths=()) as samples:
        doc_id = register(samples.store, identify(note, "NOTE-1")).source.doc_id
        result = run_document(samples.instance, doc_id)
        assert result.success
        reasons = skipped_checks(samples.instance, result)
        assert reasons[("formulas", "spans_verbatim")] == "no formulas rows to check"
        assert reasons[("formulas", "dangle_rate")] == "variables_without_term: no links to count"
        assert ("formulas", "spans_verbatim") not in check_evaluations(result)
        assert check_status(samples.instance, "formulas", "contract_valid", doc_id).value == "SKIPPED"


def test_only_the_dangle_and_yield_checks_are_non_blocking():
    graph = defs.get_repository_def().asset_graph
    checks = [graph.get(key) for key in graph.asset_check_keys if key.asset_key.to_user_string() in _CHECKED_ASSETS]
    assert len(checks) == len(_CHECKED_ASSETS) * len(BLOCKING_CHECKS) + len(_DANGLE_CHECKED) + len(DOCUMENT_CHECKS)
    for check in checks:
        assert check.blocking == (check.key.name not in ("dangle_rate", "document_yield")), check.key
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


def test_a_long_document_that_yields_nothing_warns_with_its_per_page_yield(tmp_path):
    from knowledge_assets.ingest.documents import identify
    from knowledge_assets.store.registry import register

    prose = tmp_path / "letter.txt"
    prose.write_text("\f".join(f"We met on day {n} and talked about the weather at length." for n in range(3)),
                     encoding="utf-8")
    with pytest.MonkeyPatch.context() as env, materialised_samples(tmp_path, env, paths=()) as samples:
        doc_id = register(samples.store, identify(prose, "LETTER-1")).source.doc_id
        result = run_document(samples.instance, doc_id)
    assert result.success
    found = check_evaluations(result)[("domain_context", "document_yield")]
    assert not found.passed and found.severity == dg.AssetCheckSeverity.WARN
    assert "no definitions" in found.description and "no formulas and no rules" in found.description
    assert found.metadata["pages"].value == 3 and found.metadata["definitions_per_page"].value == 0.0


def test_the_sample_pdf_passes_the_yield_check(samples):
    found = check_evaluations(samples.results[samples.doc_ids[0]])[("domain_context", "document_yield")]
    assert found.passed and found.metadata["definitions"].value > 0


def test_assets_left_on_an_older_revision_fail_the_blocking_check_and_export_names_them(tmp_path):
    import shutil

    from knowledge_assets.export import ExportError, export_document
    from knowledge_assets.ingest.documents import identify
    from knowledge_assets.store.registry import register
    from tests.conftest import SAMPLE_MARKDOWN

    doc = tmp_path / "kpi.md"
    shutil.copy(SAMPLE_MARKDOWN, doc)
    with pytest.MonkeyPatch.context() as env, materialised_samples(tmp_path, env, paths=()) as samples:
        register(samples.store, identify(doc, "KPI-R"))
        assert run_document(samples.instance, "KPI-R").success
        doc.write_text(doc.read_text(encoding="utf-8") + "\n\n## 9. Added\n\nA new section.\n", encoding="utf-8")
        assert register(samples.store, identify(doc, "KPI-R")).revision == 2
        # What a run killed after the term funnel leaves: the first two assets on revision 2.
        head = run_document(samples.instance, "KPI-R",
                            asset_selection=[dg.AssetKey("parsed_chunks"), dg.AssetKey("term_clusters")])
        assert head.success
        with pytest.raises(ExportError) as refused:
            export_document(samples.store, "KPI-R", tmp_path / "out")
        assert "revision 2" in str(refused.value)
        assert "formulas (revision 1), glossary (revision 1), rules (revision 1)" in str(refused.value)
        assert "parsed_chunks" not in str(refused.value)
        tail = run_document(samples.instance, "KPI-R", asset_selection=[dg.AssetKey("review_queue")])
        check = check_evaluations(tail)[("review_queue", "revisions_consistent")]
        assert not tail.success and not check.passed and "formulas" in check.metadata["assets_behind"].value
        # The next full run completes them.
        assert run_document(samples.instance, "KPI-R").success
        assert len(export_document(samples.store, "KPI-R", tmp_path / "out")) == 7
