"""Runs whose process is gone, failed and their pool slots freed, before a new run waits on them.

A run killed inside a model-calling step (kill -9, a crash, a closed laptop) stays STARTED and
keeps its `llm` pool slots: Dagster frees slots when a run ends, and this one never ends, so
every later run waits on the pool forever. Under `dg dev` the daemon's run monitoring fails such
runs (dagster.yaml); `knowledge-assets run` has no daemon, so before each run it looks itself.

A run is dead when its recorded process (the pid the CLI tags, else the pid of its run-start
event) is not alive on this host, or when it has been STARTED past a bound with no event since
(no heartbeat).

Only the embedded instance needs this: there a `knowledge-assets run` executes in its own
process, where no daemon sees it. On a shared instance every run goes through the queue and the
daemon's run monitoring watches it (run_control/queued.py, docs/decisions.md D85), so this does
nothing there: a pid means nothing on another machine, and failing another machine's live run for
its silence would be worse than waiting for the monitor.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path

import dagster as dg

from knowledge_assets.run_control.queued import is_shared

PID_TAG = "knowledge_assets/pid"
HOST_TAG = "knowledge_assets/host"
# A model-calling step emits an event at least when it starts and ends; an hour without one is
# far past any step seen (a 3,006-page PDF took 178 s end to end).
DEFAULT_SILENCE_BOUND_S = 3600.0
_UNFINISHED = [dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.CANCELING]


@dataclass(frozen=True)
class DeadRun:
    run_id: str
    job_name: str
    partition: str | None
    cause: str


def process_tags() -> dict[str, str]:
    """Tags a run started by this process carries, so a later command can tell it died."""
    return {PID_TAG: str(os.getpid()), HOST_TAG: socket.gethostname()}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    # A killed process its parent has not reaped yet is a zombie: gone, for our purpose.
    return not (stat.is_file() and stat.read_text().rsplit(")", 1)[-1].split()[0] == "Z")


def _recorded_pid(instance: dg.DagsterInstance, run: dg.DagsterRun) -> int | None:
    if run.tags.get(PID_TAG, "").isdigit():
        return int(run.tags[PID_TAG])
    records = instance.get_records_for_run(run.run_id, of_type=dg.DagsterEventType.RUN_START, limit=1).records
    event = records[0].event_log_entry.dagster_event if records else None
    return event.pid if event is not None else None


def _last_event_at(instance: dg.DagsterInstance, run_id: str) -> float | None:
    records = instance.get_records_for_run(run_id, limit=1, ascending=False).records
    return records[0].event_log_entry.timestamp if records else None


def _death_cause(instance: dg.DagsterInstance, run: dg.DagsterRun, silence_bound_s: float) -> str | None:
    on_this_host = run.tags.get(HOST_TAG, socket.gethostname()) == socket.gethostname()
    pid = _recorded_pid(instance, run)
    if on_this_host and pid is not None:
        # A process we can check is its own witness: a long model step that is still running
        # is never failed for its silence.
        return f"its process (pid {pid}) is gone" if pid != os.getpid() and not _alive(pid) else None
    last = _last_event_at(instance, run.run_id)
    if last is not None and time.time() - last > silence_bound_s:
        return f"no event for {time.time() - last:.0f}s (bound {silence_bound_s:.0f}s)"
    return None


def free_dead_runs(instance: dg.DagsterInstance, silence_bound_s: float = DEFAULT_SILENCE_BOUND_S) -> list[DeadRun]:
    """Marks every dead unfinished run failed and frees its concurrency slots; none on a shared
    instance, whose daemon monitors its runs (module docstring)."""
    if is_shared(instance):
        return []
    dead = []
    for run in instance.get_runs(filters=dg.RunsFilter(statuses=_UNFINISHED)):
        cause = _death_cause(instance, run, silence_bound_s)
        if cause is None:
            continue
        instance.report_run_failed(run, f"marked failed by knowledge-assets: {cause}")
        instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
        dead.append(DeadRun(run.run_id, run.job_name, run.tags.get("dagster/partition"), cause))
    return dead
