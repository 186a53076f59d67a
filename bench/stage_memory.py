"""Peak RSS stage by stage inside one `knowledge-assets run` (issue 20 item 6): which stage
makes the run's peak. Run by `bench_memory --stages`, as a script (not `-m`), so it runs
whichever checkout's `knowledge_assets` is first on PYTHONPATH:

    python bench/stage_memory.py TABLE.tsv run DOCUMENT

It installs a progress sink (`knowledge_assets.progress`) that, as each document's work in
each asset starts, resets the process's RSS high-water mark (`/proc/self/clear_refs` "5") and,
as it ends, reads it back with the resident size and the wall and CPU seconds: a row per stage, and a row for what ran
between two stages (Dagster's steps, the asset checks, registration before the first stage and
the rest after the last), then writes the rows to TABLE.tsv. Linux only.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from knowledge_assets import command, progress

_STATUS = Path("/proc/self/status")


def _kib(field: str) -> int:
    return int(re.search(rf"^{field}:\s+(\d+) kB", _STATUS.read_text(), re.M).group(1))


def _reset_high_water() -> None:
    Path("/proc/self/clear_refs").write_text("5")


class StageMemory:
    """A progress sink that records each stage's and each gap's peak and resident MiB."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, float, float, float, float, float]] = []
        self._gap = "start"
        self._mark = (time.monotonic(), time.process_time(), _kib("VmRSS"))
        _reset_high_water()

    def _close(self, label: str) -> None:
        started, cpu, rss_before = self._mark
        peak, rss = _kib("VmHWM"), _kib("VmRSS")
        self.rows.append((label, time.monotonic() - started, time.process_time() - cpu,
                          rss_before / 1024, peak / 1024, rss / 1024))
        self._mark = (time.monotonic(), time.process_time(), rss)
        _reset_high_water()

    def started(self, stage: progress.StageProgress) -> None:
        self._close(f"({self._gap} .. {stage.stage})")

    def advanced(self, stage: progress.StageProgress) -> None:
        pass

    def ended(self, stage: progress.StageProgress) -> None:
        self._close(stage.stage)
        self._gap = stage.stage

    def finish(self) -> None:
        self._close(f"({self._gap} .. end)")


def main() -> int:
    table, argv = Path(sys.argv[1]), sys.argv[2:]
    sink = StageMemory()
    try:
        with progress.reporting(sink):
            return command.main(argv)
    finally:
        sink.finish()
        table.write_text("".join("\t".join([label] + [f"{v:.1f}" for v in figures]) + "\n"
                                 for label, *figures in sink.rows))


if __name__ == "__main__":
    sys.exit(main())
