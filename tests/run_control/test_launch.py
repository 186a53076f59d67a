"""The launcher: many documents in as few runs as the partitions allow, each document's
materialisations and check results under its own partition, a failed document failing alone.
A real temporary instance, a real DuckDB file, real files."""

import dagster as dg
import pytest
from dagster._core.storage.tags import ASSET_PARTITION_RANGE_END_TAG, ASSET_PARTITION_RANGE_START_TAG

from knowledge_assets import progress
from knowledge_assets.defs.assets import document_assets
from knowledge_assets.defs.assets.batch import (
    SkippedCheck,
    check_each,
    failed_documents,
    materialize_each,
    step_store,
)
from knowledge_assets.defs.partitions import documents
from knowledge_assets.ingest.documents import identify
from knowledge_assets.run_control.launch import StagesSeen, contiguous_ranges, materialize_documents
from knowledge_assets.store.backends import open_store
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.registry import register
from tests.conftest import SAMPLE_MARKDOWN, SAMPLE_PDF


@pytest.fixture
def knowledge_db(tmp_path, monkeypatch):
    path = tmp_path / "knowledge.duckdb"
    monkeypatch.setenv("KNOWLEDGE_DB", str(path))
    return path


def _text_document(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _register(knowledge_db, *paths) -> list[str]:
    store = DuckDBStore(knowledge_db)
    return [register(store, identify(path)).source.doc_id for path in paths]


def _partition_metadata(instance, asset: str, doc_id: str) -> dict:
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey(asset), asset_partitions=[doc_id]), limit=1
    ).records
    assert records, f"{asset} has no materialisation for {doc_id}"
    return {k: v.value for k, v in records[0].asset_materialization.metadata.items()}


def _chunk_rows(knowledge_db, doc_id: str) -> list[dict]:
    return DuckDBStore(knowledge_db).fetch("SELECT * FROM parsed_chunks WHERE doc_id = ? ORDER BY seq", [doc_id])


def _row_counts(outcome) -> dict[str, int]:
    return {asset: meta["dagster/row_count"] for asset, meta in outcome.metadata.items() if "dagster/row_count" in meta}


def _glossary_rows(knowledge_db) -> list[dict]:
    # diff_status compares an entry with the document's previous run: "new", then "duplicate".
    rows = DuckDBStore(knowledge_db).fetch("SELECT * FROM glossary ORDER BY term_id")
    return [{k: v for k, v in row.items() if k != "diff_status"} for row in rows]


def _glossary_text(term: str) -> str:
    return (f"# Glossary\n\n## 1. Definitions\n\n{term} means the amount of ore moved in one shift.\n\n"
            f"The {term} is recorded at the end of each shift.\n")


def test_contiguous_ranges_follow_the_partitions_order():
    order = ["a", "b", "c", "d", "e"]
    assert contiguous_ranges(order, ["d", "a", "b", "e"]) == [["a", "b"], ["d", "e"]]
    assert contiguous_ranges(order, ["c"]) == [["c"]]
    assert contiguous_ranges(order, []) == []


