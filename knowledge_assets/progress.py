"""Progress of a run for a person watching it: which document is at which stage, for how long,
and, in a stage that asks a model, how many of its calls are answered and when the rest should be.

Stage code reports and the command line listens. The wiring wraps each document's work in each
asset in `stage(doc_id, name)`; the LLM extractor says how many calls it will ask
(`calls_planned`) and when each is answered (`call_answered`). These go to the one sink
`reporting` installed in this process — the terminal's, which `knowledge-assets run` installs
when stderr is a terminal — or nowhere: a `dagster dev` run, a test or a piped run reports
nothing and pays nothing. No Dagster here, so stages and the llm layer may call it.

The steps of an in-process run execute one after another, so there is one current stage at a
time; the extractor's worker threads never report, its calling thread does. A run that executes
elsewhere (a shared instance's queue) is reported from its events as they arrive
(`stage_seen`): each stage when its step starts and when it materialises the document.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol, TextIO


@dataclass
class StageProgress:
    """One document's work in one stage, as far as it has gone."""

    doc_id: str
    stage: str
    started: float
    calls_total: int = 0
    calls_done: int = 0
    # Calls asked ahead for the run's later stages (D107), waited on in this stage's time.
    ahead_total: int = 0
    ahead_done: int = 0
    calls_started: float | None = None
    ended: float | None = None
    failed: bool = False

    def elapsed(self, now: float | None = None) -> float:
        end = self.ended if self.ended is not None else now if now is not None else time.monotonic()
        return end - self.started

    def eta(self, now: float | None = None) -> float | None:
        """Seconds until the stage's last call is answered, at the mean wall time per answered
        call so far (calls run at once, so this is wall time, not the time of one call). The
        calls are the stage's own; a stage that only waits on calls asked ahead, those."""
        done = self._counted()[1]
        if not done or self.calls_started is None:
            return None
        spent = (now if now is not None else time.monotonic()) - self.calls_started
        return self.calls_left() * spent / done

    def calls_left(self) -> int:
        total, done = self._counted()
        return max(total - done, 0)

    def _counted(self) -> tuple[int, int]:
        return (self.calls_total, self.calls_done) if self.calls_total else (self.ahead_total, self.ahead_done)


class Sink(Protocol):
    def started(self, progress: StageProgress) -> None: ...

    def advanced(self, progress: StageProgress) -> None: ...

    def ended(self, progress: StageProgress) -> None: ...


_sink: Sink | None = None
_current: StageProgress | None = None
_lock = threading.Lock()


@contextmanager
def reporting(sink: Sink) -> Iterator[None]:
    """Progress of this process goes to `sink` until the block ends."""
    global _sink
    _sink = sink
    try:
        yield
    finally:
        _sink = None


@contextmanager
def stage(doc_id: str, name: str) -> Iterator[None]:
    """The block is `doc_id`'s work in stage `name`; a block that raises ended failed."""
    global _current
    sink = _sink
    if sink is None:
        yield
        return
    current = StageProgress(doc_id, name, time.monotonic())
    _current = current
    sink.started(current)
    try:
        yield
    except BaseException:
        current.failed = True
        raise
    finally:
        _current = None
        current.ended = time.monotonic()
        sink.ended(current)


def stage_seen(doc_id: str, name: str, started: float, ended: float | None, failed: bool = False) -> None:
    """A stage another process ran (a queued run, on whichever machine), as its events say:
    started at `started` (time.monotonic's clock) and, once `ended` is known, ended; nothing
    without a sink. Its calls are not known from here."""
    sink = _sink
    if sink is None:
        return
    seen = StageProgress(doc_id, name, started, ended=ended, failed=failed)
    if ended is None:
        sink.started(seen)
    else:
        sink.ended(seen)


def calls_planned(count: int, ahead: bool = False) -> None:
    """`count` more calls will be asked in the current stage (a truncated answer's halves, too);
    `ahead`: for a later stage, asked meanwhile (D107)."""
    _advance(planned=count, ahead=ahead)


