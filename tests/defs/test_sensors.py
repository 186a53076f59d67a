"""The new-document sensor against a real temporary instance and a real inbox folder."""

import json
import shutil

import dagster as dg
import pytest

from knowledge_assets.defs.jobs import RUNNABLE
from knowledge_assets.defs.resources import Inbox, KnowledgeStore
from knowledge_assets.defs.sensors import failed_document_checks, new_documents
from knowledge_assets.ingest.inbox import InboxCursor, advance, scan_inbox
from knowledge_assets.store.database import DuckDBStore
from tests.conftest import SAMPLE_MARKDOWN


@pytest.fixture
def inbox(tmp_path):
    folder = tmp_path / "inbox"
    folder.mkdir()
    return folder


def _tick(instance, inbox, tmp_path, cursor=None, limit=10):
    with dg.build_sensor_context(
        instance=instance, cursor=cursor,
        resources={"inbox": Inbox(path=str(inbox), max_runs_per_tick=limit),
                   "knowledge_store": KnowledgeStore(database=str(tmp_path / "k.duckdb"))},
    ) as context:  # the store resource holds its connection for the tick, released on exit
        return new_documents(context)


def _drop(inbox, name, text, doc_id=None):
    (inbox / name).write_text(text, encoding="utf-8")
    if doc_id:
        (inbox / f"{name}.meta.json").write_text(json.dumps({"doc_id": doc_id}))


def test_a_new_document_gets_its_partition_and_one_run_and_a_second_tick_nothing(instance, inbox, tmp_path):
    shutil.copy(SAMPLE_MARKDOWN, inbox / "kpi.md")
    (inbox / "kpi.md.meta.json").write_text(json.dumps({"doc_id": "KPI-1"}))
    first = _tick(instance, inbox, tmp_path)
    assert [r.partition_key for r in first.run_requests] == ["KPI-1"]
    assert first.dynamic_partitions_requests[0].partition_keys == ["KPI-1"]
    registered = DuckDBStore(tmp_path / "k.duckdb").fetch("SELECT doc_id, file_name FROM documents")
    assert registered == [{"doc_id": "KPI-1", "file_name": "kpi.md"}]
    second = _tick(instance, inbox, tmp_path, cursor=first.cursor)
    assert second.run_requests == [] and second.dynamic_partitions_requests == []


def test_a_new_revision_of_a_known_document_is_run_again_under_the_same_partition(instance, inbox, tmp_path):
    _drop(inbox, "sop.md", "# 1. Scope\n\nv1\n", doc_id="SOP-1")
    first = _tick(instance, inbox, tmp_path)
    instance.add_dynamic_partitions("documents", ["SOP-1"])
    _drop(inbox, "sop.md", "# 1. Scope\n\nv2\n")
    second = _tick(instance, inbox, tmp_path, cursor=first.cursor)
    assert [r.partition_key for r in second.run_requests] == ["SOP-1"]
    assert second.run_requests[0].run_key != first.run_requests[0].run_key
    assert second.dynamic_partitions_requests == []  # the partition already exists


def test_a_removed_file_deletes_nothing(instance, inbox, tmp_path):
    _drop(inbox, "sop.md", "# 1. Scope\n\nv1\n", doc_id="SOP-1")
    first = _tick(instance, inbox, tmp_path)
    (inbox / "sop.md").unlink()
    second = _tick(instance, inbox, tmp_path, cursor=first.cursor)
    assert second.run_requests == [] and second.dynamic_partitions_requests == []


def test_runs_per_tick_are_capped_and_the_rest_wait(instance, inbox, tmp_path):
    for i in range(5):
        _drop(inbox, f"d{i}.md", f"# 1. Doc {i}\n\nbody {i}\n")
    first = _tick(instance, inbox, tmp_path, limit=2)
    second = _tick(instance, inbox, tmp_path, cursor=first.cursor, limit=2)
    third = _tick(instance, inbox, tmp_path, cursor=second.cursor, limit=2)
    keys = [r.partition_key for t in (first, second, third) for r in t.run_requests]
    assert len(first.run_requests) == 2 and len(keys) == 5 and len(set(keys)) == 5


def test_an_unreadable_file_is_reported_once_and_the_others_still_run(inbox):
    (inbox / "empty.md").write_bytes(b"")
    _drop(inbox, "ok.md", "# 1. Scope\n\nfine\n")
    store = DuckDBStore(inbox.parent / "k.duckdb")
    scan = scan_inbox(store, inbox, InboxCursor(), limit=10)
    assert [e.cause for e in scan.unreadable] == ["empty file (0 bytes)"]
    assert [s.path.name for s in scan.to_run] == ["ok.md"]
    again = scan_inbox(store, inbox, InboxCursor.parse(advance(InboxCursor(), scan).dump()), limit=10)
    assert again.unreadable == [] and again.to_run == []