def test_a_folder_of_three_documents_is_one_run_with_each_documents_own_metadata(instance, knowledge_db, tmp_path):
    doc_ids = _register(knowledge_db, SAMPLE_PDF, SAMPLE_MARKDOWN,
                        _text_document(tmp_path, "haul.txt", _glossary_text("Haul Volume")))

    outcomes = materialize_documents(instance, doc_ids)

    assert all(outcomes[d].success for d in doc_ids), {d: o.error for d, o in outcomes.items()}
    assert len(instance.get_runs()) == 1
    assert len({outcomes[d].run_id for d in doc_ids}) == 1
    pages = {d: _partition_metadata(instance, "parsed_chunks", d)["pages"] for d in doc_ids}
    assert pages == {doc_ids[0]: 9, doc_ids[1]: 1, doc_ids[2]: 1}
    for doc_id in doc_ids:
        chunks = _partition_metadata(instance, "parsed_chunks", doc_id)["chunks"]
        assert chunks == len(_chunk_rows(knowledge_db, doc_id)) == outcomes[doc_id].metadata["parsed_chunks"]["chunks"]
        glossary = _partition_metadata(instance, "glossary", doc_id)
        assert glossary["dagster/row_count"] == outcomes[doc_id].metadata["glossary"]["entries"]
        # The links shown are the document's own stored rows', read once the step's are all written.
        linked = DuckDBStore(knowledge_db).fetch("SELECT term_id, defining_formula_id FROM glossary WHERE doc_id = ? "
                                           "AND defining_formula_id IS NOT NULL ORDER BY term_id", [doc_id])
        assert glossary["linked_entities"] == len(linked)
        assert glossary["links"].splitlines()[2:] == [f"| {r['term_id']} | {r['defining_formula_id']} |"
                                                      for r in linked[:12]]
    # Each partition names its document beside the doc_id, and times that document alone.
    names = _partition_metadata(instance, "review_queue", doc_ids[0])
    assert (names["doc_id"], names["file_name"], names["document_revision"]) == (
        doc_ids[0], SAMPLE_PDF.name, 1)
    assert names["title"].startswith("STANDARD PARAMETER Production Parameter")
    assert _partition_metadata(instance, "parsed_chunks", doc_ids[2])["file_name"] == "haul.txt"
    own = {d: sum(meta["document_seconds"] for meta in outcomes[d].metadata.values()) for d in doc_ids}
    assert len({round(outcomes[d].seconds, 3) for d in doc_ids}) == 3
    assert all(outcomes[d].seconds >= own[d] > 0 for d in doc_ids)
    # The 9-page PDF takes longer than either one-page document, as alone.
    assert outcomes[doc_ids[0]].seconds > max(outcomes[doc_ids[1]].seconds, outcomes[doc_ids[2]].seconds)
    # Each document checked, each result recorded under its own partition.
    history = instance.event_log_storage.get_asset_check_execution_history(
        dg.AssetCheckKey(dg.AssetKey("glossary"), "spans_verbatim"), limit=10)
    assert sorted(record.partition for record in history) == sorted(doc_ids)
    assert all(record.event.dagster_event.asset_check_evaluation_data.passed for record in history)
    # What a terminal shows of a run executed elsewhere (a shared instance's queue, D85): the
    # run's events, read back as the wait reads them, end each document's stage of each asset.
    heard = []

    class Sink:
        def started(self, stage):
            heard.append(("started", stage.doc_id, stage.stage))

        advanced = started

        def ended(self, stage):
            heard.append((stage.doc_id, stage.stage))

    run_id = outcomes[doc_ids[0]].run_id
    with progress.reporting(Sink()):
        StagesSeen({run_id: doc_ids})(run_id, [e.dagster_event for e in instance.all_logs(run_id) if e.dagster_event])
    assert sorted(heard) == sorted((d, asset.key.to_user_string()) for d in doc_ids for asset in document_assets)


def _bad_between_two_good(knowledge_db, tmp_path) -> list[str]:
    garbage = tmp_path / "garbage.pdf"
    garbage.write_bytes(b"\x13\x37 not a pdf at all " * 64)
    return _register(
        knowledge_db, _text_document(tmp_path, "haul-volume.txt", _glossary_text("Haul Volume")), garbage,
        _text_document(tmp_path, "drill-depth.txt", _glossary_text("Drill Depth")))


def test_a_bad_document_fails_alone_and_the_others_land(instance, knowledge_db, tmp_path):
    good_1, bad, good_2 = _bad_between_two_good(knowledge_db, tmp_path)

    outcomes = materialize_documents(instance, [good_1, bad, good_2])

    assert outcomes[good_1].success and outcomes[good_2].success
    assert not outcomes[bad].success
    assert outcomes[bad].error.startswith("parsed_chunks: ") and "garbage.pdf: not a PDF file" in outcomes[bad].error
    assert "Traceback" not in outcomes[bad].error and good_1 not in outcomes[bad].error
    for doc_id in (good_1, good_2):
        assert _chunk_rows(knowledge_db, doc_id)
        assert _partition_metadata(instance, "review_queue", doc_id)["dagster/row_count"] >= 1
    assert _chunk_rows(knowledge_db, bad) == []
    no_materialisation = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey("parsed_chunks"), asset_partitions=[bad]), limit=1).records
    assert no_materialisation == []
    # The bad document's failure is recorded in a run of its own partition.
    own_run = instance.get_run_by_id(outcomes[bad].run_id)
    assert own_run.status == dg.DagsterRunStatus.FAILURE and own_run.tags["dagster/partition"] == bad


