"""Runs handed to a shared instance's run queue, for `dagster-daemon` and the instance's run
launcher to execute, and waited for (docs/decisions.md D85).

An instance is shared when its runs live in PostgreSQL (docs/dagster.multi-node.yaml): several
machines then see one run queue, one set of pool slots and one run monitor, and a run must go
through them, not around them in the command's own process. A run is submitted with Dagster's
own `dagster job launch` (the public command that submits to the instance's run coordinator),
under a run id chosen here, so the command can wait for exactly its runs; the run is the same
`extract_document` run the sensor and the UI launch, and its outcome is read from the instance's
event log, as every run's is (`launch.run_outcomes`).

Waiting sleeps between looks at the run (it never spins a core) and answers SIGINT and SIGTERM:
the command cancels the runs it submitted (queued ones leave the queue, started ones are
terminated through the launcher) and exits with one line.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import dagster as dg

from knowledge_assets.errors import KnowledgeError
from knowledge_assets.settings import project_root, store_setting
from knowledge_assets.store.backends import is_shared_store

# The daemon that takes runs off the queue beats every 30 s (Dagster's default); four missed
# beats mean no daemon is taking them.
QUEUE_DAEMON = "QUEUED_RUN_COORDINATOR"
DAEMON_SILENCE_S = 120.0
POLL_S = 1.0
_SUBMIT_TIMEOUT_S = 300
# `dagster job launch` names the run's code location as the daemon's workspace names it: the
# same file, so a daemon started with it finds the code the run was submitted from.
WORKSPACE = "workspace.yaml"


class NoDaemon(KnowledgeError):
    """A shared instance with no daemon taking runs off its queue: the run would wait forever."""


class UnsharedStore(KnowledgeError):
    """A shared instance with the DuckDB store: a run on another machine could not write it."""


class SubmitFailed(KnowledgeError):
    """`dagster job launch` refused the run (its one line is in the message)."""


class Interrupted(KnowledgeError):
    """SIGINT or SIGTERM while waiting: the submitted runs were cancelled. The exit status is a
    shell's for the signal, 128 + its number (130, 143), as for a command the signal ended."""

    exit_code = 128 + signal.SIGINT

    def __init__(self, message: str, signum: int) -> None:
        super().__init__(message)
        self.exit_code = 128 + signum


def is_shared(instance: dg.DagsterInstance) -> bool:
    """Whether the instance keeps its runs in PostgreSQL, where every machine reads them."""
    try:
        from dagster_postgres import PostgresRunStorage
    except ImportError:
        return False
    return isinstance(instance.run_storage, PostgresRunStorage)


def require_shared_store(instance: dg.DagsterInstance) -> None:
    """Raises `UnsharedStore` when the store is the DuckDB file: the daemon's runs, wherever they
    execute, must write the same store the command registered the documents in."""
    if not is_shared_store(store_setting()):
        raise UnsharedStore(
            f"the Dagster instance {instance.root_directory} is shared (PostgreSQL) but the store is the DuckDB "
            f"file {store_setting()}, which a run on another machine cannot write: set "
            "KNOWLEDGE_STORE=postgresql://… for this command and the daemon (docs/operations.md, \"Several machines\")"
        )


def require_daemon(instance: dg.DagsterInstance, now: float | None = None) -> None:
    """Raises `NoDaemon`, saying how to start one, when no queue daemon has beaten lately."""
    beat = instance.get_daemon_heartbeats().get(QUEUE_DAEMON)
    silence = None if beat is None else (now if now is not None else time.time()) - beat.timestamp
    if silence is not None and silence <= DAEMON_SILENCE_S:
        return
    heard = "never" if silence is None else f"last {silence:.0f}s ago"
    raise NoDaemon(
        f"no dagster-daemon is taking runs off the queue of the shared instance {instance.root_directory} "
        f"(heartbeat: {heard}); start one with `DAGSTER_HOME={instance.root_directory} dagster-daemon run "
        f"-w {project_root() / WORKSPACE}` on any machine, then run this again"
    )


def submit(job_name: str, tags: Mapping[str, str], env: Mapping[str, str] | None = None) -> str:
    """Submits one run of `job_name` with `tags` to the instance's queue; returns its run id."""
    run_id = str(uuid.uuid4())
    command = [str(Path(sys.executable).with_name("dagster")), "job", "launch", "-w",
               str(project_root() / WORKSPACE), "-j", job_name, "--run-id", run_id, "--tags", json.dumps(dict(tags))]
    done = subprocess.run(command, cwd=project_root(), env=dict(env if env is not None else os.environ),
                          capture_output=True, text=True, timeout=_SUBMIT_TIMEOUT_S, check=False)
    if done.returncode != 0:
        lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        raise SubmitFailed(f"the run queue refused the run: {lines[-1] if lines else f'exit {done.returncode}'}")
    return run_id


def wait(instance: dg.DagsterInstance, run_ids: list[str],
         on_events: Callable[[str, list[dg.DagsterEvent]], None] | None = None) -> dict[str, dg.DagsterRun]:
    """Each run once it has finished; sleeps `POLL_S` between looks, handing each run's new events
    to `on_events` (progress). A SIGINT or SIGTERM cancels the runs not yet finished and raises
    `Interrupted`."""
    finished: dict[str, dg.DagsterRun] = {}
    # Where each run's event log was read up to: a look reads only the events since the last.
    cursors: dict[str, str | None] = dict.fromkeys(run_ids)
    with _interrupts() as interrupted:
        while len(finished) < len(run_ids):
            for run_id in run_ids:
                run = instance.get_run_by_id(run_id)
                if on_events is not None and run_id not in finished:
                    page = instance.get_records_for_run(run_id, cursor=cursors[run_id])
                    cursors[run_id] = page.cursor
                    on_events(run_id, [record.event_log_entry.dagster_event for record in page.records
                                       if record.event_log_entry.dagster_event is not None])
                if run is not None and run.is_finished:
                    finished[run_id] = run
            if interrupted:
                cancelled = [run_id for run_id in run_ids if run_id not in finished]
                for run_id in cancelled:
                    instance.run_coordinator.cancel_run(run_id)
                raise Interrupted(f"interrupted ({interrupted[0].name}): cancelled {len(cancelled)} submitted "
                                  "run(s): " + ", ".join(cancelled), interrupted[0])
            if len(finished) < len(run_ids):
                time.sleep(POLL_S)
    return finished


@contextmanager
def _interrupts() -> Iterator[list[signal.Signals]]:
    """SIGINT and SIGTERM recorded instead of raised, for the wait loop to act on."""
    caught: list[signal.Signals] = []

    def record(signum, _frame) -> None:
        caught.append(signal.Signals(signum))

    previous = {sig: signal.signal(sig, record) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield caught
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
