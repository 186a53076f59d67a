"""The KnowledgeStore resource: one connection to the store for the run, released while a
stage asks the model and at the run's end."""

import subprocess
import sys

import dagster as dg
import duckdb

from knowledge_assets.ingest.documents import identify
from knowledge_assets.run_control.launch import materialize_document
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.registry import register
from tests.conftest import SAMPLE_MARKDOWN


def test_a_document_run_opens_the_store_once_and_releases_it(tmp_path, monkeypatch):
    db = tmp_path / "knowledge.duckdb"
    monkeypatch.setenv("KNOWLEDGE_DB", str(db))
    monkeypatch.setenv("KNOWLEDGE_LLM_BACKEND", "offline")
    doc_id = register(DuckDBStore(db), identify(SAMPLE_MARKDOWN)).source.doc_id
    opened = []
    real_connect = duckdb.connect

    def counting_connect(*args, **kwargs):
        opened.append(args[0] if args else kwargs.get("database"))
        return real_connect(*args, **kwargs)

    monkeypatch.setattr(duckdb, "connect", counting_connect)
    (tmp_path / "dagster").mkdir()
    with dg.instance_for_test(temp_dir=str(tmp_path / "dagster")) as instance:
        outcome = materialize_document(instance, doc_id)
    assert outcome.success, outcome.error
    # Opened when the run starts, and held: the offline backend answers in this process, so
    # the model-calling stages keep the session (a model outside it: tests/store/
    # test_held_for_reads_and_writes.py); a small document's stages cache far less than
    # `drop_cached_pages` lets gather (D78), so none reopens it: never per read or write.
    assert opened == [str(db)]
    # Released when the run ends: another process opens the file at once.
    other = subprocess.run([sys.executable, "-c", f"import duckdb; duckdb.connect({str(db)!r}).close()"],
                           capture_output=True, text=True, timeout=60)
    assert other.returncode == 0, other.stderr