def test_rerunning_the_same_documents_is_idempotent(instance, knowledge_db, tmp_path):
    doc_ids = _register(knowledge_db, _text_document(tmp_path, "a.txt", _glossary_text("Haul Volume")),
                        _text_document(tmp_path, "b.txt", _glossary_text("Drill Depth")))
    first = materialize_documents(instance, doc_ids)
    rows = {d: _chunk_rows(knowledge_db, d) for d in doc_ids}
    glossary = _glossary_rows(knowledge_db)

    second = materialize_documents(instance, doc_ids)

    assert all(o.success for o in [*first.values(), *second.values()])
    assert len(instance.get_runs()) == 2
    assert {d: _chunk_rows(knowledge_db, d) for d in doc_ids} == rows
    assert _glossary_rows(knowledge_db) == glossary
    assert {d: _row_counts(second[d]) for d in doc_ids} == {d: _row_counts(first[d]) for d in doc_ids}


@dg.asset(partitions_def=documents, backfill_policy=dg.BackfillPolicy.single_run())
def _lengths(context: dg.AssetExecutionContext):
    def length(doc_id: str) -> dg.MaterializeResult:
        if doc_id.startswith("broken"):
            raise dg.Failure(description=f"{doc_id}: unreadable")
        return dg.MaterializeResult(metadata={"length": len(doc_id)})

    yield from materialize_each(context, length)


@dg.multi_asset_check(specs=[dg.AssetCheckSpec("short", asset=_lengths, blocking=True, partitions_def=documents)])
def _short(context: dg.AssetCheckExecutionContext):
    yield from check_each(context, lambda doc_id: [
        dg.AssetCheckResult(asset_key=_lengths.key, check_name="short", passed=len(doc_id) < 6)])


def _range_run(instance, keys):
    instance.add_dynamic_partitions(documents.name, keys)
    job = dg.Definitions(assets=[_lengths], asset_checks=[_short]).resolve_implicit_global_asset_job_def()
    return job.execute_in_process(instance=instance, raise_on_error=False, tags={
        ASSET_PARTITION_RANGE_START_TAG: keys[0], ASSET_PARTITION_RANGE_END_TAG: keys[-1]})


def test_a_range_run_names_the_documents_a_step_failed_for_and_no_partition_materialises(instance):
    result = _range_run(instance, ["a", "broken-1", "b", "broken-2"])

    assert not result.success
    assert failed_documents(result.all_events) == {"broken-1", "broken-2"}
    [failure] = result.get_step_failure_events()
    assert failure.step_failure_data.user_failure_data.description == (
        "2 of 4 documents failed: broken-1: unreadable; broken-2: unreadable")
    assert result.get_asset_materialization_events() == []


@dg.asset(partitions_def=documents, backfill_policy=dg.BackfillPolicy.single_run())
def _paged(context: dg.AssetExecutionContext):
    store = step_store(context, open_store())  # KNOWLEDGE_DB, the test's file

    def pages(doc_id: str) -> dg.MaterializeResult:
        page_no = "not a number" if doc_id.startswith("badrows") else 1
        store.replace_partition(doc_id, {"parsed_pages": [{"doc_id": doc_id, "page": 0, "page_no": page_no,
                                                            "text": doc_id}]})
        return dg.MaterializeResult()

    def finish(doc_ids: list[str]) -> dict:
        _FINISHED.extend(doc_ids)
        return {}

    yield from materialize_each(context, pages, finish, store=store)


_FINISHED: list[str] = []


def test_in_a_range_run_a_document_whose_rows_cannot_be_written_fails_alone_and_the_others_land(
        instance, knowledge_db):
    keys = ["a", "badrows", "b"]
    _FINISHED.clear()
    instance.add_dynamic_partitions(documents.name, keys)
    job = dg.Definitions(assets=[_paged]).resolve_implicit_global_asset_job_def()
    result = job.execute_in_process(instance=instance, raise_on_error=False, tags={
        ASSET_PARTITION_RANGE_START_TAG: keys[0], ASSET_PARTITION_RANGE_END_TAG: keys[-1]})

    assert failed_documents(result.all_events) == {"badrows"}
    [failure] = result.get_step_failure_events()
    assert failure.step_failure_data.user_failure_data.description.startswith("1 of 3 documents failed: badrows: ")
    written = DuckDBStore(knowledge_db).fetch("SELECT doc_id FROM parsed_pages ORDER BY doc_id")
    assert [row["doc_id"] for row in written] == ["a", "b"]
    assert _FINISHED == ["a", "b"]  # what the step records of its documents is not recorded of it


