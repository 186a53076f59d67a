"""Dagster's instance on PostgreSQL (docs/dagster.multi-node.yaml: its storage, queue and run
monitoring blocks): `knowledge-assets run FOLDER` submits its runs to the instance's queue, a
real `dagster-daemon` launches them, and the command waits, printing the same summary lines and
exit status as an embedded run; the runs, partitions, materialisations and check results live
in the PostgreSQL server, where every machine's UI and daemon read them (docs/decisions.md D72,
D85). A run waiting for the `llm` pool waits in the queue, and the command waiting for it sleeps
and answers SIGTERM."""

import dataclasses
import os
import shutil
import signal
import subprocess
import sys
import time

import dagster as dg
import pytest
import yaml

from knowledge_assets.defs.assets import document_assets
from tests.conftest import PROJECT_ROOT, SAMPLE_MARKDOWN
from tests.support import postgres
from tests.support.dagster_daemon import running_daemon

postgres_server = postgres.postgres_server

_DOCUMENTS = ("pg-instance-a", "pg-instance-b")
# What the multi-node file says about the instance, less what needs Kubernetes or S3.
_TESTED_BLOCKS = ("storage", "concurrency", "run_monitoring")
# CPU seconds a command may use in a 10 s wait: its imports are done by then; a wait that spins
# (a step looping on a pool claim, Dagster 1.13.27) uses most of a core.
_WAIT_WINDOW_S = 10.0
_WAIT_CPU_S = 1.0


def _folder(root, names=_DOCUMENTS):
    folder = root / "documents"
    folder.mkdir()
    for doc_id in names:
        copy = folder / f"{doc_id}.md"
        shutil.copyfile(SAMPLE_MARKDOWN, copy)
        copy.with_name(copy.name + ".meta.json").write_text(f'{{"doc_id": "{doc_id}"}}', encoding="utf-8")
    return folder


def _shared_machine(root, server, name) -> dict[str, str]:
    """The environment of a machine on the shared instance and store: a DAGSTER_HOME whose
    dagster.yaml is the multi-node file's tested blocks, its own databases on the server."""
    multi_node = yaml.safe_load((PROJECT_ROOT / "docs" / "dagster.multi-node.yaml").read_text(encoding="utf-8"))
    config = {block: multi_node[block] for block in _TESTED_BLOCKS} | {"telemetry": {"enabled": False}}
    config["storage"]["postgres"]["postgres_db"]["port"] = server.port
    home = root / name / "dagster-home"
    home.mkdir(parents=True)
    (home / "dagster.yaml").write_text(yaml.safe_dump(config))
    server.psql(f"CREATE DATABASE {name}_instance")
    server.psql(f"CREATE DATABASE {name}_store")
    return {**os.environ, "DAGSTER_PG_HOST": "127.0.0.1", "DAGSTER_PG_USERNAME": postgres.SERVER_USER,
            "DAGSTER_PG_PASSWORD": "", "DAGSTER_PG_DB": f"{name}_instance", "DAGSTER_HOME": str(home),
            "KNOWLEDGE_STORE": f"{server.url.rsplit('/', 1)[0]}/{name}_store",
            "KNOWLEDGE_HOME": str(root / name / "home"), "KNOWLEDGE_LLM_BACKEND": "offline"}


@pytest.fixture(scope="module")
def machine(postgres_server, tmp_path_factory):
    """A machine with the daemon running."""
    root = tmp_path_factory.mktemp("shared")
    env = _shared_machine(root, postgres_server, "queued")
    with running_daemon(env, root / "daemon.log"):
        yield root, env


def _instance(env, monkeypatch) -> dg.DagsterInstance:
    for name in ("DAGSTER_PG_HOST", "DAGSTER_PG_USERNAME", "DAGSTER_PG_PASSWORD", "DAGSTER_PG_DB"):
        monkeypatch.setenv(name, env[name])
    return dg.DagsterInstance.from_config(env["DAGSTER_HOME"])


