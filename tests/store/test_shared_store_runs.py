"""`knowledge-assets` on the shared store (KNOWLEDGE_STORE=postgresql://…), as a user runs it:
the same contract files as from the DuckDB file, four runs at once while a reviewer approves
entries of a fifth document over HTTP, and a run that cannot get its locks in time."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from knowledge_assets.ingest.documents import identify
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.postgres import PostgresStore
from knowledge_assets.store.schema import TABLES
from tests.conftest import PROJECT_ROOT
from tests.review.web.server import review_server
from tests.store.test_postgres_store import _database
from tests.support import postgres

postgres_server = postgres.postgres_server

SAMPLES = PROJECT_ROOT / "eval_assets" / "documents"
SAMPLE_IDS = ("SKT-MNT-KPI-002", "SKT-STD-PRM-001")
CORPUS = PROJECT_ROOT.parent / "shared" / "corpus" / "docs"
_CLI = [sys.executable, "-c", "from knowledge_assets.command import main; raise SystemExit(main())"]
# What differs between any two runs, whatever the store: a call's measured time, the export's.
_RUN_TO_RUN = (re.compile(rb'"latency_s": [0-9.e+-]+'), re.compile(rb'"exported_at": "[^"]*"'))


def _cli(args: list[str], home: Path, store: str | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in ("KNOWLEDGE_STORE", "KNOWLEDGE_DB")}
    env |= {"PYTHONPATH": str(PROJECT_ROOT), "KNOWLEDGE_LLM_BACKEND": "offline", "KNOWLEDGE_HOME": str(home),
            "DAGSTER_HOME": str(home)}
    if store is not None:
        env["KNOWLEDGE_STORE"] = store
    home.mkdir(parents=True, exist_ok=True)
    return subprocess.run([*_CLI, *args], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


def _exported(home: Path, store: str | None, doc_ids: list[str], out: Path) -> dict[str, bytes]:
    """Every file `export` writes for the documents, the run-to-run figures blanked."""
    for doc_id in doc_ids:
        done = _cli(["export", "--doc-id", doc_id, "--out", str(out)], home, store)
        assert done.returncode == 0, done.stderr
    files = {}
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        data = path.read_bytes()
        for pattern in _RUN_TO_RUN:
            data = pattern.sub(lambda m: m.group(0).split(b":")[0] + b": 0", data)
        files[path.relative_to(out).as_posix()] = data
    return files


def _same_contract_files(tmp_path: Path, url: str, documents: Path, doc_ids: list[str]) -> None:
    for name, store in (("duckdb", None), ("shared", url)):
        done = _cli(["run", str(documents)], tmp_path / name, store, timeout=1200)
        assert done.returncode == 0, done.stdout + done.stderr
    duckdb_files = _exported(tmp_path / "duckdb", None, doc_ids, tmp_path / "out-duckdb")
    shared_files = _exported(tmp_path / "shared", url, doc_ids, tmp_path / "out-shared")
    assert len(duckdb_files) == 1 + 7 * len(doc_ids)
    assert list(shared_files) == list(duckdb_files)
    assert [name for name in duckdb_files if shared_files[name] != duckdb_files[name]] == []


def test_the_samples_give_the_same_contract_files_from_both_stores(postgres_server, tmp_path):
    _same_contract_files(tmp_path, _database(postgres_server, "samples"), SAMPLES, list(SAMPLE_IDS))


# Four corpus documents of four genres (a blog's reliability lexicon, a cloud guidance page, an IETF
# draft, an Indonesian regulation): six Markdown and text documents took 47 s a store to run on the
# shared machine, and the whole corpus (PDFs included) several minutes, past this test's budget.
CORPUS_SUBSET = ("oneuptime-mttr-mttd-mtbf.md", "waf-reliability-metrics.md",
                 "draft-ietf-ccwg-ratelimited-increase.md", "pp-36-2024-pnbp-klhk.md")


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the development corpus is not at {CORPUS}")
def test_corpus_documents_give_the_same_contract_files_from_both_stores(postgres_server, tmp_path):
    documents = tmp_path / "corpus"
    documents.mkdir()
    for name in CORPUS_SUBSET:
        shutil.copy(CORPUS / name, documents / name)
    doc_ids = [identify(documents / name).doc_id for name in CORPUS_SUBSET]  # content hashes
    _same_contract_files(tmp_path, _database(postgres_server, "corpus"), documents, doc_ids)


def _variants(folder: Path, n: int) -> list[Path]:
    """`n` different documents: the Markdown sample under another company's name each."""
    text = (SAMPLES / "maintenance_kpi.md").read_text(encoding="utf-8")
    folder.mkdir(parents=True)
    paths = []
    for i in range(n):
        path = folder / f"site_{i}.md"
        path.write_text(text.replace("Samudra Karya Tambang", f"Site {i} Mining Works"), encoding="utf-8")
        paths.append(path)
    return paths


