"""A run over several documents: every per-document asset and check does its work once per
partition of the run, and Dagster still records each document's own materialisation and check
results.

A run covers one document (`dagster/partition`) or a range of them (what `knowledge-assets run
FOLDER` launches, and what a UI backfill launches under `BackfillPolicy.single_run()`). An asset
computes each document as it did alone and hands its metadata to that partition's
materialisation (`context.add_asset_metadata(..., partition_key=...)`); a check result becomes an
evaluation of that partition (`dg.AssetCheckEvaluation(partition=...)`: `AssetCheckResult` has no
partition and would record a range run's results against no document).

Dagster cannot fail part of a step's partitions. A document's failure in a range run is caught,
the other documents go on, and the step then fails naming each failed document and its cause
(`FAILED_DOCUMENTS` in the failure's metadata, read back by `failed_documents` for the launcher
and the failed-run sensor); the launcher re-runs the survivors together and each failed
document alone, so its failure is recorded under its own partition. In a run of one
document nothing is caught: it fails exactly as it always did.

Each document's share of a step is timed: its materialisation carries `document_seconds`
(Dagster's step time is the whole range's), and `knowledge_assets.progress` hears each
document's stage start and end, for a terminal that shows them.

A check with nothing to evaluate for a document (no rows of its kind, no gold) returns a
`SkippedCheck` with the reason: no evaluation is recorded for that partition, so Dagster
resolves the planned execution of a run that succeeded as SKIPPED (not passed), and the reason
is in the run's log (docs/decisions.md D60).
"""

import json
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import dagster as dg
from dagster._core.definitions.asset_checks.asset_check_evaluation import (
    AssetCheckEvaluationTargetMaterializationData,
)

from knowledge_assets import progress
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.step_writes import StepWrites

FAILED_DOCUMENTS = "failed_documents"
DOCUMENT_SECONDS = "document_seconds"

# `backfill_policy` on an asset is a beta parameter in Dagster 1.13 (pinned); every per-document
# asset declares `BackfillPolicy.single_run()` so a UI backfill over many documents is one run,
# so the warning is expected, not news. Set here, imported before any asset is declared.
warnings.filterwarnings("ignore", message="Parameter `backfill_policy`", category=dg.BetaWarning)


@dataclass(frozen=True)
class SkippedCheck:
    """A check with nothing to evaluate for a document, and why (module docstring)."""

    check_name: str
    reason: str
    asset_key: dg.AssetKey | None = None


CheckOutcome = dg.AssetCheckResult | SkippedCheck


def _cause(error: Exception) -> str:
    if isinstance(error, dg.Failure) and error.description:
        return error.description
    return f"{type(error).__name__}: {error}"


def _documents_failed(failures: dict[str, str], of: int) -> dg.Failure:
    return dg.Failure(
        description=f"{len(failures)} of {of} documents failed: "
        # A cause that starts with its doc_id (a missing input's does) is not named twice.
        + "; ".join(cause if cause.startswith(f"{doc_id}: ") else f"{doc_id}: {cause}"
                    for doc_id, cause in failures.items()),
        metadata={FAILED_DOCUMENTS: dg.MetadataValue.json(failures)},
        allow_retries=False,
    )


@contextmanager
def failing_the_document(*errors: type[Exception]) -> Iterator[None]:
    """One of `errors` raised inside (bad input, a missing upstream, no gold: the document's
    fault, not the code's) fails the document's partition with its cause as the one line a
    user reads, and is not retried."""
    try:
        yield
    except errors as exc:
        raise dg.Failure(description=str(exc), allow_retries=False) from None


def step_store(context: dg.AssetExecutionContext, store: Store) -> Store:
    """The store a step's documents write to: with several documents, their writes wait and go
    together (store/step_writes.py), written by `materialize_each` before the step's `finish`;
    a one-document step writes as it always did."""
    return StepWrites(store) if len(context.partition_keys) > 1 else store


