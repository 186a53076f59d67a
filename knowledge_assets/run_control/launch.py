"""Runs the `extract_document` job against the project's Dagster instance — what `knowledge-assets
run` does — so the UI's run list shows the CLI's runs as `extract_document` with their
partitions: in this process on the embedded instance, through the instance's run queue on a
shared one (`run_control/queued.py`, D85). Either way a run's outcome is read back from the
instance's event log (`FinishedRun`). The job carries the asset checks, so a blocking check that
fails stops the assets downstream of it and fails the document.

Many documents go in as few runs as the partitions allow: one run over each contiguous range of
them in the `documents` partitions' order (a dynamic partition range is contiguous in the order
the partitions were added, so a folder whose documents were added together is one run). A run
in which some documents failed (`defs.assets.batch`) is followed by one run of its survivors
together and one run of each failed document alone: every document that can land does, with
its own materialisations, and every failure is recorded under its own partition with its cause.
The model backend's answers are cached in the store, so the survivors' second run asks nothing
again.

The instance's database connections are held for the command (`hold_connections`).

A run writes the store of the `knowledge_store` resource, `KNOWLEDGE_STORE`'s by default; a
caller with a store of its own (the capture's private DuckDB file, `run_control/pipeline_runner.py`) names it
as that resource's run config, which outranks any setting: an environment variable set for the
run would lose to `KNOWLEDGE_STORE` on a shared-store machine and write the shared store.

A document's time is its own: the sum of its `document_seconds` over the run's assets, plus an
equal share of what the run spent outside any document's work (Dagster's step overhead, the
checks). A run of one document is its wall time, as before.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

import dagster as dg
from dagster._core.storage.tags import (
    ASSET_PARTITION_RANGE_END_TAG,
    ASSET_PARTITION_RANGE_START_TAG,
)

from knowledge_assets import progress
from knowledge_assets.defs.assets.batch import DOCUMENT_SECONDS, failed_checks, failed_documents
from knowledge_assets.defs.jobs import LAUNCHED_BY_TAG, RUNNABLE, check_document, extract_document
from knowledge_assets.defs.partitions import PARTITION_TAG, documents
from knowledge_assets.defs.resources import KnowledgeStore
from knowledge_assets.errors import KnowledgeError
from knowledge_assets.run_control import queued
from knowledge_assets.run_control.stale_runs import process_tags
from knowledge_assets.store.redaction import redact

JOB_NAME = extract_document.name
CHECK_JOB_NAME = check_document.name
# A held connection is renewed after an hour; a statement that opens one while another is in
# use (Dagster nests them) may open up to this many more.
_POOL_RECYCLE_S = 3600
_POOL_OVERFLOW = 10


def _expected_names(cls: type[KnowledgeError] = KnowledgeError) -> set[str]:
    return {cls.__name__}.union(*(_expected_names(sub) for sub in cls.__subclasses__()))


def _user_message(error) -> str:
    """The message of an error whose text is already written for a user (a KnowledgeError) without
    its class name, which adds nothing; any other error keeps it."""
    message = error.message.strip()
    if error.cls_name in _expected_names():
        message = re.sub(rf"^(?:[\w.]+\.)?{re.escape(error.cls_name)}: ", "", message)
    return message


@dataclass(frozen=True)
class PartitionOutcome:
    doc_id: str
    success: bool
    run_id: str
    error: str | None
    metadata: dict[str, object]
    # The document's own time in its run (module docstring).
    seconds: float = 0.0


def add_partition(instance: dg.DagsterInstance, doc_id: str) -> None:
    add_partitions(instance, [doc_id])


def add_partitions(instance: dg.DagsterInstance, doc_ids: Sequence[str]) -> None:
    known = set(instance.get_dynamic_partitions(documents.name))
    new = [doc_id for doc_id in dict.fromkeys(doc_ids) if doc_id not in known]
    if new:
        instance.add_dynamic_partitions(documents.name, new)


def materialize_document(instance: dg.DagsterInstance, doc_id: str, verbose: bool = False,
                         store: str | None = None) -> PartitionOutcome:
    return materialize_documents(instance, [doc_id], verbose, store)[doc_id]


def materialize_documents(
    instance: dg.DagsterInstance, doc_ids: Sequence[str], verbose: bool = False, store: str | None = None
) -> dict[str, PartitionOutcome]:
    """Every document's outcome, by doc_id, each document materialised once, into `store` (a
    DuckDB file path or a PostgreSQL URL) when given, else the store the settings name."""
    hold_connections(instance)
    add_partitions(instance, doc_ids)
    return _materialize(instance, list(dict.fromkeys(doc_ids)), verbose, store)


def hold_connections(instance: dg.DagsterInstance) -> None:
    """The instance's database connections kept open for the command, as Dagster's webserver
    keeps them: dagster-postgres otherwise opens a server connection for every statement, several
    per event (docs/decisions.md D72). Storages that hold none (SQLite) ignore it."""
    instance.optimize_for_webserver(statement_timeout=0, pool_recycle=_POOL_RECYCLE_S, max_overflow=_POOL_OVERFLOW)


def _materialize(instance: dg.DagsterInstance, doc_ids: list[str], verbose: bool,
                 store: str | None) -> dict[str, PartitionOutcome]:
    """Runs the documents in waves: each wave's runs, then the survivors and the failed of the
    runs over several documents that failed, until every document has its outcome."""
    order = instance.get_dynamic_partitions(documents.name)
    outcomes: dict[str, PartitionOutcome] = {}
    wave = contiguous_ranges(order, doc_ids)
    while wave:
        retry: list[list[str]] = []
        for batch, run in zip(wave, _run_batches(instance, wave, verbose, store=store), strict=True):
            if run.success or len(batch) == 1:
                outcomes |= _outcomes(run, batch)
                continue
            # A run that failed without naming its documents (an error outside any document) tells
            # nothing about which: each then runs alone.
            failed = failed_documents(run.events) or set(batch)
            retry += contiguous_ranges(order, [d for d in batch if d not in failed])
            retry += [[doc_id] for doc_id in batch if doc_id in failed]
        wave = retry
    _check_failed(instance, contiguous_ranges(order, [d for d, o in outcomes.items() if not o.success]), verbose,
                  store)
    return outcomes


def _check_failed(instance: dg.DagsterInstance, batches: list[list[str]], verbose: bool, store: str | None) -> None:
    """The checks of the documents that failed, run alone after their failed runs: they read
    what the store holds of each (nothing, for a file that never parsed: each check is skipped
    with its reason) and take the place of the failed run's planned checks, which Dagster would
    resolve as "execution failed" and count against the check of every document
    (docs/decisions.md D90). The documents' outcomes are their failed runs'; this adds none."""
    if batches:
        _run_batches(instance, batches, verbose, CHECK_JOB_NAME, store)


@dataclass(frozen=True)
class FinishedRun:
    """A run that ended, as the instance recorded it, whoever executed it."""

    run_id: str
    success: bool
    events: list[dg.DagsterEvent]
    wall: float

    @classmethod
    def read(cls, instance: dg.DagsterInstance, run_id: str, wall: float | None = None) -> FinishedRun:
        record = instance.get_run_record_by_id(run_id)
        if wall is None:
            wall = max((record.end_time or 0.0) - (record.start_time or 0.0), 0.0)
        events = [entry.dagster_event for entry in instance.all_logs(run_id) if entry.dagster_event is not None]
        return cls(run_id, record.dagster_run.status == dg.DagsterRunStatus.SUCCESS, events, wall)


def _run_batches(instance: dg.DagsterInstance, wave: list[list[str]], verbose: bool,
                 job_name: str = JOB_NAME, store: str | None = None) -> list[FinishedRun]:
    """Each batch's run: on a shared instance all submitted to its queue at once and waited for
    (`run_control/queued.py`), else executed here one after another. Either way the outcome is read
    back from the instance, so both paths report alike (docs/decisions.md D85). A store of the
    caller's own is for runs in this process: a queued run executes elsewhere, on the settings'
    shared store."""
    if queued.is_shared(instance):
        if store is not None:
            raise queued.UnsharedStore(f"a run into the store {redact(store)} executes in this process, not through "
                                       f"the queue of the shared instance {instance.root_directory}")
        queued.require_shared_store(instance)
        queued.require_daemon(instance)
        run_ids = [queued.submit(job_name, _tags(batch)) for batch in wave]
        queued.wait(instance, run_ids, StagesSeen(dict(zip(run_ids, wave, strict=True))))
        return [FinishedRun.read(instance, run_id) for run_id in run_ids]
    runs = []
    for batch in wave:
        started = time.perf_counter()
        result = _execute(instance, batch, verbose, job_name, store)
        runs.append(FinishedRun.read(instance, result.run_id, time.perf_counter() - started))
    return runs


def contiguous_ranges(order: Sequence[str], doc_ids: Sequence[str]) -> list[list[str]]:
    """The documents cut into runs of neighbours in the partitions' order: each is one range."""
    position = {key: n for n, key in enumerate(order)}
    ranges: list[list[str]] = []
    for doc_id in sorted(doc_ids, key=position.__getitem__):
        if ranges and position[doc_id] == position[ranges[-1][-1]] + 1:
            ranges[-1].append(doc_id)
        else:
            ranges.append([doc_id])
    return ranges


