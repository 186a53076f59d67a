"""Runs one document partition of the `extract_document` job in this process against the
project's Dagster instance — what `knowledge-assets run` does for each document — so the UI's
run list shows the CLI's runs as `extract_document` with their partition. The job carries the
asset checks, so a blocking check that fails stops the assets downstream of it and fails the
document."""

from __future__ import annotations

import re
from dataclasses import dataclass

import dagster as dg

from knowledge_assets.definitions import defs
from knowledge_assets.defs.stale_runs import process_tags

JOB_NAME = "extract_document"
# The class name of an error whose message is already written for a user adds nothing.
_EXPECTED_ERROR = re.compile(r"^(?:[\w.]+\.)?(?:LLMConfigurationError|DocumentError|StoreError|SettingsError): ")


@dataclass(frozen=True)
class PartitionOutcome:
    doc_id: str
    success: bool
    run_id: str
    error: str | None
    metadata: dict[str, object]


def add_partition(instance: dg.DagsterInstance, doc_id: str) -> None:
    if not instance.has_dynamic_partition("documents", doc_id):
        instance.add_dynamic_partitions("documents", [doc_id])


def materialize_document(instance: dg.DagsterInstance, doc_id: str, verbose: bool = False) -> PartitionOutcome:
    add_partition(instance, doc_id)
    result = defs.resolve_job_def(JOB_NAME).execute_in_process(
        instance=instance,
        partition_key=doc_id,
        raise_on_error=False,
        # The run's events still go to the instance (and the UI); the terminal gets the
        # summary line the CLI prints, not Dagster's stream, whose step failures come with
        # stack traces (--verbose shows them).
        run_config={"loggers": {"console": {"config": {"log_level": "DEBUG" if verbose else "CRITICAL"}}}},
        tags={"knowledge_assets/launched_by": "cli", **process_tags()},
    )
    metadata: dict[str, object] = {}
    for event in result.get_asset_materialization_events():
        materialization = event.event_specific_data.materialization
        metadata[materialization.asset_key.to_user_string()] = {
            key: value.value for key, value in materialization.metadata.items()
        }
    error = None
    if not result.success:
        error = "; ".join(failure_message(f) for f in result.get_step_failure_events()) or _blocked(result)
    return PartitionOutcome(doc_id, result.success, result.run_id, error, metadata)


def _blocked(result: dg.ExecuteInProcessResult) -> str:
    failed_checks = [
        f"{e.asset_check_evaluation_data.asset_key.to_user_string()}:{e.asset_check_evaluation_data.check_name}"
        for e in result.all_events
        if e.event_type == dg.DagsterEventType.ASSET_CHECK_EVALUATION
        and not e.asset_check_evaluation_data.passed
        and e.asset_check_evaluation_data.severity == dg.AssetCheckSeverity.ERROR
    ]
    return "blocking check failed: " + ", ".join(failed_checks) if failed_checks else "run failed"


def failure_message(event: dg.DagsterEvent) -> str:
    """`<step>: <root cause>` — the deepest cause of the error, not Dagster's wrapper
    ("Error occurred while executing op ..."), and never a stack trace."""
    data = event.step_failure_data
    step = event.step_key or "step"
    user_failure = data.user_failure_data
    if user_failure is not None and user_failure.description:
        return f"{step}: {user_failure.description}"
    error = data.error
    if error is None:
        return f"{step}: failed"
    while error.cause is not None:
        error = error.cause
    return f"{step}: {_EXPECTED_ERROR.sub('', error.message.strip())}"
