"""`knowledge-assets documents` and `documents remove` on the store and instance of a real run:
one document extracted, one that failed to parse."""

import json
import os
import pty
import re
import shutil
import subprocess

import dagster as dg
import duckdb
import pytest
from dagster._core.instance.ref import InstanceRef

from knowledge_assets.command import main
from knowledge_assets.defs.partitions import documents
from knowledge_assets.store.revisions import DOCUMENT_ASSETS
from knowledge_assets.store.schema import TABLES
from tests.conftest import SAMPLE_MARKDOWN
from tests.llm.conftest import valid_answer
from tests.support.command_process import COMMAND, cli_env, cli_process, kpi_and_truncated_pdf
from tests.support.openai_server import OpenAIServer

KPI = "SKT-MNT-KPI-002"
DOC_TABLES = [table for table, columns in TABLES.items() if "doc_id" in columns]


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """The home after `run` over the Markdown sample (with its sidecar key) and a truncated PDF."""
    root = tmp_path_factory.mktemp("documents")
    result = cli_process(["run", str(kpi_and_truncated_pdf(root))], root, root, KNOWLEDGE_LLM_BACKEND="offline")
    assert result.returncode == 1, result.stdout + result.stderr
    failed = next(line for line in result.stdout.splitlines() if line.startswith("FAILED"))
    return root / "home", failed.split()[1]


@pytest.fixture
def home(ran, tmp_path, monkeypatch):
    """A copy of the run's home, named by KNOWLEDGE_DB and DAGSTER_HOME for in-process commands."""
    home = tmp_path / "home"
    shutil.copytree(ran[0], home)
    monkeypatch.setenv("KNOWLEDGE_DB", str(home / "knowledge.duckdb"))
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    return home


def _cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _rows(home, doc_id):
    con = duckdb.connect(str(home / "knowledge.duckdb"), read_only=True)
    try:
        return {t: con.execute(f'SELECT count(*) FROM "{t}" WHERE doc_id = ?', [doc_id]).fetchone()[0]
                for t in DOC_TABLES}
    finally:
        con.close()


def _partitions(home):
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(home))) as instance:
        keys = instance.get_dynamic_partitions(documents.name)
        statuses = [instance.get_status_by_partition(dg.AssetKey(asset), keys, documents) or {}
                    for asset in DOCUMENT_ASSETS]
        failed = {key for by_key in statuses for key, status in by_key.items()
                  if status == dg.AssetPartitionStatus.FAILED}
        return keys, failed


def _first_entry(capsys) -> dict:
    """The first pending entry as `review list --json` prints it: its id and the fingerprint a decision passes back."""
    code, out, _ = _cli(capsys, "review", "list", "--doc-id", KPI, "--json")
    assert code == 0
    return json.loads(out)[0]


def test_documents_lists_file_title_revision_decided_entries_last_run_and_a_failures_cause(home, ran, capsys):
    first = _first_entry(capsys)
    assert _cli(capsys, "review", "approve", first["id"], "--reviewer", "alice", "--seen", first["fingerprint"])[0] == 0
    code, out, err = _cli(capsys, "documents")
    assert code == 0, err
    header, *rows, tally = out.splitlines()
    assert header.split()[:5] == ["DOC_ID", "FILE", "TITLE", "REVISION", "DECIDED"]
    [ok] = [row for row in rows if row.startswith(KPI)]
    [failed] = [row for row in rows if row.startswith(ran[1])]
    assert "maintenance_kpi.md" in ok and "Maintenance KPI Procedure" in ok and ok.endswith("  ok")
    decided, total = next(cell for cell in ok.split() if "/" in cell and cell[0].isdigit()).split("/")
    assert decided == "1" and int(total) > 1
    assert "truncated.pdf" in failed and "failed: parsed_chunks: " in failed and "corrupt or truncated PDF" in failed
    assert "not extracted" not in out
    assert tally == "2 documents: 1 failed, 1 ok"


