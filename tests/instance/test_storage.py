"""The project's SQLite storage writes what Dagster's own writes, where it writes it: a range
run's materialisations and per-partition check results, read back by Dagster's stock storage
on the same folder; and its event log keeps its connections open between events. On a Dagster
its guard does not trust, the home's instance loads Dagster's own storage on the same files and
runs a document (D93)."""

import warnings

import dagster as dg
import pytest
import sqlalchemy
from dagster._core.storage.event_log.sql_event_log import SqlEventLogStorage
from dagster._core.storage.event_log.sqlite.sqlite_event_log import SqliteEventLogStorage

from knowledge_assets.ingest.documents import identify
from knowledge_assets.instance import storage
from knowledge_assets.instance.home import project_instance
from knowledge_assets.instance.storage import HeldSqliteEventLogStorage, held_log_unfit
from knowledge_assets.run_control.launch import materialize_document
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.registry import register
from tests.conftest import SAMPLE_MARKDOWN

_PARTITIONS = dg.StaticPartitionsDefinition(["a", "b", "c"])
warnings.filterwarnings("ignore", category=dg.PreviewWarning)


@dg.asset(partitions_def=_PARTITIONS, backfill_policy=dg.BackfillPolicy.single_run(),
          check_specs=[dg.AssetCheckSpec("non_empty", asset="letters", partitions_def=_PARTITIONS)])
def letters(context: dg.AssetExecutionContext):
    for key in context.partition_keys:
        context.add_asset_metadata({"letter": key}, partition_key=key)
    yield dg.MaterializeResult()
    for key in context.partition_keys:
        yield dg.AssetCheckEvaluation(asset_key=context.asset_key, check_name="non_empty", passed=True,
                                      partition=key)
    yield dg.Output(None, output_name=context.assets_def.get_output_name_for_asset_check_key(
        dg.AssetCheckKey(context.asset_key, "non_empty")))


def _held(base_dir: str) -> dict:
    return {"custom": {"module": "knowledge_assets.instance.storage", "class": "HeldSqliteStorage",
                       "config": {"base_dir": base_dir}}}


def test_a_range_run_through_the_held_storage_reads_back_through_dagsters_own(tmp_path):
    (tmp_path / "home").mkdir()
    home = str(tmp_path / "home")
    with dg.instance_for_test(temp_dir=home, overrides={"storage": _held(home)}) as held:
        assert isinstance(held.event_log_storage, HeldSqliteEventLogStorage)
        result = dg.materialize([letters], instance=held, tags={
            "dagster/asset_partition_range_start": "a", "dagster/asset_partition_range_end": "c"})
        assert result.success
        # Held open between events: the index and the run's shard, one engine each.
        assert set(held.event_log_storage._engines) == {"index", result.run_id}
    with dg.instance_for_test(temp_dir=home, overrides={"storage": {"sqlite": {"base_dir": home}}}) as stock:
        assert not isinstance(stock.event_log_storage, HeldSqliteEventLogStorage)
        records = stock.fetch_materializations(dg.AssetKey("letters"), limit=10).records
        assert sorted(r.partition_key for r in records) == ["a", "b", "c"]
        assert {r.asset_materialization.metadata["letter"].value for r in records} == {"a", "b", "c"}
        check = dg.AssetCheckKey(dg.AssetKey("letters"), "non_empty")
        executions = stock.event_log_storage.get_asset_check_execution_history(check, limit=10)
        partitions = [e.event.dagster_event.asset_check_evaluation_data.partition for e in executions]
        assert sorted(partitions) == ["a", "b", "c"]
        assert stock.get_run_by_id(result.run_id).is_success


def test_the_held_event_log_commits_without_waiting_for_the_disk(tmp_path):
    with dg.instance_for_test(temp_dir=str(tmp_path), overrides={"storage": _held(str(tmp_path))}) as instance:
        instance.add_dynamic_partitions("documents", ["D1"])
        with instance.event_log_storage.index_connection() as conn:
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def _commits_while(work) -> int:
    commits = []

    def count(_conn):
        commits.append(1)

    sqlalchemy.event.listen(sqlalchemy.engine.Engine, "commit", count)
    try:
        work()
    finally:
        sqlalchemy.event.remove(sqlalchemy.engine.Engine, "commit", count)
    return len(commits)


