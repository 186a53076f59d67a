"""Processes that want a file one process at a time opens (the DuckDB store) take it in turn.

They queue on a lock file beside it (`<file>.queue`, an advisory `flock`, held only while
waiting for the file, never while using it): only the queue's head tries the file, so a stream
of short readers (review pages polling) cannot keep a writer waiting, each waiter getting the
file after the ones ahead of it. A wait longer than `WAIT_NOTICE_S` says once on stderr what it
waits for and which process holds the file (docs/decisions.md D68). Nothing here knows the
engine: the opener given tries the file and names its holder."""

from __future__ import annotations

import fcntl
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from knowledge_assets.store.protocol import StoreError

# After this long waiting for the file, a command says once what it waits for.
WAIT_NOTICE_S = 2.0

Opened = TypeVar("Opened")


class Wait:
    """One open's wait for the file: its deadline, and the notice it gives once."""

    def __init__(self, path: Path, started: float):
        self.path, self.started, self.noticed = path, started, False

    def check(self, timeout_s: float, holder: str, cause: Exception | None = None) -> None:
        waited = time.monotonic() - self.started
        if waited > timeout_s:
            detail = f" ({cause})" if cause is not None else f" ({holder})"
            raise StoreError(f"{self.path}: cannot open the store{detail}; another process may hold it "
                             f"(waited {waited:.0f}s)")
        if not self.noticed and waited >= WAIT_NOTICE_S:
            self.noticed = True
            print(f"waiting for the store {self.path}, {holder} (waiting up to {timeout_s:.0f}s)",
                  file=sys.stderr, flush=True)


def open_in_turn(path: Path, timeout_s: float, open_file: Callable[[Wait], Opened]) -> Opened:
    """`open_file(wait)`, called after the waiters ahead of this one have had the file; it waits
    out the holder itself, checking `wait` as it does (so one deadline spans both waits)."""
    wait = Wait(path, time.monotonic())
    # Made as DuckDB makes its file: the umask decides who may open it.
    queue = os.open(f"{path}.queue", os.O_RDWR | os.O_CREAT, 0o666)
    try:
        delay = 0.01
        while True:
            try:
                fcntl.flock(queue, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                wait.check(timeout_s, _queue_head(queue))
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 0.05)
        os.ftruncate(queue, 0)
        os.pwrite(queue, str(os.getpid()).encode(), 0)
        return open_file(wait)
    finally:
        os.close(queue)  # releases the queue's lock


def _queue_head(queue: int) -> str:
    """The process ahead in the queue, by the PID it wrote into the queue file."""
    pid = os.pread(queue, 32, 0).decode(errors="replace").strip()
    return f"queued behind PID {pid}, which waits for it too" if pid.isdigit() else "queued behind another waiter"
