"""Processes a test starts in a session of their own (a daemon, Celery workers), stopped whole."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess

STOP_TIMEOUT_S = 30


def stop_group(process: subprocess.Popen) -> None:
    """SIGTERM to the process's whole group, then SIGKILL to whatever is left of it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=STOP_TIMEOUT_S)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