def _check_evaluations(instance, run_id):
    return [e for e in instance.all_logs(run_id) if e.dagster_event_type == dg.DagsterEventType.ASSET_CHECK_EVALUATION]


def test_an_event_is_one_transaction_per_shard_all_or_none(tmp_path, monkeypatch):
    # A check evaluation writes its run's shard, then the index twice (the event, then the
    # check's execution row): three transactions in Dagster's class, two here.
    with dg.instance_for_test(temp_dir=str(tmp_path), overrides={"storage": _held(str(tmp_path))}) as instance:
        result = dg.materialize([letters], instance=instance, partition_key="a")
        storage = instance.event_log_storage
        evaluation = _check_evaluations(instance, result.run_id)[0]
        assert _commits_while(lambda: storage.store_event(evaluation)) == 2  # the run's shard, the index
        assert len(_check_evaluations(instance, result.run_id)) == 2
        assert _commits_while(lambda: storage.store_event_batch([evaluation] * 3)) == 2
        assert len(_check_evaluations(instance, result.run_id)) == 5

        def index_write_fails(*_args, **_kwargs):
            raise sqlalchemy.exc.OperationalError("UPDATE asset_check_executions", {}, Exception("disk I/O error"))

        monkeypatch.setattr(SqlEventLogStorage, "_update_asset_check_evaluation", index_write_fails)
        with pytest.raises(sqlalchemy.exc.OperationalError):
            storage.store_event(evaluation)
        # Neither shard kept a part of the failed event: the run's log has no copy of it.
        assert len(_check_evaluations(instance, result.run_id)) == 5


def _read_by_dagster(monkeypatch) -> list[str]:
    """The names each listing read from the index through Dagster's own query."""
    reads = []
    original = SqlEventLogStorage.get_dynamic_partitions

    def counted(self, partitions_def_name):
        reads.append(partitions_def_name)
        return original(self, partitions_def_name)

    monkeypatch.setattr(SqlEventLogStorage, "get_dynamic_partitions", counted)
    return reads


def test_the_partition_list_is_read_again_only_when_the_index_changed(tmp_path, monkeypatch):
    home = str(tmp_path)
    with dg.instance_for_test(temp_dir=home, overrides={"storage": _held(home)}) as held:
        reads = _read_by_dagster(monkeypatch)
        held.add_dynamic_partitions("documents", ["D2", "D1"])
        assert held.get_dynamic_partitions("documents") == ["D2", "D1"]
        assert held.get_dynamic_partitions("documents") == ["D2", "D1"]
        assert held.get_dynamic_partitions("other") == []
        assert reads == ["documents", "other"]  # the second listing was the kept one
        # This process's own write, through its held engine, is a commit the cache sees.
        held.add_dynamic_partitions("documents", ["D3"])
        assert held.get_dynamic_partitions("documents") == ["D2", "D1", "D3"]
        # Another storage's, as another process's: Dagster's stock storage on the same files.
        with dg.instance_for_test(temp_dir=home, overrides={"storage": {"sqlite": {"base_dir": home}}}) as stock:
            stock.add_dynamic_partitions("documents", ["D4"])
            stock.delete_dynamic_partition("documents", "D2")
            assert held.get_dynamic_partitions("documents") == stock.get_dynamic_partitions("documents")
            assert held.get_dynamic_partitions("documents") == ["D1", "D3", "D4"]
        # Any other write to the index (an event) also reads the list again: the cache is
        # bound to the index's state, not to what changed in it.
        assert dg.materialize([letters], instance=held, partition_key="a").success
        reads.clear()
        assert held.get_dynamic_partitions("documents") == ["D1", "D3", "D4"]
        assert held.get_dynamic_partitions("documents") == ["D1", "D3", "D4"]
        assert reads == ["documents"]


