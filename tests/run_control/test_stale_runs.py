"""A run killed inside a model-calling step, with real processes: its pool slot is held by a run
that will never end; the next `knowledge-assets run` fails it, frees the slot, and completes.
Between the two, `export` refuses the document the killed run left on two revisions."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import dagster as dg
from dagster._core.instance.ref import InstanceRef

from tests.conftest import PROJECT_ROOT, SAMPLE_MARKDOWN
from tests.llm.conftest import valid_answer
from tests.support.openai_server import OpenAIServer

# One slot in the pool: the dead run's claim alone would make every later run wait forever.
_INSTANCE = "telemetry:\n  enabled: false\nconcurrency:\n  pools:\n    default_limit: 1\n"
_OFFLINE = {"KNOWLEDGE_LLM_BACKEND": "offline"}


def _env(home, **extra):
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "KNOWLEDGE_"))}
    return {**base, "KNOWLEDGE_DB": str(home / "knowledge.duckdb"), "DAGSTER_HOME": str(home), **extra}


def _cli(args, home, **extra):
    return subprocess.run([sys.executable, "-m", "knowledge_assets.command", *args], cwd=PROJECT_ROOT,
                          env=_env(home, **extra), capture_output=True, text=True, timeout=400)


def _llm_slots(home):
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(home))) as instance:
        info = instance.event_log_storage.get_concurrency_info("llm")
        return [slot.run_id for slot in info.claimed_slots], {r.run_id: r.status for r in instance.get_runs()}


def test_a_run_killed_in_a_model_step_frees_its_slot_for_the_next_run_and_export_refuses_the_mix(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "dagster.yaml").write_text(_INSTANCE, encoding="utf-8")
    doc = tmp_path / "kpi.md"
    shutil.copy(SAMPLE_MARKDOWN, doc)
    shutil.copy(SAMPLE_MARKDOWN.with_name(SAMPLE_MARKDOWN.name + ".meta.json"), tmp_path / "kpi.md.meta.json")
    first = _cli(["run", str(doc)], home, **_OFFLINE)
    assert first.returncode == 0, first.stdout + first.stderr
    doc.write_text(doc.read_text(encoding="utf-8") + "\n\n## 9. Added later\n\nA new section.\n", encoding="utf-8")

    # Revision 2, asked of a model that takes minutes: killed while `formulas` waits for it.
    with OpenAIServer(valid_answer, latency_s=300.0) as server:
        model = {"OPENAI_API_KEY": "sk-test-x", "OPENAI_BASE_URL": server.base_url, "KNOWLEDGE_LLM_CACHE": "off"}
        killed = subprocess.Popen([sys.executable, "-m", "knowledge_assets.command", "run", str(doc)], cwd=PROJECT_ROOT,
                                  env=_env(home, **model), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 180
        while not server.requests and time.monotonic() < deadline and killed.poll() is None:
            time.sleep(0.2)
        assert server.requests, "the model-calling step never started"
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait()
    held, statuses = _llm_slots(home)
    assert len(held) == 1 and statuses[held[0]] == dg.DagsterRunStatus.STARTED
    dead_run = held[0]

    refused = _cli(["export", "--doc-id", "SKT-MNT-KPI-002", "--out", str(tmp_path / "out")], home)
    assert refused.returncode == 1
    assert "at revision 2 but these assets are behind: formulas (revision 1)" in refused.stderr
    assert "term_clusters" not in refused.stderr  # it finished on revision 2 before the kill

    started = time.monotonic()
    second = _cli(["run", str(doc)], home, **_OFFLINE)
    assert second.returncode == 0, second.stdout + second.stderr
    assert time.monotonic() - started < 300
    freed = [line for line in second.stderr.splitlines() if line.startswith("freed the pool slots")]
    assert len(freed) == 1 and dead_run in freed[0] and f"(pid {killed.pid}) is gone" in freed[0]
    held, statuses = _llm_slots(home)
    assert held == [] and statuses[dead_run] == dg.DagsterRunStatus.FAILURE

    exported = _cli(["export", "--doc-id", "SKT-MNT-KPI-002", "--out", str(tmp_path / "out")], home)
    assert exported.returncode == 0, exported.stderr


def test_a_silent_run_whose_process_is_alive_here_is_left_running():
    from knowledge_assets.run_control.stale_runs import PID_TAG, free_dead_runs

    with dg.DagsterInstance.ephemeral() as instance:
        run = instance.add_run(dg.DagsterRun(job_name="extract_document", run_id="live-run",
                                             status=dg.DagsterRunStatus.STARTED, tags={PID_TAG: str(os.getppid())}))
        instance.report_engine_event("a long model step", run)
        # Any silence is over a negative bound: only the live process can keep the run.
        assert free_dead_runs(instance, silence_bound_s=-1) == []
        silent = instance.add_run(dg.DagsterRun(job_name="extract_document", run_id="silent-run",
                                                status=dg.DagsterRunStatus.STARTED))
        instance.report_engine_event("the last word", silent)
        assert [dead.run_id for dead in free_dead_runs(instance, silence_bound_s=-1)] == ["silent-run"]
