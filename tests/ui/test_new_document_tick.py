"""A document dropped into the inbox, picked up by the real `dagster-daemon`'s sensor ticks
against an instance with the project's settings: the partition is added, one run is requested,
and the next tick requests nothing. The scheduled re-extraction, evaluated against the same
instance, leaves the partition to that queued run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import dagster as dg

from knowledge_assets.definitions import defs
from knowledge_assets.defs.resources import KnowledgeStore
from knowledge_assets.store.database import DuckDBStore
from tests.conftest import PROJECT_ROOT, SAMPLE_MARKDOWN
from tests.ui.servers import WORKSPACE, dagster_process, project_instance_config, wait_for

DOC_ID = "INBOX-KPI-1"
_BIN = Path(sys.executable).parent


def _sensor_ticks(instance: dg.DagsterInstance, count: int) -> list | None:
    """The sensor's ticks, oldest first, once `count` of them have finished."""
    states = [s for s in instance.all_instigator_state() if s.instigator_name == "new_documents"]
    if not states:
        return None
    ticks = instance.get_ticks(states[0].instigator_origin_id, states[0].selector_id)
    done = [t for t in reversed(ticks) if t.status.value != "STARTED"]
    return done if len(done) >= count else None


def test_a_dropped_file_gets_its_partition_and_one_run_and_the_next_tick_requests_nothing(tmp_path, monkeypatch):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(SAMPLE_MARKDOWN, inbox / "kpi.md")
    (inbox / "kpi.md.meta.json").write_text(json.dumps({"doc_id": DOC_ID}), encoding="utf-8")
    for name, value in {"KNOWLEDGE_INBOX": inbox, "KNOWLEDGE_DB": tmp_path / "knowledge.duckdb",
                        "KNOWLEDGE_LLM_BACKEND": "offline"}.items():
        monkeypatch.setenv(name, str(value))
    config = project_instance_config(tmp_path)
    # No run may start: this test is about what the tick requests, not about the extraction.
    config["concurrency"]["runs"]["max_concurrent_runs"] = 0
    (tmp_path / "dagster").mkdir()
    with dg.instance_for_test(overrides=config, temp_dir=str(tmp_path / "dagster")) as instance:
        subprocess.run([str(_BIN / "dagster"), "sensor", "start", "new_documents", "-w", str(WORKSPACE)],
                       cwd=PROJECT_ROOT, check=True, capture_output=True)
        log = tmp_path / "daemon.log"
        with dagster_process([str(_BIN / "dagster-daemon"), "run", "-w", str(WORKSPACE)], log) as daemon:
            first, second = wait_for(lambda: _sensor_ticks(instance, 2), "two ticks of new_documents", daemon, log)[:2]

        assert instance.has_dynamic_partition("documents", DOC_ID)
        runs = instance.get_runs(filters=dg.RunsFilter(tags={"dagster/partition": DOC_ID}))
        assert len(runs) == 1
        run = runs[0]
        assert run.job_name == "extract_document" and run.status == dg.DagsterRunStatus.QUEUED
        assert run.tags["knowledge_assets/source_file"] == "kpi.md"
        assert first.status.value == "SUCCESS" and list(first.run_ids) == [run.run_id]
        assert second.status.value == "SKIPPED" and second.skip_reason == "no new documents or revisions in the inbox"
        registered = DuckDBStore(tmp_path / "knowledge.duckdb").fetch(
            "SELECT doc_id, revision, file_name FROM documents")
        assert registered == [{"doc_id": DOC_ID, "revision": 1, "file_name": "kpi.md"}]

        with dg.build_schedule_context(
            instance=instance, repository_def=defs.get_repository_def(),
            scheduled_execution_time=datetime.now(timezone.utc), resources={"knowledge_store": KnowledgeStore()},
        ) as context:
            scheduled = defs.resolve_schedule_def("reextract_stale").evaluate_tick(context)
        assert scheduled.run_requests == []  # never materialised, but its queued run will do it