def test_a_kept_list_is_never_one_read_before_a_change_it_missed(tmp_path, monkeypatch):
    home = str(tmp_path)
    stock_storage = {"storage": {"sqlite": {"base_dir": home}}}
    with dg.instance_for_test(temp_dir=home, overrides={"storage": _held(home)}) as held, \
            dg.instance_for_test(temp_dir=home, overrides=stock_storage) as stock:
        held.add_dynamic_partitions("documents", ["A"])
        storage = held.event_log_storage
        # A commit right after the index was read: the list read is kept as of before it.
        original = SqlEventLogStorage.get_dynamic_partitions
        late = ["LATE"]

        def read_then_another_commits(self, partitions_def_name):
            keys = original(self, partitions_def_name)
            if late:
                stock.add_dynamic_partitions("documents", [late.pop()])
            return keys

        monkeypatch.setattr(SqlEventLogStorage, "get_dynamic_partitions", read_then_another_commits)
        assert held.get_dynamic_partitions("documents") == ["A"]
        assert held.get_dynamic_partitions("documents") == ["A", "LATE"]
        # What a caller does with the list it got is not the kept list.
        held.get_dynamic_partitions("documents").append("X")
        assert held.get_dynamic_partitions("documents") == ["A", "LATE"]
        # Inside an event's transaction the list is the transaction's, and a rolled-back
        # partition is not kept.
        with pytest.raises(RuntimeError), storage._one_transaction_per_shard():
            storage.add_dynamic_partitions("documents", ["ROLLED"])
            assert storage.get_dynamic_partitions("documents") == ["A", "LATE", "ROLLED"]
            raise RuntimeError("rolled back")
        assert held.get_dynamic_partitions("documents") == ["A", "LATE"]
        # Closed (the storage disposed) and used again, a later change is read.
        storage._partition_lists.close()
        stock.add_dynamic_partitions("documents", ["B"])
        assert held.get_dynamic_partitions("documents") == ["A", "LATE", "B"]
        stock.add_dynamic_partitions("documents", ["C"])
        assert held.get_dynamic_partitions("documents") == ["A", "LATE", "B", "C"]


def test_the_guard_trusts_the_held_log_on_the_pinned_dagster():
    # Fails on a Dagster upgrade: run the suite on it, then add its version to TESTED_DAGSTER_VERSIONS.
    assert held_log_unfit() is None, held_log_unfit()


def test_the_guard_names_a_version_or_an_overridden_name_that_changed():
    assert "Dagster 1.14.0 is not a version it was tested with" in held_log_unfit("1.14.0")

    class ConnectsOtherwise(SqliteEventLogStorage):
        def _connect(self, shard: str, timeout: float):
            raise NotImplementedError

    class KeepsNoLock(SqliteEventLogStorage):
        def __init__(self, base_dir: str):
            self._initialized_dbs = set()

    assert held_log_unfit(event_log=ConnectsOtherwise) == (
        "ConnectsOtherwise._connect is no longer _connect(self, shard)")
    assert held_log_unfit(event_log=KeepsNoLock) == "KeepsNoLock no longer sets _db_lock"


def test_a_home_on_a_dagster_the_guard_does_not_trust_runs_a_document_on_dagsters_own_storage(
        tmp_path, monkeypatch, capsys):
    for name in ("DAGSTER_HOME", "KNOWLEDGE_STORE"):
        monkeypatch.setenv(name, "")  # recorded, so the DAGSTER_HOME the instance exports is undone
        monkeypatch.delenv(name)
    home = tmp_path / "home"
    monkeypatch.setenv("KNOWLEDGE_HOME", str(home))
    monkeypatch.setenv("KNOWLEDGE_DB", str(tmp_path / "knowledge.duckdb"))
    monkeypatch.setenv("KNOWLEDGE_LLM_BACKEND", "offline")
    monkeypatch.setattr(storage, "TESTED_DAGSTER_VERSIONS", frozenset({"0.0.0"}))
    store = DuckDBStore(tmp_path / "knowledge.duckdb")
    with project_instance() as instance:
        assert type(instance.event_log_storage) is SqliteEventLogStorage
        doc_id = register(store, identify(SAMPLE_MARKDOWN)).source.doc_id
        outcome = materialize_document(instance, doc_id)
    assert outcome.success, outcome.error
    warned = [line for line in capsys.readouterr().err.splitlines() if "held event log" in line]
    assert warned == [f"warning: Dagster {dg.__version__} is not a version it was tested with (0.0.0): Dagster's "
                      "own SQLite storage is used instead of the held event log, in the same files; each event "
                      "costs more (docs/decisions.md D93)"]
    # The same files: the home's own storage, trusted again, reads the run back.
    monkeypatch.undo()
    with dg.instance_for_test(temp_dir=str(home), overrides={"storage": _held(str(home))}) as held:
        assert isinstance(held.event_log_storage, HeldSqliteEventLogStorage)
        assert doc_id in held.get_materialized_partitions(dg.AssetKey("review_queue"))
