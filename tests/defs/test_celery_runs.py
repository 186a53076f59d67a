"""Runs on Celery workers (dagster-celery), as on several machines: a real PostgreSQL server
holding the instance and the store, a real Redis broker, a real `dagster-daemon`, two workers in
their own folders and homes, the loopback model server. `knowledge-assets run` submits to the
queue from the test's "machine" (docs/decisions.md D85, D86).

- The Celery executor (KNOWLEDGE_EXECUTOR=celery, the default run launcher): a folder's steps
  run on both workers, and give the contract files a run in one process gives; a worker process
  killed mid-step fails the run, naming the step and the cause, and a re-run completes.
- The Celery run launcher (docs/dagster.multi-node.yaml as shipped): runs are Celery tasks; a
  run whose process is killed is failed by the daemon's run monitoring and frees the `llm` pool
  for the run another machine is waiting with, within two minutes (no pid is read).

What this proves for Kubernetes, which is documented, not run: the queue, the pool at run
granularity and run monitoring failing a run its launcher reports dead are Dagster's, the same
with K8sRunLauncher (which reports a Job's pod state as CeleryRunLauncher reports a task's); the
Kubernetes-specific parts (Jobs, the ConfigMap, secrets) are not exercised.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import time

import dagster as dg
import pytest
import yaml

from tests.conftest import PROJECT_ROOT, SAMPLE_DOCUMENTS
from tests.llm.conftest import valid_answer
from tests.run_control.test_queued import _shared_machine
from tests.store.test_shared_store_runs import _exported
from tests.support import postgres, redis_server
from tests.support.celery_workers import running_workers
from tests.support.command_process import model_env
from tests.support.dagster_daemon import running_daemon
from tests.support.openai_server import Fault, OpenAIServer

postgres_server = postgres.postgres_server
redis_server = redis_server.redis_server

SAMPLE_IDS = ("SKT-MNT-KPI-002", "SKT-STD-PRM-001")
# How long the killed run may hold the pool: the monitor looks every 30 s (multi-node file), the
# queue daemon every few seconds.
POOL_FREED_WITHIN_S = 120
_CACHED_TOKENS = re.compile(rb'"cached_tokens": \d+')
_STEP_LINE = re.compile(r" - (\d+) - (\w+) - (STEP_START|STEP_SUCCESS|STEP_FAILURE) ")


@pytest.fixture(scope="module")
def model_server():
    with OpenAIServer(valid_answer) as server:
        yield server


def _cli(env, *args, timeout=900):
    return subprocess.run([sys.executable, "-m", "knowledge_assets.command", *args], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _popen(env, *args):
    return subprocess.Popen([sys.executable, "-m", "knowledge_assets.command", *args], cwd=PROJECT_ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _instance(env, monkeypatch) -> dg.DagsterInstance:
    for name in ("DAGSTER_PG_HOST", "DAGSTER_PG_USERNAME", "DAGSTER_PG_PASSWORD", "DAGSTER_PG_DB",
                 "KNOWLEDGE_CELERY_BROKER", "KNOWLEDGE_CELERY_BACKEND"):
        monkeypatch.setenv(name, env[name])
    return dg.DagsterInstance.from_config(env["DAGSTER_HOME"])


def _machine(root, server, name, broker, model, launcher: bool) -> dict[str, str]:
    env = _shared_machine(root, server, name)
    home = env["DAGSTER_HOME"]
    config = yaml.safe_load(open(os.path.join(home, "dagster.yaml")))
    if launcher:
        multi_node = yaml.safe_load((PROJECT_ROOT / "docs" / "dagster.multi-node.yaml").read_text(encoding="utf-8"))
        config["run_launcher"] = multi_node["run_launcher"]
    with open(os.path.join(home, "dagster.yaml"), "w") as out:
        yaml.safe_dump(config, out)
    env.pop("KNOWLEDGE_LLM_BACKEND")
    return {**env, **model_env(model), "KNOWLEDGE_CELERY_BROKER": f"{broker}/0",
            "KNOWLEDGE_CELERY_BACKEND": f"{broker}/1",
            "PATH": f"{os.path.dirname(sys.executable)}:{os.environ.get('PATH', '')}"}


def _executing(worker) -> tuple[str, int] | None:
    """The step the worker's log shows started and not yet ended, with its process."""
    text = worker.log.read_text(errors="replace") if worker.log.exists() else ""
    open_steps: dict[str, int] = {}
    for pid, step, kind in _STEP_LINE.findall(text):
        if kind == "STEP_START":
            open_steps[step] = int(pid)
        else:
            open_steps.pop(step, None)
    return next(iter(open_steps.items()), None)


def _wait(condition, what, timeout=300):
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.5)
    return found


@pytest.fixture(scope="module")
def step_workers(postgres_server, redis_server, model_server, tmp_path_factory):
    """The Celery executor's machines: a daemon with the default launcher, two step workers."""
    root = tmp_path_factory.mktemp("celery-steps")
    env = _machine(root, postgres_server, "steps", redis_server, model_server, launcher=False)
    env["KNOWLEDGE_EXECUTOR"] = "celery"
    with running_daemon(env, root / "daemon.log"), \
            running_workers(root, ["w1", "w2"], env, f"{redis_server}/0", f"{redis_server}/1") as workers:
        yield root, env, workers


