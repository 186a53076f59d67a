"""What the Dagster instance knows of each document's partition — running, failed (and why),
never run, partly materialised, or done with or without failed model calls — and removing the
partition. `knowledge-assets documents` reads it beside the store's counts.

The state comes from the instance's public reads: the partition status of every per-document
asset (`get_status_by_partition`), the latest materialisation's metadata (`fetch_materializations`)
for the model calls, and the document's latest failed run of its assets for the cause. A document
that failed in a run over several is run again alone (run_control/launch.py), as the UI launches
one, so its failure is always found under its own partition tag; the run of its checks alone
that follows (D90) is not the one read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Literal

import dagster as dg

from knowledge_assets.defs.partitions import PARTITION_TAG, documents
from knowledge_assets.errors import DOCUMENT_CAUSE_CHARS, short_cause
from knowledge_assets.extract.kept import KEPT_FIGURE
from knowledge_assets.run_control.launch import CHECK_JOB_NAME, run_failure_cause
from knowledge_assets.store.revisions import DOCUMENT_ASSETS

LLM_ASSETS = ("formulas", "glossary", "rules", "domain_context")
# A failed run of a document's assets is followed by at most one of its checks (D90): a few
# more than that find the one wanted.
_FAILED_RUNS_READ = 5

Outcome = Literal["ok", "partial", "failed", "running", "incomplete", "not run", "no partition"]


@dataclass(frozen=True)
class PartitionState:
    outcome: Outcome
    cause: str | None = None
    failed_at: datetime | None = None


def call_figures(meta: dict) -> tuple[int, int, str | None]:
    """From a document's materialisation metadata by asset: the model calls that failed after
    retries, the entries (terms, chunks) they left without an answer, and the first failure's
    cause."""
    branches = [meta[name] for name in LLM_ASSETS if name in meta]
    failed = sum(int(b.get("llm_failed", 0)) for b in branches)
    unanswered = sum(int(b.get("llm_unanswered", 0)) for b in branches)
    cause = next((b["llm_first_failure"] for b in branches if b.get("llm_first_failure")), None)
    return failed, unanswered, cause


def kept_figure(meta: dict) -> int:
    """From a document's materialisation metadata by asset: the rows its knowledge assets kept
    from an earlier run because this run's calls for them failed (D58)."""
    return sum(int(meta[name].get(KEPT_FIGURE, 0)) for name in LLM_ASSETS if name in meta)


def document_partitions(instance: dg.DagsterInstance) -> list[str]:
    return list(instance.get_dynamic_partitions(documents.name))


def partition_states(instance: dg.DagsterInstance, doc_ids: Sequence[str]) -> dict[str, PartitionState]:
    """The state of each document's partition, `no partition` for a document without one."""
    known = set(document_partitions(instance))
    keys = [doc_id for doc_id in doc_ids if doc_id in known]
    statuses = {asset: instance.get_status_by_partition(dg.AssetKey(asset), keys, documents) or {}
                for asset in DOCUMENT_ASSETS} if keys else {}
    states = {}
    for doc_id in doc_ids:
        if doc_id not in known:
            states[doc_id] = PartitionState("no partition")
            continue
        by_asset = {asset: statuses[asset].get(doc_id) for asset in DOCUMENT_ASSETS}
        states[doc_id] = _state(instance, doc_id, by_asset)
    return states


def _state(instance: dg.DagsterInstance, doc_id: str, by_asset: dict) -> PartitionState:
    found = set(by_asset.values())
    if dg.AssetPartitionStatus.IN_PROGRESS in found:
        return PartitionState("running")
    if dg.AssetPartitionStatus.FAILED in found:
        return _failed(instance, doc_id)
    if found == {None}:
        return PartitionState("not run")
    missing = [asset for asset, status in by_asset.items() if status is None]
    if missing:
        return PartitionState("incomplete", "never materialised: " + ", ".join(missing))
    meta = {asset: _latest_metadata(instance, asset, doc_id) for asset in LLM_ASSETS}
    failed_calls, unanswered, cause = call_figures(meta)
    if failed_calls:
        kept = kept_figure(meta)
        return PartitionState("partial", f"{failed_calls} failed model calls, {unanswered} entries unanswered"
                              + (f", {kept} rows kept from an earlier run" if kept else "")
                              + f"; first failure: {short_cause(cause or 'unknown')}")
    return PartitionState("ok")


def _failed(instance: dg.DagsterInstance, doc_id: str) -> PartitionState:
    # The latest failed run of the document's assets: a run of its checks alone after it (D90)
    # fails too when what the store holds is behind, and would name the checks, not the cause.
    records = instance.get_run_records(
        filters=dg.RunsFilter(tags={PARTITION_TAG: doc_id}, statuses=[dg.DagsterRunStatus.FAILURE]),
        limit=_FAILED_RUNS_READ)
    record = next((r for r in records if r.dagster_run.job_name != CHECK_JOB_NAME), None)
    if record is None:
        return PartitionState("failed", "its last run failed; the Dagster UI shows why")
    events = [entry.dagster_event for entry in instance.all_logs(
        record.dagster_run.run_id,
        of_type={dg.DagsterEventType.STEP_FAILURE, dg.DagsterEventType.ASSET_CHECK_EVALUATION})]
    ended = None if record.end_time is None else datetime.fromtimestamp(record.end_time, timezone.utc)
    return PartitionState("failed", short_cause(run_failure_cause(events), DOCUMENT_CAUSE_CHARS),
                          None if ended is None else ended.replace(tzinfo=None))


def _latest_metadata(instance: dg.DagsterInstance, asset: str, doc_id: str) -> dict[str, object]:
    result = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey(asset), asset_partitions=[doc_id]), limit=1)
    if not result.records:
        return {}
    materialization = result.records[0].asset_materialization
    return {key: value.value for key, value in materialization.metadata.items()}


def has_partition(instance: dg.DagsterInstance, doc_id: str) -> bool:
    return instance.has_dynamic_partition(documents.name, doc_id)


def remove_partition(instance: dg.DagsterInstance, doc_id: str) -> None:
    """Deletes the document's key from the `documents` partitions (Dagster's public
    `delete_dynamic_partition`): the UI no longer lists it, nor counts it failed or missing."""
    instance.delete_dynamic_partition(documents.name, doc_id)
