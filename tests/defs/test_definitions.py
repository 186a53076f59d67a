"""The Dagster wiring against a real temporary instance."""

import dagster as dg
import pytest

from knowledge_assets.definitions import defs
from knowledge_assets.defs.assets import document_assets
from knowledge_assets.ingest.documents import identify
from knowledge_assets.run_control.launch import materialize_document
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.registry import register
from tests.conftest import SAMPLE_PDF
from tests.documents import write_image_only_pdf


def test_definitions_load_with_every_document_asset_partitioned_by_documents():
    repo = defs.get_repository_def()
    keys = {key.to_user_string() for key in repo.asset_graph.get_all_asset_keys()}
    assert {"parsed_chunks", "term_clusters", "formulas", "glossary", "rules", "domain_context",
            "review_queue"} <= keys
    assert repo.has_job("extract_document") and repo.has_sensor_def("new_documents")
    assert repo.has_schedule_def("reextract_stale")
    check_names = {key.name for key in repo.asset_graph.asset_check_keys}
    assert {"spans_verbatim", "ids_unique_and_stable", "contract_valid", "e1_kill_line", "e3_kill_line"} <= check_names
    for asset in document_assets:
        for key in asset.keys:
            node = repo.asset_graph.get(key)
            assert node.partitions_def == dg.DynamicPartitionsDefinition(name="documents")
            assert node.code_version


@pytest.fixture
def knowledge_db(tmp_path, monkeypatch):
    path = tmp_path / "knowledge.duckdb"
    monkeypatch.setenv("KNOWLEDGE_DB", str(path))
    return path


def test_whole_graph_materialises_a_sample_document(instance, knowledge_db):
    doc_id = register(DuckDBStore(knowledge_db), identify(SAMPLE_PDF)).source.doc_id
    outcome = materialize_document(instance, doc_id)
    assert outcome.success, outcome.error
    meta = outcome.metadata["parsed_chunks"]
    assert meta["pages"] == 9 and meta["chunks"] > 20 and meta["dagster/row_count"] == meta["chunks"]
    assert instance.get_latest_materialization_event(dg.AssetKey("parsed_chunks")) is not None
    rows = DuckDBStore(knowledge_db).fetch("SELECT count(*) AS n FROM parsed_chunks WHERE doc_id = ?", [doc_id])
    assert rows[0]["n"] == meta["chunks"]


def test_a_bad_document_fails_only_its_own_partition(instance, knowledge_db, tmp_path):
    store = DuckDBStore(knowledge_db)
    good = register(store, identify(SAMPLE_PDF)).source.doc_id
    assert materialize_document(instance, good).success
    before = store.fetch("SELECT * FROM parsed_chunks WHERE doc_id = ? ORDER BY seq", [good])
    bad = register(store, identify(write_image_only_pdf(tmp_path / "scan.pdf"))).source.doc_id
    outcome = materialize_document(instance, bad)
    assert not outcome.success
    assert "scan.pdf: no extractable text" in outcome.error and "Traceback" not in outcome.error
    assert store.fetch("SELECT * FROM parsed_chunks WHERE doc_id = ? ORDER BY seq", [good]) == before
    assert store.fetch("SELECT * FROM parsed_chunks WHERE doc_id = ?", [bad]) == []
    assert set(instance.get_dynamic_partitions("documents")) == {good, bad}


def test_every_run_the_definitions_launch_runs_its_steps_in_one_process():
    assert defs.resolve_job_def("extract_document").executor_def is dg.in_process_executor
    assert defs.resolve_implicit_global_asset_job_def().executor_def is dg.in_process_executor


def test_a_backfill_over_many_documents_runs_as_one_run():
    # What the UI's backfill reads: every asset of the job may run all its partitions in one run.
    repo = defs.get_repository_def()
    job_keys = repo.get_job("extract_document").asset_layer.executable_asset_keys
    assert job_keys == {key for asset in document_assets for key in asset.keys}
    for key in job_keys:
        assert repo.asset_graph.get(key).backfill_policy == dg.BackfillPolicy.single_run(), key


def test_the_entry_point_holds_one_definitions_object():
    # Dagster refuses a module with two Definitions at its scope (the UI would not load it).
    from knowledge_assets import definitions

    assert [name for name, value in vars(definitions).items() if isinstance(value, dg.Definitions)] == ["defs"]