class StagesSeen:
    """Progress of runs executing elsewhere, from their events as the wait reads them: a line
    for each document's stage when the document is materialised (its time counted from the
    step's start), and a failed line for each of the run's documents when a step fails. The
    checks' steps materialise nothing and show nothing, as in a run in this process."""

    def __init__(self, documents: dict[str, list[str]]):
        self.documents = documents  # run id → its documents
        self.open: dict[tuple[str, str], float] = {}  # (run id, step) → when it was seen starting

    def __call__(self, run_id: str, events: list[dg.DagsterEvent]) -> None:
        for event in events:
            key = (run_id, event.step_key or "")
            now = time.monotonic()
            if event.event_type == dg.DagsterEventType.STEP_START:
                self.open[key] = now
            elif event.event_type == dg.DagsterEventType.ASSET_MATERIALIZATION:
                materialization = event.event_specific_data.materialization
                progress.stage_seen(materialization.partition, materialization.asset_key.to_user_string(),
                                    self.open.get(key, now), now)
            elif event.event_type == dg.DagsterEventType.STEP_FAILURE:
                for doc_id in self.documents[run_id]:
                    progress.stage_seen(doc_id, event.step_key, self.open.get(key, now), now, failed=True)


def _tags(batch: list[str]) -> dict[str, str]:
    """A run's tags: who launched it, and its documents (one partition, or a range of them)."""
    tags = {LAUNCHED_BY_TAG: "cli"}
    if len(batch) > 1:
        return tags | {ASSET_PARTITION_RANGE_START_TAG: batch[0], ASSET_PARTITION_RANGE_END_TAG: batch[-1]}
    return tags | {PARTITION_TAG: batch[0]}


