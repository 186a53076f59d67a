"""`knowledge-assets eval`: the scores of the documents in the store, the result file, and the
comparison with a baseline that fails on a regression."""

import json
import os
import subprocess
import sys

import pytest

from knowledge_assets.command import main
from knowledge_assets.evaluation.result_files import RESULTS_DIR
from knowledge_assets.ingest.documents import identify
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.registry import register
from tests.conftest import PROJECT_ROOT, SAMPLE_MARKDOWN

# The committed baseline: the offline backend on both samples.
(BASELINE,) = sorted(RESULTS_DIR.glob("*_offline_*.json"))[:1]


@pytest.fixture
def in_samples(offline_samples, monkeypatch):
    monkeypatch.setenv("KNOWLEDGE_DB", str(offline_samples.store.path))
    return offline_samples


def eval_cli(capsys, *args):
    code = main(["eval", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_prints_the_scores_of_every_document_with_gold(in_samples, capsys):
    code, out, err = eval_cli(capsys)
    assert code == 0, err
    for doc_id in ("SKT-STD-PRM-001", "SKT-MNT-KPI-002"):
        assert f"{doc_id}  backend=offline model=offline prompts=" in out
    assert out.count("e3_schema_fill_precision") == 2 and "FAIL" not in out
    assert "rules           " in out and "E3 by field" in out


def test_the_offline_samples_do_not_regress_against_the_committed_baseline(in_samples, capsys):
    code, out, err = eval_cli(capsys, "--baseline", str(BASELINE))
    assert code == 0, out + err
    assert "no regression" in out and "REGRESSED" not in out


def test_a_regression_beyond_the_tolerance_exits_non_zero_naming_the_metric(in_samples, capsys, tmp_path):
    baseline = json.loads(BASELINE.read_text())
    baseline["documents"]["SKT-STD-PRM-001"]["metrics"]["rule_recall"] = 0.9
    raised = tmp_path / "raised.json"
    raised.write_text(json.dumps(baseline))
    code, out, err = eval_cli(capsys, "--baseline", str(raised))
    assert code == 1
    (line,) = [line for line in out.splitlines() if "REGRESSED" in line]
    assert "SKT-STD-PRM-001" in line and "rule_recall" in line
    assert "1 regressions beyond the tolerance" in err
    assert eval_cli(capsys, "--baseline", str(raised), "--tolerance", "0.8")[0] == 0


def test_comparing_one_document_ignores_the_baseline_s_others(in_samples, capsys):
    code, out, _ = eval_cli(capsys, "--doc-id", "SKT-MNT-KPI-002", "--baseline", str(BASELINE))
    assert code == 0 and "SKT-STD-PRM-001" not in out


def test_write_puts_one_result_file_named_by_date_backend_and_prompts(in_samples, capsys, tmp_path):
    code, out, _ = eval_cli(capsys, "--write", "--results-dir", str(tmp_path))
    (path,) = tmp_path.iterdir()
    assert code == 0 and f"wrote {path}" in out
    assert path.name.split("_")[1] == "offline"
    data = json.loads(path.read_text())
    assert set(data["documents"]) == {"SKT-STD-PRM-001", "SKT-MNT-KPI-002"}
    assert set(data["prompt_hashes"]) == {"glossary", "formula", "rule", "domain_context"}


def test_unknown_documents_missing_gold_and_unextracted_documents_are_clear_errors(monkeypatch, capsys, tmp_path):
    store = DuckDBStore(tmp_path / "k.duckdb")
    monkeypatch.setenv("KNOWLEDGE_DB", str(store.path))
    register(store, identify(SAMPLE_MARKDOWN))
    note = tmp_path / "note.md"
    note.write_text("# 1. Scope\n\nText.\n")
    register(store, identify(note, "NOTE-1"))

    code, _, err = eval_cli(capsys, "--doc-id", "NOPE-1")
    assert code == 1 and "NOPE-1: no such document in the store" in err
    code, _, err = eval_cli(capsys, "--doc-id", "NOTE-1")
    assert code == 1 and "NOTE-1: no gold file" in err
    code, _, err = eval_cli(capsys, "--doc-id", "SKT-MNT-KPI-002")
    assert code == 1 and "SKT-MNT-KPI-002: the knowledge assets have not been materialised" in err
    code, _, err = eval_cli(capsys)
    assert code == 1 and "skipped SKT-MNT-KPI-002" in err and "no document in" in err


def test_a_missing_baseline_file_is_a_clear_error(in_samples, capsys, tmp_path):
    code, _, err = eval_cli(capsys, "--baseline", str(tmp_path / "none.json"))
    assert code == 1 and f"{tmp_path / 'none.json'}: cannot read the result file" in err


def test_the_command_exits_non_zero_on_a_regression_as_a_process(in_samples, tmp_path):
    baseline = json.loads(BASELINE.read_text())
    baseline["documents"]["SKT-MNT-KPI-002"]["metrics"]["definition_recall"] = 1.0
    raised = tmp_path / "raised.json"
    raised.write_text(json.dumps(baseline))
    env = {**os.environ, "KNOWLEDGE_DB": str(in_samples.store.path)}
    done = subprocess.run(
        [sys.executable, "-m", "knowledge_assets.command", "eval", "--baseline", str(raised)],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 1 and "definition_recall" in done.stdout and "Traceback" not in done.stderr
