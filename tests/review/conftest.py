"""Real extractions to review: both sample documents materialised offline once, a fresh copy of
that store per test, and a pipeline a test can re-run after changing a prompt or the document."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import pytest

from knowledge_assets.command import main
from knowledge_assets.extract.stages import run_review_queue
from knowledge_assets.ingest.documents import identify
from knowledge_assets.run_control.launch import materialize_document
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.registry import register
from knowledge_assets.store.revisions import record_checks
from knowledge_assets.store.schema import TABLES
from knowledge_assets.verify import stored
from tests.conftest import SAMPLE_MARKDOWN
from tests.support.materialised import materialised_samples

PRM = "SKT-STD-PRM-001"
KPI = "SKT-MNT-KPI-002"
# A key parameter no extracted term corroborates. The offline backend corroborates every key
# parameter of the samples (and leaves the company out), but a model may name one; the review of
# such a row needs one to exist, so the tests add it as a model would have answered it.
UNRESOLVED_KEY_PARAMETER = "Samudra Karya Tambang (SKT)"


def add_unresolved_key_parameter(store: Store, doc_id: str = KPI, surface: str = UNRESOLVED_KEY_PARAMETER) -> None:
    """Appends an uncorroborated key parameter to the document's domain context, then runs the
    review-queue stage again so its queue row exists, as after a model-backed run, and its
    blocking checks, so the document is current (D57)."""
    with store.connect() as con:
        con.execute("UPDATE domain_context SET key_parameters = list_append(key_parameters, "
                    "{'surface': ?, 'term_id': NULL}) WHERE doc_id = ?", [surface, doc_id])
    run_review_queue(store, doc_id)
    findings = stored.blocking_findings(stored.load_document(store, "review_queue", doc_id))
    record_checks(store, doc_id, "review_queue", [name for name, found in findings.items() if found], "tests")


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
        add_unresolved_key_parameter(self.store, doc_id)
        return doc_id


@pytest.fixture
def pipeline(instance, tmp_path, monkeypatch) -> Pipeline:
    store = DuckDBStore(tmp_path / "knowledge.duckdb")
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
    with pytest.MonkeyPatch.context() as env, materialised_samples(root, env) as samples:
        assert all(result.success for result in samples.results.values())
        add_unresolved_key_parameter(samples.store)
    return samples.store.path


@pytest.fixture
def extracted(extracted_file, tmp_path, monkeypatch) -> Store:
    """Both sample documents extracted and nothing reviewed; KNOWLEDGE_DB points at this copy."""
    path = tmp_path / "knowledge.duckdb"
    shutil.copy(extracted_file, path)
    monkeypatch.setenv("KNOWLEDGE_DB", str(path))
    return DuckDBStore(path)


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """`knowledge-assets …` in-process: exit code, stdout, stderr (argparse errors exit too)."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def seen(capsys, ref: str, doc_id: str | None = None) -> str:
    """The content fingerprint `review show` prints for the entry: what a user passes back to a
    decision as `--seen`."""
    code, out, err = run_cli(capsys, "review", "show", ref, *(["--doc-id", doc_id] if doc_id else []))
    assert code == 0, err
    return json.loads(out)["fingerprint"]


def snapshot(store: Store) -> dict[str, list[dict]]:
    """Every row of every table, to show that a command wrote nothing."""
    return {table: sorted(store.fetch(f'SELECT * FROM "{table}"'), key=repr) for table in TABLES}


def one(store: Store, sql: str, *params) -> dict:
    rows = store.fetch(sql, list(params))
    assert len(rows) == 1, rows
    return rows[0]