def call_answered(count: int = 1, ahead: bool = False, line: StageProgress | None = None) -> None:
    """`count` calls answered; one asked ahead counts only in the stage it was counted in
    (`line`, `current_line()` when it was asked), while that stage runs."""
    if ahead and line is not _current:
        return
    _advance(answered=count, ahead=ahead)


def current_line() -> StageProgress | None:
    """The stage being reported now, if any: where calls asked now are counted."""
    return _current


def _advance(planned: int = 0, answered: int = 0, ahead: bool = False) -> None:
    current, sink = _current, _sink
    if current is None or sink is None or not (planned or answered):
        return
    with _lock:
        if current.calls_started is None:
            current.calls_started = time.monotonic()
        if ahead:
            current.ahead_total += planned
            current.ahead_done += answered
        else:
            current.calls_total += planned
            current.calls_done += answered
        sink.advanced(current)


class TerminalProgress:
    """A line per document per stage on a terminal: rewritten in place (`\\r`) while the stage
    runs, with its calls answered of planned and an ETA, and left as that document's record of
    the stage, with its time, when it ends. A running line is cut to the terminal's width, so
    the next rewrite covers it whole. Used as a context manager, it also rewrites the running
    line every `refresh_s` seconds, so its elapsed time moves while one long call is out."""

    def __init__(self, stream: TextIO, names: Mapping[str, str], refresh_s: float = 1.0):
        """`names`: each document's file name by doc_id, in the order of the run's documents."""
        self.stream = stream
        self.names = dict(names)
        self.refresh_s = refresh_s
        self._position = {doc_id: n for n, doc_id in enumerate(self.names, 1)}
        self._running: StageProgress | None = None
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._ticker = threading.Thread(target=self._refresh, name="progress", daemon=True)

    def __enter__(self) -> TerminalProgress:
        self._ticker.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stopped.set()
        self._ticker.join()

    def started(self, progress: StageProgress) -> None:
        self._show(progress)

    def advanced(self, progress: StageProgress) -> None:
        self._show(progress)

    def ended(self, progress: StageProgress) -> None:
        with self._lock:
            self._running = None
            self._write(self.line(progress), running=False)

    def _show(self, progress: StageProgress) -> None:
        with self._lock:
            self._running = progress
            self._write(self.line(progress), running=True)

    def _refresh(self) -> None:
        while not self._stopped.wait(self.refresh_s):
            with self._lock:
                if self._running is not None:
                    self._write(self.line(self._running), running=True)

    def line(self, progress: StageProgress, now: float | None = None) -> str:
        """`[n/N] doc_id  stage  figures  file`: the figures before the file name, so a line cut
        to the terminal's width loses the name first."""
        position = self._position.get(progress.doc_id)
        parts = [(f"[{position}/{len(self.names)}] " if position else "") + progress.doc_id, progress.stage]
        ahead = "+" if progress.calls_total else ""
        if progress.ended is None:
            if progress.calls_total:
                parts.append(f"{progress.calls_done}/{progress.calls_total} calls")
            if progress.ahead_total or progress.ahead_done:
                asked = max(progress.ahead_total, progress.ahead_done)
                parts.append(f"{ahead}{progress.ahead_done}/{asked} asked ahead")
            parts.append(f"{progress.elapsed(now):.1f}s")
            if (eta := progress.eta(now)) is not None and progress.calls_left():
                parts.append(f"ETA {eta:.0f}s")
        else:
            if progress.calls_total:
                parts.append(f"{progress.calls_done} call{'' if progress.calls_done == 1 else 's'}")
            if progress.ahead_done:
                parts.append(f"{ahead}{progress.ahead_done} asked ahead")
            parts.append(("FAILED after " if progress.failed else "") + f"{progress.elapsed():.1f}s")
        if name := self.names.get(progress.doc_id):
            parts.append(name)
        return "  ".join(parts)

    def _write(self, line: str, running: bool) -> None:
        if running:
            line = line[:max(shutil.get_terminal_size().columns - 1, 20)]
        # \x1b[K clears what a longer running line left to the right.
        self.stream.write("\r" + line + "\x1b[K" + ("" if running else "\n"))
        self.stream.flush()
