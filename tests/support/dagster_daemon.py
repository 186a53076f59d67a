"""A real `dagster-daemon run` over the project's workspace.yaml, for the tests that submit runs
to a shared instance's queue: started with the test's environment (its DAGSTER_HOME, store and
backend settings, which the runs it launches inherit), ready once its queue daemon has beaten,
and stopped with every process it started (code server, run workers) when the test ends."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import dagster as dg

from tests.conftest import PROJECT_ROOT
from tests.support.processes import stop_group

READY_TIMEOUT_S = 120


@contextmanager
def running_daemon(env: Mapping[str, str], log: Path) -> Iterator[subprocess.Popen]:
    """The daemon, running with `env`; its output goes to `log` (shown if it never gets ready)."""
    daemon = Path(sys.executable).with_name("dagster-daemon")
    with open(log, "wb") as out:
        process = subprocess.Popen([str(daemon), "run", "-w", str(PROJECT_ROOT / "workspace.yaml")],
                                   cwd=PROJECT_ROOT, env=dict(env), stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        _wait_until_beating(env, process, log)
        yield process
    finally:
        stop_group(process)


def _wait_until_beating(env: Mapping[str, str], process: subprocess.Popen, log: Path) -> None:
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        with dg.DagsterInstance.from_config(env["DAGSTER_HOME"]) as instance:
            deadline = time.monotonic() + READY_TIMEOUT_S
            while "QUEUED_RUN_COORDINATOR" not in instance.get_daemon_heartbeats():
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"dagster-daemon did not start:\n{log.read_text(errors='replace')[-3000:]}")
                time.sleep(0.5)
    finally:
        os.environ.clear()
        os.environ.update(saved)
