"""`knowledge-assets store copy --to TARGET` (store/copy.py, store_commands.py, docs/decisions.md D71):
the two samples run offline into a DuckDB file, some review decisions and cached answers
recorded, copied into a second file and from it into a third, each a fresh process as a user
runs it: every table equal row for row, the exports byte-identical, the decisions kept; a
non-empty target refused, a bad target one line; a copy that loses a row names its table and
document; and the same round trip through the shared store where this build has it."""

from __future__ import annotations

import json
import re
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from knowledge_assets.store.cache import store_answer_once
from knowledge_assets.store.copy import copy_store, rows_digest
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.schema import TABLES
from tests.conftest import PROJECT_ROOT
from tests.support import postgres
from tests.support.command_process import cli_process

postgres_server = postgres.postgres_server

KPI, STD = "SKT-MNT-KPI-002", "SKT-STD-PRM-001"
CACHED_ANSWERS = 3


def _cli(args, root: Path, store: Path) -> tuple[int, str, str]:
    done = cli_process(args, PROJECT_ROOT, root, KNOWLEDGE_DB=str(store), KNOWLEDGE_LLM_BACKEND="offline")
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """The samples run into a store, two entries approved and one rejected, and a few cached
    answers (the offline backend caches none; the table has no doc_id, so it is copied apart)."""
    root = tmp_path_factory.mktemp("copy")
    docs = root / "docs"
    shutil.copytree(PROJECT_ROOT / "eval_assets" / "documents", docs)
    store = root / "source.duckdb"
    code, out, err = _cli(["run", str(docs)], root, store)
    assert code == 0, out + err
    code, out, err = _cli(["review", "list", "--doc-id", KPI, "--json"], root, store)
    assert code == 0, err
    pending = json.loads(out)  # each entry's id and the fingerprint a decision passes back as --seen
    for decision, item, note in (("approve", pending[0], []), ("approve", pending[1], []),
                                 ("reject", pending[2], ["--note", "no span"])):
        code, out, err = _cli(["review", decision, item["id"], *note, "--reviewer", "alice",
                               "--seen", item["fingerprint"]], root, store)
        assert code == 0, out + err
    for n in range(CACHED_ANSWERS):
        store_answer_once(DuckDBStore(store), f"key-{n}", "glossary", "openai", "nano", f'{{"answer": {n}}}',
                          "json_schema")
    return store


def _rows(store: Store) -> dict[str, list[str]]:
    """Every table's rows as sorted JSON texts: equal when the tables are equal row for row."""
    return {table: sorted(json.dumps(row, sort_keys=True, default=str)
                          for row in store.fetch(f'SELECT * FROM "{table}"'))
            for table in TABLES}


def _exports(root: Path, store: Path, out: Path) -> dict[str, bytes]:
    """Every file the exports write, an index's `exported_at` (the clock's, not the store's) left out."""
    for args in (["export", "--doc-id", KPI, "--out", str(out)], ["export", "--doc-id", STD, "--out", str(out)],
                 ["export", "--approved", "--out", str(out / "approved")]):
        code, stdout, err = _cli(args, root, store)
        assert code == 0, stdout + err
    return {str(path.relative_to(out)): re.sub(rb'"exported_at": "[^"]*"', b"", path.read_bytes())
            for path in sorted(out.rglob("*")) if path.is_file()}


def test_a_copy_of_a_copy_holds_every_row_decision_and_export_of_the_source(source, tmp_path):
    second, third = tmp_path / "second.duckdb", tmp_path / "nested" / "third.duckdb"
    for origin, target in ((source, second), (second, third)):
        code, out, err = _cli(["store", "copy", "--to", str(target)], tmp_path, origin)
        assert code == 0, out + err
        table_lines = [line for line in out.splitlines() if line.split()[0] in TABLES]
        assert len(table_lines) == len(TABLES) and all(line.endswith("  ok") for line in table_lines), out
        assert out.splitlines()[-1].endswith("every table and document matches")
    expected = _rows(DuckDBStore(source))
    assert _rows(DuckDBStore(third)) == expected == _rows(DuckDBStore(second))
    assert len(expected["knowledge_reviews"]) == 3 and len(expected["llm_cache"]) == CACHED_ANSWERS
    exported = _exports(tmp_path, source, tmp_path / "from_source")
    assert _exports(tmp_path, third, tmp_path / "from_third") == exported
    approved = json.loads(exported[f"approved/{KPI}/glossary.json"])
    assert len(approved) == 2


def test_cached_answers_are_copied_page_by_page(source, tmp_path):
    target = DuckDBStore(tmp_path / "paged.duckdb")
    report = copy_store(DuckDBStore(source), target, page_rows=2)
    assert report.matches and report.documents == 2
    assert _rows(target)["llm_cache"] == _rows(DuckDBStore(source))["llm_cache"]


def test_a_target_that_holds_rows_is_refused_and_left_as_it_was(source, tmp_path):
    target = tmp_path / "held.duckdb"
    DuckDBStore(target).append("llm_cache", DuckDBStore(source).fetch("SELECT * FROM llm_cache LIMIT 1"))
    before = _rows(DuckDBStore(target))
    code, out, err = _cli(["store", "copy", "--to", str(target)], tmp_path, source)
    assert code == 1 and len(err.splitlines()) == 1, out + err
    assert "the target store is not empty: llm_cache (1 rows)" in err
    assert _rows(DuckDBStore(target)) == before


