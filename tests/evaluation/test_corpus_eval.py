"""The development corpus through `knowledge-assets eval --corpus`, as a process, offline: it
must not regress against the committed corpus baseline, its figures must be those of the
corpus's own score.py on the same outputs, and a higher baseline must fail it. ~1 min."""

import json
import os
import subprocess
import sys

import pytest

from knowledge_assets.evaluation.corpus import COLUMNS, baseline_name, compare_with_baseline, read_corpus_results
from knowledge_assets.evaluation.corpus_scores import read_outputs, score_outputs
from knowledge_assets.evaluation.results import RESULTS_DIR, regressions
from knowledge_assets.evaluation.scores import RunInfo
from tests.conftest import PROJECT_ROOT

BASELINE = RESULTS_DIR / baseline_name(RunInfo("offline", "offline", {}))
SHORTEST = "perba-16-2012-bapeten-klierens"


def eval_corpus(corpus, tmp, *args):
    env = {**os.environ, "KNOWLEDGE_LLM_BACKEND": "offline",
           "KNOWLEDGE_DB": str(tmp / "user.duckdb"), "DAGSTER_HOME": str(tmp / "user-dagster")}
    return subprocess.run(
        [sys.executable, "-m", "knowledge_assets.cli", "eval", "--corpus", str(corpus), *args],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=900,
    )


@pytest.fixture(scope="module")
def corpus_run(corpus_dir, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("corpus")
    done = eval_corpus(corpus_dir, tmp, "--work", str(tmp / "work"), "--write", "--results-dir", str(tmp / "results"),
                       "--baseline", str(BASELINE))
    (written,) = (tmp / "results").glob("corpus_*.json")
    return done, tmp, read_corpus_results(written)


def test_the_corpus_does_not_regress_against_the_committed_baseline(corpus_run, corpus_dir):
    done, tmp, payload = corpus_run
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"baseline {BASELINE}" in done.stdout and "no regression" in done.stdout
    assert "FAILED" not in done.stdout and payload["failed"] == {}
    assert set(payload["documents"]) == {path.stem for path in (corpus_dir / "gold").glob("*.json")}
    assert not (tmp / "user.duckdb").exists()


def test_the_figures_are_those_of_the_corpus_score_py_on_the_run_s_outputs(corpus_run, corpus_dir, score_py):
    done, tmp, payload = corpus_run
    cells = [line.split() for line in done.stdout.splitlines()]
    rows = {cell[0]: cell[1:8] for cell in cells if cell and cell[0] in payload["documents"]}
    for stem in payload["documents"]:
        gold = json.loads((corpus_dir / "gold" / f"{stem}.json").read_text(encoding="utf-8"))
        outputs = tmp / "work" / "export" / stem
        expected = score_py.score(gold, str(outputs))
        assert score_outputs(gold, read_outputs(outputs)).figures == expected, stem
        assert rows[stem] == ["-" if expected[c] is None else f"{expected[c]:.2f}" for c in COLUMNS], stem
        assert payload["documents"][stem]["metrics"]["term_recall"] == expected["term_recall"]


def test_a_baseline_with_higher_figures_makes_the_command_exit_1(corpus_run, corpus_dir, tmp_path):
    _, _, payload = corpus_run
    raised = json.loads(BASELINE.read_text(encoding="utf-8"))
    raised["documents"][SHORTEST]["metrics"]["term_recall"] += 0.05
    changes = compare_with_baseline(raised, payload)
    assert [(c.doc_id, c.metric) for c in regressions(changes)] == [(SHORTEST, "term_recall")]
    path = tmp_path / "raised.json"
    path.write_text(json.dumps(raised), encoding="utf-8")
    done = eval_corpus(corpus_dir, tmp_path, "--baseline", str(path), "--doc-id", SHORTEST)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "REGRESSED" in done.stdout and "1 regressions beyond the tolerance" in done.stderr
    assert "Traceback" not in done.stderr