def materialize_each(
    context: dg.AssetExecutionContext,
    materialize: Callable[[str], dg.MaterializeResult],
    finish: Callable[[list[str]], dict[str, dict[str, object]]] | None = None,
    store: Store | None = None,
) -> Iterator[object]:
    """`materialize(doc_id)` for each document of the run, each document's metadata on its own
    materialisation (its checks are checks of their own, `check_each`). `finish`, given
    the documents materialised, records what the step records for each of them once all are
    written (which revision each was derived from) in one write, and returns metadata to add to
    each document's: a write per document costs a folder run more than its documents' work.
    `store`, the step's (`step_store`): what its documents' writes left waiting is written before
    `finish`, and a document whose own write failed fails with that cause."""
    doc_ids = context.partition_keys
    failures: dict[str, str] = {}
    results: dict[str, tuple[dg.MaterializeResult, float]] = {}
    for doc_id in doc_ids:
        started = time.perf_counter()
        try:
            with progress.stage(doc_id, context.asset_key.to_user_string()):
                result = materialize(doc_id)
        except Exception as error:
            if len(doc_ids) == 1:
                raise
            context.log.exception(f"{doc_id} failed; the run's other documents go on")
            failures[doc_id] = _cause(error)
            continue
        results[doc_id] = result, round(time.perf_counter() - started, 3)
    if isinstance(store, StepWrites):
        store.write_waiting()
        for doc_id, error in store.failures.items():
            context.log.error(f"{doc_id} failed: its rows could not be written ({_cause(error)})")
            results.pop(doc_id, None)
            failures.setdefault(doc_id, _cause(error))
    finished = finish(list(results)) if finish is not None and results else {}
    for doc_id, (result, seconds) in results.items():
        metadata = {**(result.metadata or {}), **finished.get(doc_id, {}), DOCUMENT_SECONDS: seconds}
        context.add_asset_metadata(metadata, partition_key=doc_id)
    if failures:
        raise _documents_failed(failures, len(doc_ids))
    yield dg.MaterializeResult()


def check_each(
    context: dg.AssetCheckExecutionContext,
    check: Callable[[str], Iterable[CheckOutcome]],
    finish: Callable[[dict[str, list[CheckOutcome]]], None] | None = None,
) -> Iterator[object]:
    """`check(doc_id)` for each document of the run, as evaluations of each document's partition;
    `finish`, given every document's results, records them in one write before they are yielded."""
    results = {doc_id: list(check(doc_id)) for doc_id in context.partition_keys}
    if finish is not None:
        finish(results)
    yield from check_evaluations(context, [(doc_id, result) for doc_id, found in results.items() for result in found])


def check_evaluations(
    context: dg.AssetCheckExecutionContext, results: list[tuple[str, CheckOutcome]]
) -> Iterator[object]:
    """Each result as an evaluation of its document (a skipped one as a line of the run's log),
    then the step's output of each selected check once (what Dagster does for an
    `AssetCheckResult` of a one-partition step). A failed blocking evaluation fails the step
    after all of them are recorded."""
    op_context = context.op_execution_context
    assets_def = op_context.assets_def
    selected = context.selected_asset_check_keys
    targets = _latest_materializations(
        op_context.instance, {(r.asset_key or context.asset_key, doc_id) for doc_id, r in results
                              if not isinstance(r, SkippedCheck)})
    skipped: list[tuple[str, SkippedCheck]] = []
    for doc_id, result in results:
        asset_key = result.asset_key or context.asset_key
        key = dg.AssetCheckKey(asset_key, result.check_name)
        if key not in selected:
            continue
        if isinstance(result, SkippedCheck):
            skipped.append((doc_id, result))
            continue
        yield dg.AssetCheckEvaluation(
            asset_key=asset_key, check_name=key.name, passed=result.passed, metadata=result.metadata,
            target_materialization_data=targets.get((asset_key, doc_id)), severity=result.severity,
            description=result.description, blocking=assets_def.get_spec_for_check_key(key).blocking,
            partition=doc_id,
        )
    log_skipped(context, skipped)
    for key in sorted(selected, key=lambda k: k.to_user_string()):
        yield dg.Output(None, output_name=assets_def.get_output_name_for_asset_check_key(key))


