"""A run whose steps are processes of their own (KNOWLEDGE_EXECUTOR=multiprocess, launched as the
UI launches it, with `dg launch`), all writing the shared store: the same contract files as the
one-process run into the DuckDB file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import dagster as dg

from tests.conftest import PROJECT_ROOT
from tests.store.test_postgres_store import _database
from tests.store.test_shared_store_runs import SAMPLES, _cli, _exported
from tests.support import postgres

postgres_server = postgres.postgres_server

KPI = "SKT-MNT-KPI-002"


def _dg_launch(home: Path, url: str, partition: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in ("KNOWLEDGE_STORE", "KNOWLEDGE_DB")}
    env |= {"PYTHONPATH": str(PROJECT_ROOT), "KNOWLEDGE_LLM_BACKEND": "offline", "KNOWLEDGE_HOME": str(home),
            "DAGSTER_HOME": str(home), "KNOWLEDGE_STORE": url, "KNOWLEDGE_EXECUTOR": "multiprocess"}
    dg_command = [str(Path(sys.executable).with_name("dg"))]
    return subprocess.run([*dg_command, "launch", "--job", "extract_document", "--partition", partition],
                          cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)


def test_steps_in_processes_of_their_own_write_the_shared_store_as_one_process_writes_the_file(
        postgres_server, tmp_path):
    url = _database(postgres_server, "steps")
    home = tmp_path / "shared"
    registered = _cli(["ingest", str(SAMPLES / "maintenance_kpi.md")], home, url)
    assert registered.returncode == 0, registered.stdout + registered.stderr
    launched = _dg_launch(home, url, KPI)
    assert launched.returncode == 0, launched.stdout[-3000:] + launched.stderr[-3000:]

    with dg.DagsterInstance.from_config(str(home)) as instance:
        (run,) = instance.get_runs(dg.RunsFilter(job_name="extract_document"))
        assert run.status == dg.DagsterRunStatus.SUCCESS
        starts = instance.all_logs(run.run_id, of_type=dg.DagsterEventType.STEP_START)
    step_pids = {entry.dagster_event.pid for entry in starts}
    assert len(starts) >= 8 and len(step_pids) == len(starts), "each step in a process of its own"

    alone = _cli(["run", str(SAMPLES / "maintenance_kpi.md")], tmp_path / "duckdb")
    assert alone.returncode == 0, alone.stdout + alone.stderr
    shared_files = _exported(home, url, [KPI], tmp_path / "out-shared")
    duckdb_files = _exported(tmp_path / "duckdb", None, [KPI], tmp_path / "out-duckdb")
    assert list(shared_files) == list(duckdb_files)
    assert [name for name in duckdb_files if shared_files[name] != duckdb_files[name]] == []