def test_a_range_run_records_each_documents_check_and_names_the_one_a_blocking_check_failed_for(instance):
    result = _range_run(instance, ["a", "toolong", "b"])

    assert not result.success
    assert failed_documents(result.all_events) == {"toolong"}
    materialised = {e.event_specific_data.materialization.partition: e.event_specific_data.materialization
                    for e in result.get_asset_materialization_events()}
    assert {k: m.metadata["length"].value for k, m in materialised.items()} == {"a": 1, "toolong": 7, "b": 1}
    evaluations = {e.asset_check_evaluation_data.partition: e.asset_check_evaluation_data.passed
                   for e in result.all_events if e.event_type == dg.DagsterEventType.ASSET_CHECK_EVALUATION}
    assert evaluations == {"a": True, "toolong": False, "b": True}


def _latest_storage_id(instance, doc_id: str) -> int:
    (record,) = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=_lengths.key, asset_partitions=[doc_id]), limit=1).records
    return record.storage_id


def _check_targets(result) -> dict[str, int]:
    evaluations = [e.asset_check_evaluation_data for e in result.all_events
                   if e.event_type == dg.DagsterEventType.ASSET_CHECK_EVALUATION]
    return {data.partition: data.target_materialization_data.storage_id for data in evaluations}


def test_each_check_evaluation_targets_its_own_documents_latest_materialisation(instance):
    keys = ["ta", "tb", "tc"]
    first = _range_run(instance, keys)
    assert _check_targets(first) == {k: _latest_storage_id(instance, k) for k in keys}
    # tb materialised alone three times, then the checks alone over the range: the three newest
    # materialisations are tb's, so ta's and tc's latest are not among as many as there are
    # documents and are asked for alone.
    job = dg.Definitions(assets=[_lengths], asset_checks=[_short]).resolve_implicit_global_asset_job_def()
    for _ in range(3):
        job.execute_in_process(instance=instance, partition_key="tb")
    checks_only = dg.Definitions(
        assets=[_lengths], asset_checks=[_short],
        jobs=[dg.define_asset_job("checks_only", selection=dg.AssetSelection.checks(_short))],
    ).resolve_job_def("checks_only").execute_in_process(instance=instance, tags={
        ASSET_PARTITION_RANGE_START_TAG: "ta", ASSET_PARTITION_RANGE_END_TAG: "tc"})

    assert _check_targets(checks_only) == {k: _latest_storage_id(instance, k) for k in keys}


@dg.asset(partitions_def=documents, backfill_policy=dg.BackfillPolicy.single_run())
def _stamped(context: dg.AssetExecutionContext):
    # `finish` hears the documents materialised, once, after all of them.
    def finish(doc_ids: list[str]) -> dict[str, dict]:
        context.log.info(f"finished {','.join(doc_ids)}")
        return {doc_id: {"stamp": f"{doc_id}/{len(doc_ids)}"} for doc_id in doc_ids}

    def length(doc_id: str) -> dg.MaterializeResult:
        if doc_id.startswith("broken"):
            raise dg.Failure(description=f"{doc_id}: unreadable")
        return dg.MaterializeResult(metadata={"length": len(doc_id)})

    yield from materialize_each(context, length, finish)


def test_a_steps_finish_hears_its_materialised_documents_once_and_adds_to_their_metadata(instance):
    keys = ["fa", "fbb", "broken-f"]
    instance.add_dynamic_partitions(documents.name, keys)
    job = dg.Definitions(assets=[_stamped]).resolve_implicit_global_asset_job_def()
    failed = job.execute_in_process(instance=instance, raise_on_error=False, tags={
        ASSET_PARTITION_RANGE_START_TAG: "fa", ASSET_PARTITION_RANGE_END_TAG: "broken-f"})
    assert [e.user_message for e in instance.all_logs(failed.run_id) if e.user_message.startswith("finished")] == [
        "finished fa,fbb"]

    done = job.execute_in_process(instance=instance, tags={
        ASSET_PARTITION_RANGE_START_TAG: "fa", ASSET_PARTITION_RANGE_END_TAG: "fbb"})
    metadata = {e.event_specific_data.materialization.partition: e.event_specific_data.materialization.metadata
                for e in done.get_asset_materialization_events()}
    assert {k: (m["length"].value, m["stamp"].value) for k, m in metadata.items()} == {
        "fa": (2, "fa/2"), "fbb": (3, "fbb/2")}
    assert all(m["document_seconds"].value >= 0 for m in metadata.values())


@dg.multi_asset_check(specs=[dg.AssetCheckSpec("even", asset=_lengths, partitions_def=documents)])
def _even(context: dg.AssetCheckExecutionContext):
    yield from check_each(context, lambda doc_id: [
        SkippedCheck("even", "nothing to count", _lengths.key) if len(doc_id) < 3 else
        dg.AssetCheckResult(asset_key=_lengths.key, check_name="even", passed=len(doc_id) % 2 == 0)])


