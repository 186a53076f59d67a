"""KNOWLEDGE_EXECUTOR chooses the executor extract_document's steps run on (defs/executors.py)."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from knowledge_assets.defs.executors import ExecutorSettingError, chosen_executor

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["in_process", "multiprocess"])
def test_a_name_is_dagsters_executor_of_that_name(name):
    assert chosen_executor(name).name == name


def test_unset_or_blank_is_in_process(monkeypatch):
    monkeypatch.delenv("KNOWLEDGE_EXECUTOR", raising=False)
    assert chosen_executor().name == "in_process"
    assert chosen_executor("  ").name == "in_process"


def test_an_unknown_name_is_one_line_listing_the_choices():
    with pytest.raises(ExecutorSettingError) as raised:
        chosen_executor("threads")
    assert str(raised.value) == ("KNOWLEDGE_EXECUTOR='threads' is not an executor; "
                                 "choose one of in_process, multiprocess, k8s, celery")


@pytest.mark.skipif(importlib.util.find_spec("dagster_k8s") is not None, reason="dagster-k8s is installed here")
def test_a_missing_library_says_what_to_install():
    wanted = r"needs dagster-k8s==0\.29\.27: .*pip install 'dagster-k8s==0\.29\.27'"
    with pytest.raises(ExecutorSettingError, match=wanted):
        chosen_executor("k8s")


def _loaded(env: dict[str, str], code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **env})


def test_the_definitions_load_the_chosen_executor_for_the_job_and_the_ui():
    code = ("from knowledge_assets.definitions import defs\n"
            "job = defs.resolve_job_def('extract_document')\n"
            "print(job.executor_def.name)")
    assert _loaded({"KNOWLEDGE_EXECUTOR": "multiprocess"}, code).stdout.split() == ["multiprocess"]
    assert _loaded({"KNOWLEDGE_EXECUTOR": ""}, code).stdout.split() == ["in_process"]


def test_the_cli_with_a_bad_setting_fails_in_one_line(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "knowledge_assets.command", "run", str(ROOT / "eval_assets" / "documents")],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT), "KNOWLEDGE_EXECUTOR": "bogus",
             "KNOWLEDGE_HOME": str(tmp_path / "home"), "KNOWLEDGE_LLM_BACKEND": "offline"},
    )
    assert done.returncode != 0
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert errors == ["error: KNOWLEDGE_EXECUTOR='bogus' is not an executor; "
                      "choose one of in_process, multiprocess, k8s, celery"]
    assert "Traceback" not in done.stderr