def test_a_folder_runs_its_steps_on_both_workers_and_gives_the_contract_files_of_one_process(
        step_workers, model_server, tmp_path, monkeypatch):
    root, env, workers = step_workers
    folder = tmp_path / "documents"
    shutil.copytree(SAMPLE_DOCUMENTS, folder)
    done = _cli(env, "run", str(folder))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert sorted(line.split()[1] for line in done.stdout.splitlines() if line.startswith("ok ")) == list(SAMPLE_IDS)

    with _instance(env, monkeypatch) as instance:
        (run,) = instance.get_runs()
        on = {entry.dagster_event.event_specific_data.metadata["Celery worker"].value
              for entry in instance.all_logs(run.run_id)
              if entry.dagster_event and entry.dagster_event.event_type == dg.DagsterEventType.ENGINE_EVENT
              and "Celery worker" in (entry.dagster_event.event_specific_data.metadata or {})}
    assert on == {f"{worker.name}@{worker.host}" for worker in workers}

    # The same documents in one process, on the DuckDB file and the embedded instance.
    alone = {key: value for key, value in env.items()
             if not key.startswith(("DAGSTER_", "KNOWLEDGE_STORE", "KNOWLEDGE_EXECUTOR"))}
    alone |= {"KNOWLEDGE_HOME": str(tmp_path / "alone")}
    assert _cli(alone, "run", str(folder)).returncode == 0
    celery_files = _exported(tmp_path / "export-home", env["KNOWLEDGE_STORE"], list(SAMPLE_IDS), tmp_path / "a")
    alone_files = _exported(tmp_path / "alone", None, list(SAMPLE_IDS), tmp_path / "b")
    assert list(celery_files) == list(alone_files)
    # The loopback server simulates a provider's prompt cache, which the first of the two runs
    # warms for the second: the cached share of a prompt is the server's, not the pipeline's.
    for files in (celery_files, alone_files):
        for name in files:
            files[name] = _CACHED_TOKENS.sub(b'"cached_tokens": 0', files[name])
    assert [name for name in alone_files if celery_files[name] != alone_files[name]] == []


def test_a_worker_process_killed_mid_step_fails_the_run_naming_the_step_and_a_re_run_completes(
        step_workers, model_server, tmp_path, monkeypatch):
    _, env, workers = step_workers
    document = tmp_path / "killed.md"
    document.write_text((SAMPLE_DOCUMENTS / "maintenance_kpi.md").read_text(encoding="utf-8") + "\nKilled.\n",
                        encoding="utf-8")
    model_server.inject(Fault.slow(300))  # the run's first model call hangs: its step is mid-way
    command = _popen(env, "run", str(document))
    _wait(lambda: model_server.max_in_flight >= 1, "the first model call")
    worker, (step, pid) = _wait(lambda: next(((w, s) for w in workers if (s := _executing(w))), None),
                                "a step in a worker")
    os.kill(pid, signal.SIGKILL)
    out, err = command.communicate(timeout=600)
    assert command.returncode == 1, out + err
    (failed,) = [line for line in out.splitlines() if line.startswith("FAILED")]
    assert "killed.md" in failed and step in failed and "WorkerLostError" in failed, failed

    again = _cli(env, "run", str(document))
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert any(line.startswith("ok ") and "killed.md" in line for line in again.stdout.splitlines())


@pytest.fixture(scope="module")
def run_workers(postgres_server, redis_server, model_server, tmp_path_factory):
    """The multi-node file's machines: runs are Celery tasks on two workers; the pool holds one."""
    root = tmp_path_factory.mktemp("celery-runs")
    env = _machine(root, postgres_server, "runs", redis_server, model_server, launcher=True)
    with running_daemon(env, root / "daemon.log"), \
            running_workers(root, ["m1", "m2"], env, f"{redis_server}/0", f"{redis_server}/1",
                            queue="runs") as workers:
        yield root, env, workers


def test_a_run_killed_on_one_machine_frees_the_llm_pool_for_another_within_two_minutes(
        run_workers, model_server, tmp_path, monkeypatch):
    _, env, workers = run_workers
    documents = []
    for name in ("first", "second"):
        path = tmp_path / f"{name}.md"
        path.write_text((SAMPLE_DOCUMENTS / "maintenance_kpi.md").read_text(encoding="utf-8") + f"\n{name}\n",
                        encoding="utf-8")
        documents.append(path)
    with _instance(env, monkeypatch) as instance:
        instance.event_log_storage.set_concurrency_slots("llm", 1)
        model_server.inject(Fault.slow(600))  # the first run's model call outlives the test
        first = _popen(env, "run", str(documents[0]))
        holder = _wait(lambda: instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED])),
                       "the first run to start")[0]
        _wait(lambda: model_server.max_in_flight >= 1, "the first run's model call")
        second = _popen(env, "run", str(documents[1]))
        waiting = _wait(lambda: instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.QUEUED])),
                        "the second run to queue behind the pool")[0]
        time.sleep(5)
        assert instance.get_run_by_id(waiting.run_id).status == dg.DagsterRunStatus.QUEUED

        (pid,) = [pid for worker in workers for pid in worker.run_pids()]
        os.kill(pid, signal.SIGKILL)
        killed_at = time.monotonic()
        _wait(lambda: instance.get_run_by_id(waiting.run_id).status != dg.DagsterRunStatus.QUEUED,
              "the waiting run to leave the queue", timeout=POOL_FREED_WITHIN_S + 60)
        freed_after = time.monotonic() - killed_at
        print(f"the pool was freed {freed_after:.0f} s after the kill")  # shown with pytest -rP
        assert freed_after <= POOL_FREED_WITHIN_S, f"the pool was freed {freed_after:.0f} s after the kill"
        assert instance.get_run_by_id(holder.run_id).status == dg.DagsterRunStatus.FAILURE

        out, err = second.communicate(timeout=600)
        assert second.returncode == 0, out[-3000:] + err[-3000:]
        out, err = first.communicate(timeout=120)
        assert first.returncode == 1 and any(line.startswith("FAILED") and "first.md" in line
                                             for line in out.splitlines()), out + err