def test_a_file_dropped_again_under_its_name_is_a_new_revision_and_a_copy_is_reported_once(instance, inbox, tmp_path):
    _drop(inbox, "sop.md", "# 1. Scope\n\nv1\n")
    first = _tick(instance, inbox, tmp_path)
    [doc_id] = [r.partition_key for r in first.run_requests]
    instance.add_dynamic_partitions("documents", [doc_id])
    _drop(inbox, "sop.md", "# 1. Scope\n\nv2\n")
    shutil.copy(inbox / "sop.md", inbox / "sop copy.md")
    second = _tick(instance, inbox, tmp_path, cursor=first.cursor)
    assert [r.partition_key for r in second.run_requests] == [doc_id]  # no sidecar: the name says which
    assert second.dynamic_partitions_requests == []
    registered = DuckDBStore(tmp_path / "k.duckdb").fetch("SELECT revision, file_name FROM documents ORDER BY revision")
    assert registered == [{"revision": 1, "file_name": "sop.md"}, {"revision": 2, "file_name": "sop.md"}]
    store = DuckDBStore(tmp_path / "k.duckdb")
    seen_first = scan_inbox(store, inbox, InboxCursor.parse(first.cursor), limit=10)
    assert [a.describe() for a in seen_first.aliases] == [f"same content as {doc_id} (sop.md); not registered again"]
    seen_second = scan_inbox(store, inbox, InboxCursor.parse(second.cursor), limit=10)
    assert seen_second.aliases == [] and seen_second.to_run == []  # reported on the second tick, not again


def _failed_run(instance, job_name: str, tags: dict[str, str], keys=("missing-doc",)):
    """A failed run of `job_name` over documents no store holds: it fails where a bad file's would."""
    job = RUNNABLE.resolve_job_def(job_name)
    instance.add_dynamic_partitions("documents", list(keys))
    result = job.execute_in_process(instance=instance, raise_on_error=False, tags=tags,
                                    partition_key=tags.get("dagster/partition"))
    assert not result.success
    run = instance.get_run_by_id(result.run_id)
    failure = next(e for e in result.all_events if e.event_type == dg.DagsterEventType.RUN_FAILURE)
    return run, failure


def _failure_requests(instance, run, failure) -> list[dg.RunRequest]:
    context = dg.build_run_status_sensor_context(
        sensor_name="failed_document_checks", dagster_event=failure, dagster_instance=instance, dagster_run=run,
    ).for_run_failure()
    return list(failed_document_checks(context) or [])


def test_a_failed_run_launched_from_the_ui_has_its_documents_checks_run_again_and_a_cli_run_not(
        instance, tmp_path, monkeypatch):
    monkeypatch.setenv("KNOWLEDGE_DB", str(tmp_path / "empty.duckdb"))
    run, failure = _failed_run(instance, "extract_document", {"dagster/partition": "missing-doc"})
    [request] = _failure_requests(instance, run, failure)
    assert request.tags["dagster/partition"] == "missing-doc" and request.run_key == f"{run.run_id}:missing-doc"

    cli_run, cli_failure = _failed_run(instance, "extract_document", {
        "dagster/partition": "missing-doc", "knowledge_assets/launched_by": "cli"})
    assert _failure_requests(instance, cli_run, cli_failure) == []


def test_a_failed_range_run_or_a_run_of_the_uis_materialize_has_each_failed_documents_checks_run_again(
        instance, tmp_path, monkeypatch):
    monkeypatch.setenv("KNOWLEDGE_DB", str(tmp_path / "empty.duckdb"))
    keys = ("doc-a", "doc-b", "doc-c")
    run, failure = _failed_run(instance, "extract_document", {
        "dagster/asset_partition_range_start": "doc-a", "dagster/asset_partition_range_end": "doc-b"}, keys)
    # Each document of the range failed (none is in the store), and each is named.
    assert sorted(r.tags["dagster/partition"] for r in _failure_requests(instance, run, failure)) == [
        "doc-a", "doc-b"]

    # What "Materialize" on the asset graph launches: Dagster's own asset job, not extract_document.
    implicit = RUNNABLE.resolve_implicit_global_asset_job_def().name
    run, failure = _failed_run(instance, implicit, {"dagster/partition": "doc-c"}, keys)
    assert [r.tags["dagster/partition"] for r in _failure_requests(instance, run, failure)] == ["doc-c"]
