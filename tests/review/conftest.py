"""Real extractions to review: both sample documents materialised offline once, a fresh copy of
that store per test, and a pipeline a test can re-run after changing a prompt or the document."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import pytest

from knowledge_assets.cli import main
from knowledge_assets.defs.launch import materialize_document
from knowledge_assets.ingest.documents import identify
from knowledge_assets.store.database import Store
from knowledge_assets.store.registry import register
from knowledge_assets.store.schema import TABLES
from tests.conftest import SAMPLE_MARKDOWN, SAMPLE_PDF

PRM = "SKT-STD-PRM-001"
KPI = "SKT-MNT-KPI-002"


@dataclass
class Pipeline:
    """A store, a Dagster instance and a copy of the Markdown sample that a test may edit."""

    store: Store
    instance: dg.DagsterInstance
    document: Path

    def extract(self) -> str:
        doc_id = register(self.store, identify(self.document)).source.doc_id
        outcome = materialize_document(self.instance, doc_id)
        assert outcome.success, outcome.error
        return doc_id


@pytest.fixture
def instance(tmp_path):
    (tmp_path / "dagster").mkdir()
    with dg.instance_for_test(temp_dir=str(tmp_path / "dagster")) as instance:
        yield instance


@pytest.fixture
def pipeline(instance, tmp_path, monkeypatch) -> Pipeline:
    store = Store(tmp_path / "knowledge.duckdb")
    monkeypatch.setenv("KNOWLEDGE_DB", str(store.path))
    monkeypatch.setenv("KNOWLEDGE_LLM_BACKEND", "offline")
    documents = tmp_path / "documents"
    documents.mkdir()
    for source in (SAMPLE_MARKDOWN, SAMPLE_MARKDOWN.with_name(SAMPLE_MARKDOWN.name + ".meta.json")):
        shutil.copy(source, documents / source.name)
    return Pipeline(store, instance, documents / SAMPLE_MARKDOWN.name)


@pytest.fixture(scope="session")
def extracted_file(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("extracted")
    store = Store(root / "knowledge.duckdb")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("KNOWLEDGE_DB", str(store.path))
        env.setenv("KNOWLEDGE_LLM_BACKEND", "offline")
        (root / "dagster").mkdir()
        with dg.instance_for_test(temp_dir=str(root / "dagster")) as instance:
            for path in (SAMPLE_PDF, SAMPLE_MARKDOWN):
                outcome = materialize_document(instance, register(store, identify(path)).source.doc_id)
                assert outcome.success, outcome.error
    return store.path


@pytest.fixture
def extracted(extracted_file, tmp_path, monkeypatch) -> Store:
    """Both sample documents extracted and nothing reviewed; KNOWLEDGE_DB points at this copy."""
    path = tmp_path / "knowledge.duckdb"
    shutil.copy(extracted_file, path)
    monkeypatch.setenv("KNOWLEDGE_DB", str(path))
    return Store(path)


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """`knowledge-assets …` in-process: exit code, stdout, stderr (argparse errors exit too)."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def snapshot(store: Store) -> dict[str, list[dict]]:
    """Every row of every table, to show that a command wrote nothing."""
    return {table: sorted(store.fetch(f'SELECT * FROM "{table}"'), key=repr) for table in TABLES}


def one(store: Store, sql: str, *params) -> dict:
    rows = store.fetch(sql, list(params))
    assert len(rows) == 1, rows
    return rows[0]