def log_skipped(context: dg.AssetCheckExecutionContext, skipped: Sequence[tuple[str, SkippedCheck]]) -> None:
    """A line of the run's log for each skipped check and reason, naming its documents: one
    line for a folder's documents that all had nothing to evaluate, not one per document (each
    line is an event the instance stores)."""
    documents_of: dict[tuple[str, str], list[str]] = {}
    for doc_id, check in skipped:
        asset = (check.asset_key or context.asset_key).to_user_string()
        documents_of.setdefault((f"{asset}:{check.check_name}", check.reason), []).append(doc_id)
    for (check, reason), doc_ids in documents_of.items():
        named = doc_ids[0] if len(doc_ids) == 1 else f"{len(doc_ids)} documents ({', '.join(doc_ids)})"
        context.log.info(f"check {check} skipped for {named}: {reason}")


def _latest_materializations(
    instance: dg.DagsterInstance, wanted: set[tuple[dg.AssetKey, str]]
) -> dict[tuple[dg.AssetKey, str], AssetCheckEvaluationTargetMaterializationData]:
    """What each check evaluated: its partition's latest materialisation, as Dagster records it
    for an AssetCheckResult. Asked once per asset for all the documents (newest first, as many
    as there are documents: each document's first is its latest), then alone for any document
    whose latest is not among those (one not materialised by this run)."""
    found: dict[tuple[dg.AssetKey, str], AssetCheckEvaluationTargetMaterializationData] = {}
    by_asset: dict[dg.AssetKey, set[str]] = {}
    for asset_key, doc_id in wanted:
        by_asset.setdefault(asset_key, set()).add(doc_id)
    for asset_key, doc_ids in by_asset.items():
        for record in _materializations(instance, asset_key, sorted(doc_ids), len(doc_ids)):
            found.setdefault((asset_key, record.partition_key), _target(record))
        for doc_id in sorted(d for d in doc_ids if (asset_key, d) not in found):
            found.update({(asset_key, doc_id): _target(r) for r in _materializations(instance, asset_key, [doc_id], 1)})
    return found


def _materializations(instance: dg.DagsterInstance, asset_key: dg.AssetKey, doc_ids: list[str], limit: int) -> list:
    return list(instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=asset_key, asset_partitions=doc_ids), limit=limit).records)


def _target(record) -> AssetCheckEvaluationTargetMaterializationData:
    return AssetCheckEvaluationTargetMaterializationData(
        storage_id=record.storage_id, run_id=record.event_log_entry.run_id, timestamp=record.timestamp
    )


def failed_documents(events: Sequence[dg.DagsterEvent]) -> set[str]:
    """The documents a failed run over several named: those a step failed for, and those a
    blocking check failed for."""
    failed: set[str] = set()
    for event in (e for e in events if e.event_type == dg.DagsterEventType.STEP_FAILURE):
        user_failure = event.step_failure_data.user_failure_data
        named = user_failure.metadata.get(FAILED_DOCUMENTS) if user_failure is not None else None
        if named is not None:
            failed |= set(named.value if isinstance(named.value, dict) else json.loads(named.value))
    for evaluation in failed_checks(events):
        if evaluation.blocking and evaluation.partition is not None:
            failed.add(evaluation.partition)
    return failed


def failed_checks(events: Sequence[dg.DagsterEvent]) -> list:
    """The evaluations of the ERROR-severity checks that failed among a run's events (blocking or
    not: `failed_documents` keeps the blocking ones)."""
    return [
        e.asset_check_evaluation_data
        for e in events
        if e.event_type == dg.DagsterEventType.ASSET_CHECK_EVALUATION
        and not e.asset_check_evaluation_data.passed
        and e.asset_check_evaluation_data.severity == dg.AssetCheckSeverity.ERROR
    ]
