"""Real Dagster processes for the end-to-end tests: the project's instance settings under a
temporary folder, processes started in their own session (so `dagster dev`-style process trees,
code servers included, are stopped as one group), and waiting with a clear failure."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml

from tests.conftest import PROJECT_ROOT

WORKSPACE = PROJECT_ROOT / "workspace.yaml"
# A hang guard only: the tests wait for an event, not for a duration.
STARTUP_DEADLINE_S = 240.0


def project_instance_config(root: Path) -> dict:
    """The project's dagster.yaml, with its project-relative storage moved under `root`."""
    text = (PROJECT_ROOT / "dagster.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text.replace("base_dir: .knowledge", f"base_dir: {root}/.knowledge"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def dagster_process(args: list[str], log: Path, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen]:
    with log.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(
            args, cwd=PROJECT_ROOT, env={**os.environ, **(env or {})}, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            yield process
        finally:
            _stop_group(process)


def _stop_group(process: subprocess.Popen) -> None:
    # The webserver and the daemon start code servers of their own; the whole session goes.
    for sig, grace in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def wait_for(condition: Callable[[], object], what: str, process: subprocess.Popen, log: Path,
             deadline_s: float = STARTUP_DEADLINE_S) -> object:
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            found = condition()
        except OSError:
            found = None
        if found:
            return found
        if process.poll() is not None or time.monotonic() > deadline:
            tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
            state = "exited" if process.poll() is not None else "still waiting"
            raise AssertionError(f"{what}: not reached ({state}); log {log}:\n{tail}")
        time.sleep(1.0)


def graphql(base_url: str, query: str, variables: dict | None = None) -> dict:
    request = urllib.request.Request(
        f"{base_url}/graphql", data=json.dumps({"query": query, "variables": variables or {}}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        body = json.load(response)
    if body.get("errors"):
        raise AssertionError(f"GraphQL errors: {body['errors']}")
    return body["data"]
