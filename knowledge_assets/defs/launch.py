"""Materialises one document partition in-process against the project's Dagster instance —
what `knowledge-assets run` does for each document — with its asset checks, so a blocking
check that fails stops the assets downstream of it and fails the document."""

from __future__ import annotations

from dataclasses import dataclass

import dagster as dg

from knowledge_assets.defs.assets import document_assets
from knowledge_assets.defs.checks import CHECKS
from knowledge_assets.definitions import defs


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


def materialize_document(instance: dg.DagsterInstance, doc_id: str) -> PartitionOutcome:
    add_partition(instance, doc_id)
    result = dg.materialize(
        [*document_assets, *CHECKS],
        instance=instance,
        resources=defs.resources,
        partition_key=doc_id,
        raise_on_error=False,
        # The run's events still go to the instance (and the UI); the terminal gets the
        # summary line the CLI prints, not Dagster's debug stream.
        run_config={"loggers": {"console": {"config": {"log_level": "WARNING"}}}},
        tags={"knowledge_assets/launched_by": "cli"},
    )
    metadata: dict[str, object] = {}
    for event in result.get_asset_materialization_events():
        materialization = event.event_specific_data.materialization
        metadata[materialization.asset_key.to_user_string()] = {
            key: value.value for key, value in materialization.metadata.items()
        }
    error = None
    if not result.success:
        failures = result.get_step_failure_events()
        error = "; ".join(_failure_message(f) for f in failures) or "run failed"
    return PartitionOutcome(doc_id, result.success, result.run_id, error, metadata)


def _failure_message(event: dg.DagsterEvent) -> str:
    data = event.step_failure_data
    user_failure = data.user_failure_data
    if user_failure is not None and user_failure.description:
        return user_failure.description
    return data.error.message.strip() if data.error else "step failed"