def _execute(instance: dg.DagsterInstance, batch: list[str], verbose: bool,
             job_name: str = JOB_NAME, store: str | None = None) -> dg.ExecuteInProcessResult:
    job = RUNNABLE.resolve_job_def(job_name)
    # A job of checks alone has no partitions of its own: its partition is its run's tag.
    by_key = len(batch) == 1 and job.partitions_def is not None
    tags = {key: value for key, value in _tags(batch).items() if not (by_key and key == PARTITION_TAG)}
    return job.execute_in_process(
        instance=instance,
        partition_key=batch[0] if by_key else None,
        raise_on_error=False,
        # The run's events still go to the instance (and the UI); the terminal gets the
        # summary line the CLI prints, not Dagster's stream, whose step failures come with
        # stack traces (--verbose shows them).
        run_config=dg.RunConfig(
            loggers={"console": {"config": {"log_level": "DEBUG" if verbose else "CRITICAL"}}},
            resources={} if store is None else {"knowledge_store": KnowledgeStore(database=store)},
        ),
        tags=tags | process_tags(),
    )


def _outcomes(run: FinishedRun, batch: list[str]) -> dict[str, PartitionOutcome]:
    metadata: dict[str, dict[str, dict[str, object]]] = {doc_id: {} for doc_id in batch}
    for event in run.events:
        if event.event_type != dg.DagsterEventType.ASSET_MATERIALIZATION:
            continue
        materialization = event.event_specific_data.materialization
        metadata[materialization.partition][materialization.asset_key.to_user_string()] = {
            key: value.value for key, value in materialization.metadata.items()
        }
    error = None if run.success else run_failure_cause(run.events)
    return {doc_id: PartitionOutcome(doc_id, run.success, run.run_id, error, metadata[doc_id], seconds)
            for doc_id, seconds in _own_seconds(metadata, run.wall).items()}


def _own_seconds(metadata: dict[str, dict[str, dict[str, object]]], wall: float) -> dict[str, float]:
    """Each document's own seconds (its assets' `document_seconds`) and an equal share of the
    rest of the run's wall time."""
    own = {doc_id: sum(float(meta.get(DOCUMENT_SECONDS, 0.0)) for meta in assets.values())
           for doc_id, assets in metadata.items()}
    shared = max(wall - sum(own.values()), 0.0) / len(own)
    return {doc_id: seconds + shared for doc_id, seconds in own.items()}


def run_failure_cause(events: Sequence[dg.DagsterEvent]) -> str:
    """Why a failed run failed, from its events: each failed step's root cause, else the
    blocking checks that failed."""
    steps = [failure_message(e) for e in events if e.event_type == dg.DagsterEventType.STEP_FAILURE]
    if steps:
        return "; ".join(steps)
    checks = [f"{e.asset_key.to_user_string()}:{e.check_name}" for e in failed_checks(events)]
    if checks:
        return "blocking check failed: " + ", ".join(checks)
    return next((_run_failure_message(e) for e in events if e.event_type == dg.DagsterEventType.RUN_FAILURE),
                "run failed")


def _run_failure_message(event: dg.DagsterEvent) -> str:
    """Why a run failed with no step's failure to name: the executor's error (a step's worker
    lost: "[formulas]: WorkerLostError: …") or what ended it (the run monitor's verdict)."""
    error = getattr(event.event_specific_data, "error", None)
    if error is not None:
        while error.cause is not None:
            error = error.cause
        text = _user_message(error)
    else:
        text = event.message or "run failed"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " ".join(lines[:3]) if lines else "run failed"


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
    return f"{step}: {_user_message(error)}"
