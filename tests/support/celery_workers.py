"""Real Celery workers (`dagster-celery worker start`), each a "machine": its own working folder
and KNOWLEDGE_HOME, its own worker name and, where the tests run as root (CI does), its own host
name in a UTS namespace of its own (`unshare -u`), the shared instance, store and broker. A worker is
ready when it says so in its log; it is stopped with every process it started when the test is
done. `step_pids` reads, from a worker's log, the process each step of a run executed in (the
Dagster log lines a worker prints carry the pid), which is what a test kills to kill a step."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from tests.support.processes import stop_group

UNSHARE = "/usr/bin/unshare"
READY_TIMEOUT_S = 120


@dataclass(frozen=True)
class Worker:
    name: str
    host: str  # what the worker's processes see as their host name
    folder: Path
    log: Path
    process: subprocess.Popen

    def step_pids(self, step: str) -> list[int]:
        """The pids the worker's log shows executing `step` (its STEP_START lines)."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return [int(pid) for pid in re.findall(rf" - (\d+) - {re.escape(step)} - STEP_START ", text)]

    def run_pids(self) -> list[int]:
        """The pids the worker's log shows executing a whole run (its RUN_START lines)."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return [int(pid) for pid in re.findall(r" - (\d+) - RUN_START ", text)]


def worker_config(folder: Path, broker: str, backend: str) -> Path:
    """The worker's config file: the celery executor's config block, the broker and backend."""
    path = folder / "celery.yaml"
    path.write_text(yaml.safe_dump({"execution": {"config": {"broker": broker, "backend": backend}}}))
    return path


@contextlib.contextmanager
def running_workers(root: Path, names: list[str], env: Mapping[str, str], broker: str, backend: str,
                    queue: str = "dagster") -> Iterator[list[Worker]]:
    bin_dir = Path(sys.executable).parent
    workers: list[Worker] = []
    try:
        for name in names:
            folder = root / name
            folder.mkdir(parents=True)
            config = worker_config(folder, broker, backend)
            log = folder / "worker.log"
            own = {**env, "KNOWLEDGE_HOME": str(folder / "home"), "PATH": f"{bin_dir}:{env.get('PATH', '')}"}
            command = [str(bin_dir / "dagster-celery"), "worker", "start", "-A", "dagster_celery.app", "-n", name,
                       "-y", str(config), "-q", queue, "--", "--concurrency", "1"]
            host = socket.gethostname()
            if _own_hosts():
                host = f"{name}-host"
                command = [UNSHARE, "-u", "sh", "-c", 'hostname "$0" && exec "$@"', host, *command]
            with open(log, "wb") as out:
                process = subprocess.Popen(command, cwd=folder, env=own, stdout=out, stderr=subprocess.STDOUT,
                                           start_new_session=True)
            workers.append(Worker(name, host, folder, log, process))
        for worker in workers:
            _wait_until_ready(worker)
        yield workers
    finally:
        for worker in workers:
            stop_group(worker.process)


def _own_hosts() -> bool:
    """Whether each worker can have a host name of its own: root, and util-linux's unshare."""
    return os.geteuid() == 0 and Path(UNSHARE).is_file()


def _wait_until_ready(worker: Worker) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while f"{worker.name}@" not in _ready_lines(worker.log):
        if worker.process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"celery worker {worker.name} did not start:\n"
                               f"{worker.log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.5)


def _ready_lines(log: Path) -> str:
    text = log.read_text(errors="replace") if log.exists() else ""
    return "\n".join(line for line in text.splitlines() if line.rstrip().endswith("ready."))
