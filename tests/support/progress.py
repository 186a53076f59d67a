"""A progress sink for tests (`knowledge_assets.progress`)."""

from __future__ import annotations

from knowledge_assets.progress import StageProgress


class Recorded:
    """A sink that keeps what it heard, as (event, stage, calls done, calls total)."""

    def __init__(self):
        self.events: list[tuple[str, str, int, int]] = []

    def _note(self, event: str, stage: StageProgress) -> None:
        self.events.append((event, stage.stage, stage.calls_done, stage.calls_total))

    def started(self, stage: StageProgress) -> None:
        self._note("started", stage)

    def advanced(self, stage: StageProgress) -> None:
        self._note("advanced", stage)

    def ended(self, stage: StageProgress) -> None:
        self._note("ended", stage)
