"""The scheduled re-extraction evaluated against a real instance holding materialised documents:
runs only for partitions that are not current, and only for what is stale in them."""

from __future__ import annotations

import shutil
from datetime import datetime, timezone

import dagster as dg
import pytest

from knowledge_assets.definitions import defs
from knowledge_assets.defs import schedules
from knowledge_assets.defs.assets import document_assets
from knowledge_assets.defs.resources import KnowledgeStore
from knowledge_assets.ingest.documents import identify
from knowledge_assets.store.registry import register
from tests.conftest import SAMPLE_MARKDOWN
from tests.support.materialised import materialised_samples

ALL_ASSETS = sorted(key.to_user_string() for asset in document_assets for key in asset.keys)


@pytest.fixture(scope="module")
def materialised(tmp_path_factory):
    # Copies the tests may edit: the Markdown sample and a one-section procedure.
    root = tmp_path_factory.mktemp("schedules")
    folder = root / "docs"
    folder.mkdir()
    editable = folder / "kpi.md"
    shutil.copy(SAMPLE_MARKDOWN, editable)
    (folder / "scope.md").write_text("# 1. Scope\n\nMTTR adalah rata-rata waktu perbaikan.\n", encoding="utf-8")
    with (pytest.MonkeyPatch.context() as env,
          materialised_samples(root, env, paths=(folder / "scope.md", editable)) as samples):
        yield samples, editable


@pytest.fixture
def samples(materialised):
    """The materialised documents, put back as they were after each test."""
    samples, editable = materialised
    text, runs = editable.read_text(encoding="utf-8"), set(samples.instance.get_run_ids())
    yield samples, editable
    editable.write_text(text, encoding="utf-8")
    for doc_id in set(samples.instance.get_dynamic_partitions("documents")) - set(samples.doc_ids):
        samples.instance.delete_dynamic_partition("documents", doc_id)
    for run_id in set(samples.instance.get_run_ids()) - runs:
        samples.instance.delete_run(run_id)


def tick(instance: dg.DagsterInstance) -> dg.ScheduleExecutionData:
    with dg.build_schedule_context(
        instance=instance, repository_def=defs.get_repository_def(),
        scheduled_execution_time=datetime(2026, 11, 30, 3, tzinfo=timezone.utc),
        resources={"knowledge_store": KnowledgeStore()},
    ) as context:  # the store resource holds its connection for the tick, released on exit
        return defs.resolve_schedule_def("reextract_stale").evaluate_tick(context)


def requested(data: dg.ScheduleExecutionData) -> dict[str, list[str]]:
    return {r.partition_key: sorted(k.to_user_string() for k in r.asset_selection) for r in data.run_requests or []}


def test_current_partitions_get_no_run(samples):
    materialised, _ = samples
    data = tick(materialised.instance)
    assert data.run_requests == [] and data.skip_message == "all 2 document partitions are current (or already running)"


def test_a_partition_never_materialised_gets_one_run_for_every_asset_and_the_current_ones_none(samples, tmp_path):
    materialised, _ = samples
    new = tmp_path / "sop.md"
    new.write_text("# 1. Scope\n\nThis procedure covers Physical Availability (PA).\n", encoding="utf-8")
    doc_id = register(materialised.store, identify(new)).source.doc_id
    materialised.instance.add_dynamic_partitions("documents", [doc_id])
    data = tick(materialised.instance)
    assert requested(data) == {doc_id: ALL_ASSETS}
    request = data.run_requests[0]
    assert request.tags["knowledge_assets/launched_by"] == "reextract_stale"
    assert "glossary: never materialized" in request.tags["knowledge_assets/not_current"]


def test_a_document_whose_file_changed_is_re_parsed_with_everything_downstream(samples):
    materialised, editable = samples
    editable.write_text(editable.read_text(encoding="utf-8") + "\nRevisi: target PA dinaikkan.\n", encoding="utf-8")
    changed = materialised.doc_ids[1]
    data = tick(materialised.instance)
    assert requested(data) == {changed: ALL_ASSETS}
    assert "parsed_chunks: source file changed" in data.run_requests[0].tags["knowledge_assets/not_current"]


def test_a_partition_with_a_run_in_progress_is_left_to_that_run(samples):
    materialised, editable = samples
    editable.write_text(editable.read_text(encoding="utf-8") + "\nRevisi kedua.\n", encoding="utf-8")
    materialised.instance.create_run_for_job(
        defs.resolve_job_def("extract_document"), tags={"dagster/partition": materialised.doc_ids[1]},
        status=dg.DagsterRunStatus.STARTED,
    )
    assert tick(materialised.instance).run_requests == []


def test_the_schedule_is_daily_and_stopped_unless_configured():
    schedule = defs.resolve_schedule_def("reextract_stale")
    assert schedule.cron_schedule == schedules.DEFAULT_CRON == "0 3 * * *"
    assert schedule.default_status == dg.DefaultScheduleStatus.STOPPED
    assert schedule.job_name == "extract_document"


def test_cron_and_enablement_come_from_the_environment():
    cron, enabled = schedules.schedule_settings(
        {schedules.CRON_VARIABLE: "30 1 * * 1", schedules.ENABLED_VARIABLE: "true"})
    schedule = schedules.reextract_schedule(cron, enabled)
    assert schedule.cron_schedule == "30 1 * * 1" and schedule.default_status == dg.DefaultScheduleStatus.RUNNING
    assert schedules.schedule_settings({}) == ("0 3 * * *", False)


def test_a_bad_enablement_value_is_refused_naming_the_variable():
    with pytest.raises(ValueError, match="KNOWLEDGE_REEXTRACT_ENABLED='sometimes': use true or false"):
        schedules.schedule_settings({schedules.ENABLED_VARIABLE: "sometimes"})


def test_a_bad_cron_is_refused_naming_the_variable(monkeypatch):
    monkeypatch.setenv(schedules.CRON_VARIABLE, "every day")
    with pytest.raises(ValueError, match="KNOWLEDGE_REEXTRACT_CRON='every day' is not a valid cron schedule"):
        schedules.load_schedules()