def test_remove_asks_first_and_refuses_without_a_terminal(home, tmp_path):
    before = _rows(home, KPI)
    env = {**cli_env(tmp_path), "KNOWLEDGE_DB": str(home / "knowledge.duckdb"), "DAGSTER_HOME": str(home)}
    refused = subprocess.run([*COMMAND, "documents", "remove", KPI], env=env, stdin=subprocess.DEVNULL,
                             capture_output=True, text=True, timeout=300)
    assert refused.returncode == 1
    assert refused.stderr == (f"error: documents remove asks before deleting {KPI}, and there is no terminal to "
                              "answer on; pass --yes\n")
    # On a terminal it asks, naming what would go; anything but yes removes nothing.
    controller, terminal = pty.openpty()
    asked = subprocess.Popen([*COMMAND, "documents", "remove", KPI], env=env, stdin=terminal,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    os.close(terminal)
    os.write(controller, b"n\n")
    out, err = asked.communicate(timeout=300)
    os.close(controller)
    assert asked.returncode == 0, err
    assert out.startswith(f"remove {KPI} (maintenance_kpi.md, \"Maintenance KPI Procedure\"): ")
    assert "rows in" in out and "and its Dagster partition? [y/N] nothing removed" in out
    assert _rows(home, KPI) == before and KPI in _partitions(home)[0]


def test_remove_deletes_every_row_and_the_partition_and_the_decisions_only_when_asked(home, ran, capsys):
    first = _first_entry(capsys)
    assert _cli(capsys, "review", "approve", first["id"], "--reviewer", "alice", "--seen", first["fingerprint"])[0] == 0
    bad_rows = _rows(home, ran[1])

    code, out, err = _cli(capsys, "documents", "remove", KPI, "--yes")

    assert code == 0, err
    assert out.startswith(f"removed {KPI} (maintenance_kpi.md, ") and "and its Dagster partition" in out
    assert "its 1 review decisions are kept (--with-decisions removes them)" in out
    left = _rows(home, KPI)
    assert {t: n for t, n in left.items() if n} == {"knowledge_reviews": 1}
    assert _rows(home, ran[1]) == bad_rows
    assert KPI not in _partitions(home)[0]
    assert KPI not in _cli(capsys, "documents")[1]

    code, out, _ = _cli(capsys, "documents", "remove", KPI, "--yes", "--with-decisions")
    assert code == 0 and out == f"removed {KPI}: 1 rows in 1 tables\n"
    assert not any(_rows(home, KPI).values())
    code, _, err = _cli(capsys, "documents", "remove", KPI, "--yes")
    assert code == 1 and "no such document" in err

    # The failed document gone too, no partition is failed any more: the graph is not red.
    assert _partitions(home)[1] == {ran[1]}
    assert _cli(capsys, "documents", "remove", ran[1], "--yes")[0] == 0
    assert _partitions(home) == ([], set())


def _schema_breaking_glossary(body):
    answer = valid_answer(body)
    return {"terms": "not a list"} if "terms" in answer else answer


def test_a_partial_run_names_its_first_failure_without_pydantics_link_and_documents_says_partial(
        tmp_path, monkeypatch, capsys):
    with OpenAIServer(_schema_breaking_glossary) as server:
        result = cli_process(["run", str(SAMPLE_MARKDOWN)], tmp_path, tmp_path, OPENAI_API_KEY="sk-test",
                             OPENAI_BASE_URL=server.base_url, KNOWLEDGE_LLM_MODEL="loopback-nano",
                             KNOWLEDGE_LLM_CACHE="off", KNOWLEDGE_LLM_RETRY_BUDGET="0")
    assert result.returncode == 3, result.stdout + result.stderr
    line = next(line for line in result.stdout.splitlines() if "maintenance_kpi.md" in line)
    # The cause as the metadata holds it ends "… input_type=str] For further information visit
    # https://errors.pydantic.dev/…/v/list_type; not retried: …".
    assert line.startswith("PARTIAL") and "first failure: invalid: 1 validation error for GlossaryResponse" in line
    assert "input_type=str]; not retried" in line and "pydantic.dev" not in line and "further information" not in line
    assert len(line) < 450

    monkeypatch.setenv("KNOWLEDGE_DB", str(tmp_path / "home" / "knowledge.duckdb"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    code, out, err = _cli(capsys, "documents")
    assert code == 0, err
    [row] = [row for row in out.splitlines() if row.startswith(KPI)]
    assert re.search(r"partial: \d+ failed model calls, 36 entries unanswered; first failure: invalid: 1 valid", row)
    assert "pydantic.dev" not in row


def test_a_document_whose_checks_never_finished_is_incomplete_with_the_guards_line(home, capsys):
    # What a kill during the review queue's blocking checks leaves: no record that they ended.
    con = duckdb.connect(str(home / "knowledge.duckdb"))
    try:
        con.execute("DELETE FROM asset_checks WHERE doc_id = ? AND asset = 'review_queue'", [KPI])
    finally:
        con.close()
    code, out, err = _cli(capsys, "documents")
    assert code == 0, err
    [line] = [row for row in out.splitlines() if row.startswith(KPI)]
    assert "incomplete: " in line and "review_queue did not finish" in line