@pytest.mark.parametrize("target, said", [
    ("{tmp}", "cannot open the store"),
    ("{tmp}/notes.txt", "not a valid DuckDB database file"),
    ("mysql://someone@127.0.0.1/db", "not a DuckDB file path or a postgresql:// URL"),
    ("{source}", "that is the configured store itself"),
])
def test_a_target_that_is_no_store_is_one_line(source, tmp_path, target, said):
    (tmp_path / "notes.txt").write_text("not a database\n", encoding="utf-8")
    code, out, err = _cli(["store", "copy", "--to", target.format(tmp=tmp_path, source=source)], tmp_path, source)
    assert code == 1 and len(err.splitlines()) == 1 and said in err, out + err


def test_a_shared_store_url_never_shows_its_password(source, tmp_path):
    code, out, err = _cli(["store", "copy", "--to", "postgresql://copier:s3cret-pw@127.0.0.1:1/none"], tmp_path, source)
    assert code == 1 and len(err.splitlines()) == 1, out + err
    assert "s3cret-pw" not in out + err and "copier:***@127.0.0.1:1/none" in err


class _LosingStore(DuckDBStore):
    """A DuckDB store whose write drops one document's last glossary row: a backend that loses
    a row, which the verification must name."""

    def replace_partition(self, doc_id, rows_by_table, scope=None, appends=None):
        if doc_id == STD:
            rows_by_table = {**rows_by_table, "glossary": rows_by_table["glossary"][:-1]}
        super().replace_partition(doc_id, rows_by_table, scope, appends)


def test_a_lost_row_fails_the_copy_naming_table_and_document(source, tmp_path):
    report = copy_store(DuckDBStore(source), _LosingStore(tmp_path / "lossy.duckdb"))
    assert not report.matches
    wrong = [table for table in report.tables if not table.matches]
    assert [(t.table, t.mismatched_documents, t.source_rows - t.target_rows) for t in wrong] == [("glossary", [STD], 1)]


def test_a_copy_through_the_shared_store_holds_every_row_and_export(source, tmp_path, postgres_server):
    """DuckDB file → PostgreSQL → DuckDB file, each by the command (the second with the shared
    store configured as the source), every row and the export kept."""
    postgres_server.psql("CREATE DATABASE copy_round_trip")
    url = postgres_server.url.rsplit("/", 1)[0] + "/copy_round_trip"
    code, out, err = _cli(["store", "copy", "--to", url], tmp_path, source)
    assert code == 0, out + err
    back = tmp_path / "back.duckdb"
    (tmp_path / "again").mkdir()
    done = cli_process(["store", "copy", "--to", str(back)], PROJECT_ROOT, tmp_path / "again",
                       KNOWLEDGE_STORE=url, KNOWLEDGE_LLM_BACKEND="offline")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].endswith("every table and document matches")
    assert _rows(DuckDBStore(back)) == _rows(DuckDBStore(source))
    assert _exports(tmp_path, back, tmp_path / "from_back") == _exports(tmp_path, source, tmp_path / "from_source")


def _review(**changes) -> dict:
    row = {"review_id": "r1", "doc_id": "doc", "entity_kind": "term", "entity_id": "t_1", "surface": None,
           "decision": "approved", "edited_payload": None, "reviewer": "alice",
           "reviewed_at": datetime(2026, 1, 2, 3, 4, 5, 678), "note": None, "fingerprint": "f",
           "reviewed_content": '{"term": "Uptime", "pages": [1, 2]}'}
    return {**row, **changes}


def test_a_rows_digest_is_the_same_whichever_backend_read_the_rows_and_in_any_order():
    read_here = [_review(), _review(review_id="r2", note="checked")]
    read_there = [_review(review_id="r2", note="checked"),
                  _review(reviewed_content={"pages": [1, 2], "term": "Uptime"},
                          reviewed_at=datetime(2026, 1, 2, 4, 4, 5, 678, tzinfo=timezone(timedelta(hours=1))))]
    assert rows_digest("knowledge_reviews", read_here) == rows_digest("knowledge_reviews", read_there)
    assert rows_digest("knowledge_reviews", read_here) != rows_digest("knowledge_reviews", [_review(), _review()])
    assert rows_digest("knowledge_reviews", [_review()]) != rows_digest("knowledge_reviews", [_review(note="")])


class _WrittenMeanwhile(DuckDBStore):
    """A target whose write of the second document is when another process adds a registry
    row for the first, already copied, to the source: what a shared source allows."""

    def __init__(self, path: Path, source: Store):
        super().__init__(path)
        self.source = source

    def replace_partition(self, doc_id, rows_by_table, scope=None, appends=None):
        if doc_id == STD:
            row = self.source.fetch("SELECT * FROM documents WHERE doc_id = ?", [KPI])[0]
            self.source.append("documents", [{**row, "revision": row["revision"] + 1}])
        super().replace_partition(doc_id, rows_by_table, scope, appends)


def test_a_source_written_during_the_copy_fails_the_copy(source, tmp_path):
    changing = tmp_path / "changing.duckdb"
    shutil.copy(source, changing)
    report = copy_store(DuckDBStore(changing), _WrittenMeanwhile(tmp_path / "target.duckdb", DuckDBStore(changing)))
    wrong = [(t.table, t.source_rows, t.source_rows_after) for t in report.tables if not t.matches]
    assert wrong == [("documents", 2, 3)]


def test_a_missing_source_is_one_line_and_creates_nothing(tmp_path):
    missing = tmp_path / "none" / "knowledge.duckdb"
    code, out, err = _cli(["store", "copy", "--to", str(tmp_path / "copy.duckdb")], tmp_path, missing)
    assert code == 1 and len(err.splitlines()) == 1 and "no store to copy" in err, out + err
    assert not missing.parent.exists() and not (tmp_path / "copy.duckdb").exists()