def _run(env, *paths, timeout=600):
    return subprocess.run([sys.executable, "-m", "knowledge_assets.command", "run", *map(str, paths)],
                          cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def test_a_folder_run_goes_through_the_queue_and_records_everything_in_postgres(machine, postgres_server, monkeypatch):
    root, env = machine
    done = _run(env, _folder(root))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    summary = [line for line in done.stdout.splitlines() if line.startswith("ok ")]
    assert sorted(line.split()[1] for line in summary) == sorted(_DOCUMENTS)
    assert all("terms=" in line and "failed_calls=0" in line for line in summary)

    with _instance(env, monkeypatch) as instance:
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"
        runs = instance.get_runs()
        assert [run.job_name for run in runs] == ["extract_document"]  # the folder is one run
        assert runs[0].is_success
        # Queued, then taken off the queue by the daemon: not executed in the command's process.
        kinds = {e.dagster_event.event_type for e in instance.all_logs(runs[0].run_id) if e.dagster_event}
        assert {dg.DagsterEventType.RUN_ENQUEUED, dg.DagsterEventType.RUN_STARTING} <= kinds
        assert set(instance.get_dynamic_partitions("documents")) == set(_DOCUMENTS)
        for key in (dg.AssetKey("parsed_chunks"), dg.AssetKey("glossary"), dg.AssetKey("review_queue")):
            records = instance.fetch_materializations(key, limit=10).records
            assert sorted(r.partition_key for r in records) == sorted(_DOCUMENTS), key
        check = dg.AssetCheckKey(dg.AssetKey("glossary"), "spans_verbatim")
        executions = instance.event_log_storage.get_asset_check_execution_history(check, limit=10)
        evaluations = [e.event.dagster_event.asset_check_evaluation_data for e in executions]
        assert sorted(e.partition for e in evaluations) == sorted(_DOCUMENTS)
        assert all(e.passed for e in evaluations)
    # Written to the server itself, not to files in the home.
    in_server = dataclasses.replace(postgres_server, url=postgres_server.url.rsplit("/", 1)[0] + "/queued_instance")
    materialisations = in_server.psql(
        "SELECT count(*) FROM event_logs WHERE dagster_event_type = 'ASSET_MATERIALIZATION'")
    assert int(materialisations) == len(document_assets) * len(_DOCUMENTS)
    assert not (root / "queued" / "dagster-home" / "history").exists()


def _cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def test_a_run_waiting_for_the_llm_pool_waits_asleep_and_sigterm_cancels_it(machine, monkeypatch):
    root, env = machine
    folder = root / "waiting"
    folder.mkdir()
    # Content of its own: the same bytes as a registered document would be an alias of it.
    (folder / "waiting.md").write_text(SAMPLE_MARKDOWN.read_text(encoding="utf-8") + "\nWaiting.\n", encoding="utf-8")
    with _instance(env, monkeypatch) as instance:
        instance.event_log_storage.set_concurrency_slots("llm", 0)  # no run that calls the model may start
        try:
            command = subprocess.Popen([sys.executable, "-m", "knowledge_assets.command", "run", str(folder)],
                                       cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True)
            deadline = time.monotonic() + 120
            while not instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.QUEUED])):
                assert command.poll() is None and time.monotonic() < deadline, command.communicate()
                time.sleep(0.5)
            time.sleep(2)  # the command is in its wait loop
            before = _cpu_seconds(command.pid)
            time.sleep(_WAIT_WINDOW_S)
            used = _cpu_seconds(command.pid) - before
            (queued,) = instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.QUEUED]))
            command.send_signal(signal.SIGTERM)
            out, err = command.communicate(timeout=30)
        finally:
            instance.event_log_storage.set_concurrency_slots("llm", 2)
        assert used < _WAIT_CPU_S, f"the waiting command used {used:.2f} CPU seconds in {_WAIT_WINDOW_S:.0f} s"
        assert command.returncode == 128 + signal.SIGTERM, out + err
        assert err.strip().splitlines() == [f"error: interrupted (SIGTERM): cancelled 1 submitted run(s): "
                                            f"{queued.run_id}"]
        assert instance.get_run_by_id(queued.run_id).status == dg.DagsterRunStatus.CANCELED


def test_without_a_daemon_the_command_says_how_to_start_one_and_queues_nothing(
        postgres_server, tmp_path, monkeypatch):
    env = _shared_machine(tmp_path, postgres_server, "nodaemon")
    done = _run(env, _folder(tmp_path), timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: no dagster-daemon is taking runs off the queue") and "dagster-daemon run -w" in line
    with _instance(env, monkeypatch) as instance:
        assert instance.get_runs() == []


def test_a_shared_instance_with_the_duckdb_store_is_refused_in_one_line(postgres_server, tmp_path, monkeypatch):
    env = _shared_machine(tmp_path, postgres_server, "unshared")
    del env["KNOWLEDGE_STORE"]
    done = _run(env, _folder(tmp_path), timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    # After the note that the store and the instance are in different homes, one error line.
    (line,) = [line for line in done.stderr.strip().splitlines() if not line.startswith("note: ")]
    assert "is shared (PostgreSQL) but the store is the DuckDB file" in line and "KNOWLEDGE_STORE" in line
    with _instance(env, monkeypatch) as instance:
        assert instance.get_runs() == []


def test_the_home_made_dead_run_detector_leaves_a_shared_instance_to_the_daemon_s_run_monitoring(
        machine, monkeypatch):
    from knowledge_assets.run_control.stale_runs import PID_TAG, free_dead_runs

    _, env = machine
    with _instance(env, monkeypatch) as instance:
        # A pid that is no process here, and silence past any bound: on the embedded instance
        # this run is failed (tests/run_control/test_stale_runs.py); here it is the monitor's to judge.
        run = instance.add_run(dg.DagsterRun(job_name="extract_document", run_id="elsewhere",
                                             status=dg.DagsterRunStatus.STARTED, tags={PID_TAG: "4194304"}))
        instance.report_engine_event("the last word", run)
        try:
            assert free_dead_runs(instance, silence_bound_s=-1) == []
            assert instance.get_run_by_id("elsewhere").status == dg.DagsterRunStatus.STARTED
        finally:
            instance.delete_run("elsewhere")