def test_documents_skipping_a_check_for_one_reason_are_one_line_of_the_log(instance):
    keys = ["s", "ss", "ssss"]
    instance.add_dynamic_partitions(documents.name, keys)
    job = dg.Definitions(assets=[_lengths], asset_checks=[_even]).resolve_implicit_global_asset_job_def()
    result = job.execute_in_process(instance=instance, tags={
        ASSET_PARTITION_RANGE_START_TAG: "s", ASSET_PARTITION_RANGE_END_TAG: "ssss"})

    skipped = [e.user_message for e in instance.all_logs(result.run_id) if "skipped" in e.user_message]
    assert skipped == ["check _lengths:even skipped for 2 documents (s, ss): nothing to count"]
    assert [e.asset_check_evaluation_data.partition for e in result.all_events
            if e.event_type == dg.DagsterEventType.ASSET_CHECK_EVALUATION] == ["ssss"]


def _check_partitions(instance, check_key: dg.AssetCheckKey) -> dict[str, set[str]]:
    """Each resolved status of the check and the documents in it, as Dagster's UI reads them
    (the partition status that `partitionStatuses` resolves and the sidebar aggregates)."""
    with dg.partition_loading_context(dynamic_partitions_store=instance):
        [state] = instance.event_log_storage.get_asset_check_state([(check_key, documents)]).values()
        return {status.value: set(subset.subset_value.get_partition_keys())
                for status, subset in state.subsets.items() if not subset.is_empty}


def test_a_failed_document_leaves_every_other_documents_checks_passed_and_its_own_not_failed(
        instance, knowledge_db, tmp_path):
    good_1, bad, good_2 = _bad_between_two_good(knowledge_db, tmp_path)

    outcomes = materialize_documents(instance, [good_1, bad, good_2])

    assert not outcomes[bad].success and outcomes[good_1].success and outcomes[good_2].success
    for check_name in ("spans_verbatim", "ids_unique_and_stable", "contract_valid"):
        statuses = _check_partitions(instance, dg.AssetCheckKey(dg.AssetKey("glossary"), check_name))
        # The other documents' checks passed; the failed document's ended skipped (nothing of it
        # to check), not "execution failed", which Dagster's sidebar counts as the check failing.
        assert statuses == {"SUCCEEDED": {good_1, good_2}, "SKIPPED": {bad}}, check_name
    revisions = _check_partitions(instance, dg.AssetCheckKey(dg.AssetKey("review_queue"), "revisions_consistent"))
    assert revisions == {"SUCCEEDED": {good_1, good_2}, "SKIPPED": {bad}}
    # No document here has gold: the kill lines are skipped for all three, none failed.
    assert _check_partitions(instance, dg.AssetCheckKey(dg.AssetKey("eval_scores"), "e1_kill_line")) == {
        "SKIPPED": {good_1, bad, good_2}}
    # The failure itself stays on the document's own asset partition and its own run.
    assert instance.get_run_by_id(outcomes[bad].run_id).status == dg.DagsterRunStatus.FAILURE
    failed = instance.get_status_by_partition(dg.AssetKey("parsed_chunks"), [bad, good_1], documents)
    assert failed == {bad: dg.AssetPartitionStatus.FAILED, good_1: dg.AssetPartitionStatus.MATERIALIZED}


def test_a_document_that_fails_after_an_earlier_revision_landed_is_named_by_its_own_failure_not_its_checks(
        instance, knowledge_db, tmp_path):
    from knowledge_assets.run_control.document_state import partition_states

    path = _text_document(tmp_path, "haul-volume.txt", _glossary_text("Haul Volume"))
    [doc_id] = _register(knowledge_db, path)
    assert materialize_documents(instance, [doc_id])[doc_id].success
    path.write_bytes(b"\xff\xfe\x00 not text any more")
    _register(knowledge_db, path)

    outcome = materialize_documents(instance, [doc_id])[doc_id]

    assert not outcome.success
    # Its checks ran again on the earlier revision's rows and failed (assets behind): a run of
    # their own, which is not what `documents` and the review name as the cause.
    runs = instance.get_runs(dg.RunsFilter(tags={"dagster/partition": doc_id}))
    assert [(r.job_name, r.status) for r in runs][:2] == [
        ("check_document", dg.DagsterRunStatus.FAILURE), ("extract_document", dg.DagsterRunStatus.FAILURE)]
    state = partition_states(instance, [doc_id])[doc_id]
    assert state.outcome == "failed" and state.cause.startswith("parsed_chunks: "), state.cause
