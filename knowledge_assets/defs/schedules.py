"""The scheduled re-extraction: on its cron, one run per document partition that is not
current, selecting only what is stale and everything downstream of it.

Not current means what the UI shows: an asset partition Dagster reports STALE (its code
version — prompt hash, model settings, extraction code, chained downstream — differs from the
one it was materialised with, or an upstream partition has new data) or MISSING (never
materialised), plus a document whose registered file now holds other content than was parsed.
A partition already current gets no run, so no model call is re-spent on it; the response
cache is only the second guard. A partition with a run queued or in progress is left to it.

`AutomationCondition.code_version_changed()` is not used for this: it compares against the
previous evaluation tick, not against what each partition was materialised with, so it would
re-run partitions a user had already brought up to date.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

import dagster as dg

# The stale-status resolver behind the UI's "Unsynced" is not exported under `dg`; dagster is
# pinned in pyproject.toml and tests/defs/test_staleness.py pins what this module relies on.
from dagster._core.definitions.data_version import CachingStaleStatusResolver, StaleCauseCategory, StaleStatus
from dagster._core.loader import LoadingContext

from knowledge_assets.defs.assets import document_assets
from knowledge_assets.defs.assets.ingest import parsed_chunks
from knowledge_assets.defs.jobs import LAUNCHED_BY_TAG, extract_document
from knowledge_assets.defs.partitions import PARTITION_TAG, documents
from knowledge_assets.defs.resources import KnowledgeStore
from knowledge_assets.ingest.changed_documents import changed_documents

CRON_VARIABLE = "KNOWLEDGE_REEXTRACT_CRON"
ENABLED_VARIABLE = "KNOWLEDGE_REEXTRACT_ENABLED"
DEFAULT_CRON = "0 3 * * *"  # daily, 03:00 UTC
_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"", "0", "false", "no", "off"}
_ACTIVE_RUN_STATUSES = [
    dg.DagsterRunStatus.QUEUED, dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED,
]

MISSING = "never materialized"
CONTENT_CHANGED = "source file changed"
CAUSE_REASONS = {
    StaleCauseCategory.CODE: "code version changed",
    StaleCauseCategory.DATA: "upstream data changed",
    StaleCauseCategory.DEPENDENCIES: "dependencies changed",
}

# doc_id -> asset key -> why the partition is not current
Staleness = dict[str, dict[dg.AssetKey, list[str]]]


class _InstanceLoadingContext(LoadingContext):
    """The batching cache Dagster's stale-status resolver reads the instance through."""

    def __init__(self, instance: dg.DagsterInstance):
        self._instance = instance
        self._loaders: dict = {}

    @property
    def instance(self) -> dg.DagsterInstance:
        return self._instance

    @property
    def loaders(self) -> dict:
        return self._loaders


def stale_partitions(
    instance: dg.DagsterInstance, asset_graph, asset_keys: Iterable[dg.AssetKey], doc_ids: Iterable[str]
) -> Staleness:
    """Dagster's own stale status — the one the UI shows — per asset and document partition."""
    resolver = CachingStaleStatusResolver(instance, asset_graph, _InstanceLoadingContext(instance))
    found: Staleness = {}
    for doc_id in doc_ids:
        for key in asset_keys:
            status = resolver.get_status(key, doc_id)
            if status == StaleStatus.MISSING:
                found.setdefault(doc_id, {})[key] = [MISSING]
            elif status == StaleStatus.STALE:
                causes = resolver.get_stale_causes(key, doc_id)
                found.setdefault(doc_id, {})[key] = sorted({CAUSE_REASONS[c.category] for c in causes})
    return found


def _has_active_run(instance: dg.DagsterInstance, doc_id: str) -> bool:
    runs = dg.RunsFilter(tags={PARTITION_TAG: doc_id}, statuses=_ACTIVE_RUN_STATUSES)
    return instance.get_runs_count(filters=runs) > 0


def _run_request(doc_id: str, reasons: Mapping[dg.AssetKey, list[str]], asset_graph, run_key: str) -> dg.RunRequest:
    document_keys = {key for asset in document_assets for key in asset.keys}
    selection = dg.AssetSelection.assets(*reasons).downstream().resolve(asset_graph) & document_keys
    why = ", ".join(f"{key.to_user_string()}: {'; '.join(r)}" for key, r in sorted(reasons.items()))
    return dg.RunRequest(
        partition_key=doc_id, asset_selection=sorted(selection), run_key=run_key,
        tags={LAUNCHED_BY_TAG: "reextract_stale", "knowledge_assets/not_current": why},
    )


def reextract_schedule(cron: str = DEFAULT_CRON, enabled: bool = False) -> dg.ScheduleDefinition:
    @dg.schedule(
        name="reextract_stale",
        cron_schedule=cron,
        job=extract_document,
        default_status=dg.DefaultScheduleStatus.RUNNING if enabled else dg.DefaultScheduleStatus.STOPPED,
        description=(
            "Re-materialises what is not current, per document: assets whose code version changed "
            "(prompt, model, extraction code), assets never materialised, and documents whose file "
            "changed. Current partitions get no run."
        ),
    )
    def reextract_stale(context: dg.ScheduleEvaluationContext, knowledge_store: KnowledgeStore):
        asset_graph = context.repository_def.asset_graph
        doc_ids = sorted(context.instance.get_dynamic_partitions(documents.name))
        document_keys = sorted(key for asset in document_assets for key in asset.keys)
        not_current = stale_partitions(context.instance, asset_graph, document_keys, doc_ids)
        for doc_id in changed_documents(knowledge_store.open(), doc_ids):
            not_current.setdefault(doc_id, {}).setdefault(parsed_chunks.key, []).append(CONTENT_CHANGED)
        tick = context.scheduled_execution_time.isoformat()
        requests = [
            _run_request(doc_id, reasons, asset_graph, run_key=f"{doc_id}@{tick}")
            for doc_id, reasons in sorted(not_current.items())
            if not _has_active_run(context.instance, doc_id)
        ]
        if not requests:
            return dg.SkipReason(f"all {len(doc_ids)} document partitions are current (or already running)")
        return requests

    return reextract_stale


def schedule_settings(environ: Mapping[str, str] = os.environ) -> tuple[str, bool]:
    """The cron and the default on/off state. Dagster needs both when the code location loads
    (the daemon reads the cron from the definition), so they are read then, not per run."""
    cron = environ.get(CRON_VARIABLE) or DEFAULT_CRON
    enabled = environ.get(ENABLED_VARIABLE, "").strip().lower()
    if enabled not in _TRUE | _FALSE:
        raise ValueError(f"{ENABLED_VARIABLE}={enabled!r}: use true or false")
    return cron, enabled in _TRUE


def load_schedules() -> list[dg.ScheduleDefinition]:
    cron, enabled = schedule_settings()
    try:
        return [reextract_schedule(cron, enabled)]
    except dg.DagsterInvalidDefinitionError as exc:
        raise ValueError(f"{CRON_VARIABLE}={cron!r} is not a valid cron schedule: {exc}") from None


SCHEDULES = load_schedules()
