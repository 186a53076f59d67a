"""The runner `semantic-review capture` and `eval --corpus` materialise documents with
(run_control/pipeline_runner.py), on the shared-store setup of docs/operations.md: `KNOWLEDGE_STORE` names a
PostgreSQL store, and a capture's run must still write its private DuckDB file alone."""

from knowledge_assets.ingest.documents import identify
from knowledge_assets.run_control.pipeline_runner import pipeline_runner
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.postgres import PostgresStore
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.registry import register
from knowledge_assets.store.schema import TABLES
from tests.conftest import SAMPLE_MARKDOWN
from tests.store.test_postgres_store import _database
from tests.support import postgres

postgres_server = postgres.postgres_server


def _rows(store: Store, table: str) -> int:
    return store.fetch(f'SELECT count(*) AS n FROM "{table}"')[0]["n"]


def test_a_capture_run_writes_its_private_store_and_leaves_the_shared_store_untouched(
    postgres_server, tmp_path, monkeypatch
):
    shared = _database(postgres_server, "capture_shared")
    monkeypatch.setenv("KNOWLEDGE_STORE", shared)
    monkeypatch.setenv("KNOWLEDGE_LLM_BACKEND", "offline")
    monkeypatch.delenv("KNOWLEDGE_DB", raising=False)
    private = DuckDBStore(tmp_path / "case" / "knowledge.duckdb")
    doc_id = register(private, identify(SAMPLE_MARKDOWN)).source.doc_id

    (tmp_path / "instance").mkdir()
    with pipeline_runner(tmp_path / "instance") as run:
        outcome = run(doc_id, private.path)

    assert outcome.success, outcome.error
    assert _rows(private, "glossary") > 0
    shared_store = PostgresStore(shared)
    assert {table: _rows(shared_store, table) for table in TABLES if _rows(shared_store, table)} == {}
