"""What a stage reports of the entities it writes: how many, its figures, and a preview."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

# The rows of a stage's preview: what the UI shows of a materialisation's rows
# (`defs/assets/extract.py`); a stage builds no more.
PREVIEW_ROWS = 12


class Tally:
    """What a stage reports of the entities it writes, gathered as they pass to the store: how
    many, a sum per figure, and the preview's first rows. Entities drawn one batch at a time are
    never all held, and neither is a preview row of each (D104)."""

    def __init__(self, entities: Iterable, preview: Callable[[object], dict],
                 **figures: Callable[[object], int]):
        self.rows = 0
        self.figures = dict.fromkeys(figures, 0)
        self.preview: list[dict] = []
        self._entities = entities
        self._preview = preview
        self._counts = figures

    def __iter__(self) -> Iterator:
        for entity in self._entities:
            self.rows += 1
            for name, count in self._counts.items():
                self.figures[name] += count(entity)
            if len(self.preview) < PREVIEW_ROWS:
                self.preview.append(self._preview(entity))
            yield entity
