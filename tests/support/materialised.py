"""Sample documents materialised offline through the real `extract_document` job (the one
the sensor and the schedule launch, asset checks included) against a temporary instance."""

from __future__ import annotations

import asyncio
import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import pytest

from knowledge_assets.definitions import defs
from knowledge_assets.ingest.documents import identify
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.registry import register
from tests.conftest import SAMPLE_MARKDOWN, SAMPLE_PDF


@dataclass
class Samples:
    store: DuckDBStore
    instance: dg.DagsterInstance
    doc_ids: list[str]
    results: dict[str, dg.ExecuteInProcessResult]


def run_document(instance: dg.DagsterInstance, doc_id: str, **subset) -> dg.ExecuteInProcessResult:
    if not instance.has_dynamic_partition("documents", doc_id):
        instance.add_dynamic_partitions("documents", [doc_id])
    job = defs.resolve_job_def("extract_document")
    return job.execute_in_process(instance=instance, partition_key=doc_id, raise_on_error=False, **subset)


def run_through_launcher(root: Path, path: Path, set_env: dict[str, str],
                         unset: tuple[str, ...] = ()) -> tuple[DuckDBStore, str]:
    """The whole graph for one document as `knowledge-assets run` launches it, in a store and an
    instance of its own under `root`, with `set_env` set and `unset` removed for the run."""
    from knowledge_assets.run_control.launch import materialize_document

    store = DuckDBStore(root / "knowledge.duckdb")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("KNOWLEDGE_DB", str(store.path))
        for name, value in set_env.items():
            env.setenv(name, value)
        for name in unset:
            env.delenv(name, raising=False)
        (root / "dagster").mkdir()
        with dg.instance_for_test(temp_dir=str(root / "dagster")) as instance:
            doc_id = register(store, identify(path)).source.doc_id
            outcome = materialize_document(instance, doc_id)
    assert outcome.success, outcome.error
    return store, doc_id


@contextmanager
def materialised_samples(root: Path, env: pytest.MonkeyPatch, paths=(SAMPLE_PDF, SAMPLE_MARKDOWN),
                         instance_config: dict | None = None):
    """`instance_config`: dagster.yaml settings for the instance in `root/dagster` (DAGSTER_HOME)."""
    store = DuckDBStore(root / "knowledge.duckdb")
    env.setenv("KNOWLEDGE_DB", str(store.path))
    env.setenv("KNOWLEDGE_LLM_BACKEND", "offline")
    (root / "dagster").mkdir()
    with dg.instance_for_test(overrides=instance_config, temp_dir=str(root / "dagster")) as instance:
        doc_ids = [register(store, identify(path)).source.doc_id for path in paths]
        results = {doc_id: run_document(instance, doc_id) for doc_id in doc_ids}
        yield Samples(store, instance, doc_ids, results)


def check_evaluations(result: dg.ExecuteInProcessResult) -> dict[tuple[str, str], dg.AssetCheckEvaluation]:
    return {
        (e.event_specific_data.asset_key.to_user_string(), e.event_specific_data.check_name): e.event_specific_data
        for e in result.all_events
        if e.event_type_value == "ASSET_CHECK_EVALUATION"
    }


# One document's skip, or several documents' with one reason (`batch.log_skipped`).
_SKIPPED = re.compile(r"check (?P<asset>[^:]+):(?P<check>\S+) skipped for "
                      r"(?:\d+ documents \((?P<doc_ids>[^)]*)\)|(?P<doc_id>\S+)): (?P<reason>.+)")


def skipped_checks(instance: dg.DagsterInstance, result: dg.ExecuteInProcessResult) -> dict[tuple[str, str], str]:
    """The checks the run skipped, with the reason its log gives (`defs.assets.batch.SkippedCheck`)."""
    found = (_SKIPPED.fullmatch(entry.user_message) for entry in instance.all_logs(result.run_id))
    return {(m["asset"], m["check"]): m["reason"] for m in found if m}


def check_status(instance: dg.DagsterInstance, asset: str, check: str, doc_id: str):
    """The status the UI shows for the check's latest execution on the partition."""
    from dagster._core.event_api import PartitionKeyFilter
    from dagster._core.loader import LoadingContextForTest

    (record,) = instance.event_log_storage.get_asset_check_execution_history(
        dg.AssetCheckKey(dg.AssetKey(asset), check), limit=1, partition_filter=PartitionKeyFilter(key=doc_id))
    return asyncio.run(record.resolve_status(LoadingContextForTest(instance)))
