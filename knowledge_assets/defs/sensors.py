import dagster as dg
from dagster._core.storage.tags import ASSET_PARTITION_RANGE_END_TAG, ASSET_PARTITION_RANGE_START_TAG

from knowledge_assets.defs.assets.batch import failed_documents
from knowledge_assets.defs.jobs import LAUNCHED_BY_TAG, check_document, extract_document
from knowledge_assets.defs.partitions import PARTITION_TAG, documents
from knowledge_assets.defs.resources import Inbox, KnowledgeStore
from knowledge_assets.ingest.inbox import InboxCursor, advance, scan_inbox


@dg.sensor(
    job=extract_document,
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.STOPPED,
    description=(
        "Watches the inbox folder: a new document, or a new revision of a known one, gets its "
        "partition and one run. Unreadable files are reported once; removed files keep their data."
    ),
)
def new_documents(context: dg.SensorEvaluationContext, inbox: Inbox, knowledge_store: KnowledgeStore):
    cursor = InboxCursor.parse(context.cursor)
    scan = scan_inbox(knowledge_store.open(), inbox.folder(), cursor, limit=inbox.max_runs_per_tick)
    for error in scan.unreadable:
        context.log.warning(f"not ingested: {error}")
    for alias in scan.aliases:
        context.log.info(f"{alias.file.name}: {alias.describe()}")
    known = set(context.instance.get_dynamic_partitions(documents.name))
    new_keys = sorted({s.doc_id for s in scan.to_run} - known)
    if scan.deferred:
        context.log.info(f"{scan.deferred} more documents wait for the next tick")
    return dg.SensorResult(
        run_requests=[
            dg.RunRequest(partition_key=s.doc_id, run_key=f"{s.doc_id}:{s.content_sha256}",
                          tags={"knowledge_assets/source_file": s.path.name})
            for s in scan.to_run
        ],
        dynamic_partitions_requests=[documents.build_add_request(new_keys)] if new_keys else [],
        cursor=advance(cursor, scan).dump(),
        skip_reason=None if scan.to_run else "no new documents or revisions in the inbox",
    )


@dg.run_failure_sensor(
    request_job=check_document,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description=(
        "After a run of documents fails (any job of this code location: extract_document, the UI's "
        "Materialize, automation), runs the checks of each document it failed for on what the store "
        "holds of it, so the failed run's unfinished checks do not turn every document's check red "
        "(docs/decisions.md D90). The CLI does this itself for the runs it launches."
    ),
)
def failed_document_checks(context: dg.RunFailureSensorContext):
    run = context.dagster_run
    if run.job_name == check_document.name or run.tags.get(LAUNCHED_BY_TAG) == "cli":
        return
    for doc_id in sorted(failed_run_documents(context.instance, run)):
        yield dg.RunRequest(run_key=f"{run.run_id}:{doc_id}", tags={PARTITION_TAG: doc_id})


def failed_run_documents(instance: dg.DagsterInstance, run: dg.DagsterRun) -> set[str]:
    """The documents a failed run failed for: its one document, or those a run over a range
    named, else every document of the range (a failure outside any document tells nothing
    about which), as the launcher reads a range run it launched."""
    if PARTITION_TAG in run.tags:
        doc_id = run.tags[PARTITION_TAG]
        return {doc_id} if instance.has_dynamic_partition(documents.name, doc_id) else set()
    start, end = run.tags.get(ASSET_PARTITION_RANGE_START_TAG), run.tags.get(ASSET_PARTITION_RANGE_END_TAG)
    if start is None or end is None:
        return set()
    events = [entry.dagster_event for entry in instance.all_logs(
        run.run_id, of_type={dg.DagsterEventType.STEP_FAILURE, dg.DagsterEventType.ASSET_CHECK_EVALUATION})]
    order = instance.get_dynamic_partitions(documents.name)
    in_range = order[order.index(start):order.index(end) + 1] if start in order and end in order else []
    return failed_documents(events) or set(in_range)