def _counts(store, doc_ids: list[str]) -> dict[tuple[str, str], int]:
    """Rows per table and document, for the documents' own tables."""
    counts = {}
    for table, columns in TABLES.items():
        if "doc_id" in columns and table not in ("llm_usage", "documents", "glossary_versions"):
            for doc_id in doc_ids:
                n = store.fetch(f'SELECT count(*) AS n FROM "{table}" WHERE doc_id = ?', [doc_id])[0]["n"]
                counts[(table, doc_id)] = n
    return counts


def test_four_runs_at_once_while_a_reviewer_approves_lose_nothing(postgres_server, tmp_path):
    from tests.review.web.test_app import decide

    url = _database(postgres_server, "four")
    store = PostgresStore(url)
    *running, reviewed = _variants(tmp_path / "docs", 5)
    done = _cli(["run", str(reviewed)], tmp_path / "reviewed-home", url)
    assert done.returncode == 0, done.stdout + done.stderr
    reviewed_id = identify(reviewed).doc_id
    term_ids = [r["term_id"] for r in store.fetch("SELECT term_id FROM glossary WHERE doc_id = ? ORDER BY term_id",
                                                  [reviewed_id])]
    assert len(term_ids) >= 8
    with review_server(store, tmp_path / "serve.log") as server, ThreadPoolExecutor(4) as pool:
        client = server.client()
        runs = [pool.submit(_cli, ["run", str(path)], tmp_path / f"home-{i}", url) for i, path in enumerate(running)]
        decided = []
        for term_id in term_ids:  # while the four runs write
            answer = decide(client, term_id, reviewed_id, "approve", reviewer=f"reviewer {len(decided)}")
            assert answer.status == 303, answer.text
            decided.append(term_id)
            time.sleep(0.2)
        outcomes = [run.result() for run in runs]
    assert [o.returncode for o in outcomes] == [0] * 4, "\n".join(o.stdout + o.stderr for o in outcomes)
    # Every row a run wrote is there: the same counts as the four documents run one after another
    # into a DuckDB file.
    doc_ids = [identify(path).doc_id for path in running]
    alone = _cli(["run", *map(str, running)], tmp_path / "duckdb", None)
    assert alone.returncode == 0, alone.stdout + alone.stderr
    assert _counts(store, doc_ids) == _counts(DuckDBStore(tmp_path / "duckdb" / "knowledge.duckdb"), doc_ids)
    for table, key in (("glossary", "term_id"), ("formulas", "formula_id"), ("rules", "rule_id")):
        assert store.fetch(f'SELECT doc_id, "{key}" FROM "{table}" GROUP BY doc_id, "{key}" HAVING count(*) > 1') == []
    kept = store.fetch("SELECT entity_id, reviewer FROM knowledge_reviews WHERE doc_id = ? ORDER BY reviewed_at",
                       [reviewed_id])
    assert [(r["entity_id"], r["reviewer"]) for r in kept] == [(t, f"reviewer {i}") for i, t in enumerate(decided)]


def test_a_run_that_cannot_get_its_locks_in_time_fails_in_one_line(postgres_server, tmp_path):
    import psycopg

    url = _database(postgres_server, "locked_run")
    PostgresStore(url).fetch("SELECT 1")  # the schema
    short_wait = url + "?options=-c%20lock_timeout%3D2000"  # the URL's lock_timeout wins (store/postgres.py)
    (document,) = _variants(tmp_path / "docs", 1)
    with psycopg.connect(url) as holder:
        holder.execute("LOCK TABLE glossary IN ACCESS EXCLUSIVE MODE")
        done = _cli(["run", str(document)], tmp_path / "home", short_wait, timeout=300)
    assert done.returncode != 0
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    assert len(failed) == 1 and "could not get the store's locks within 2s" in failed[0], done.stdout + done.stderr
    assert "127.0.0.1" in failed[0]
