"""A step's documents asked of the model together, their results made one after another.

A step materialises its documents in order, each in one stage (`extract.stages`). Asked one
document at a time, a step waits on every document's slowest call before the next document's
first one goes out, and a document with fewer calls than the model's slots leaves the rest
idle: a folder of small documents ran at a third of the concurrency it was given. Here, while
one document's calls are out, the documents after it are planned (read from the store, their
requests built) and their requests submitted to the same `CallPool`, until enough calls are
out to keep every slot busy (`CALLS_AHEAD` times the pool's size) or `DOCUMENTS_AHEAD`
documents wait. Each document is still finished (guarded, linked, written) in the step's order,
on the calling thread, from its own answers in its own request order: what it writes is what it
wrote alone, and the ids with it.

A document whose planning fails fails when its turn comes, as it would have alone; the others
go on. A backend that answers in this process (offline) waits on nothing: each document is
planned, asked and finished in turn, and no document's plan is held beside another's.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from knowledge_assets.extract.stages import StagePlan, StageResult
from knowledge_assets.llm.extractor import Asking, CallPool, Extractor

# Calls kept out, per slot of the pool: more than one, so the slots stay busy while the
# document being finished waits on its last calls.
CALLS_AHEAD = 3
# Documents planned and not yet finished, at most: each holds its requests and what its stage
# read, until its turn. Of those, documents whose calls are all answered already (a re-run
# answered from the cache) keep no slot busy: at most this many wait.
DOCUMENTS_AHEAD = 32
ANSWERED_AHEAD = 2

Planner = Callable[[str], tuple[Extractor, StagePlan]]


@dataclass
class _Planned:
    extractor: Extractor
    plan: StagePlan
    asking: Asking | None  # None: its backend waits on no model, and it is asked in its turn


class AskedAhead:
    """`result(doc_id)` for each of `doc_ids` in turn, on `pool`; while a document waits on a
    model, the documents after it are planned and asked meanwhile."""

    def __init__(self, doc_ids: Sequence[str], plan: Planner, pool: CallPool):
        self._plan = plan
        self._pool = pool
        self._unplanned = deque(doc_ids)
        self._planned: dict[str, _Planned | Exception] = {}

    def result(self, doc_id: str) -> StageResult:
        while doc_id not in self._planned and self._unplanned:
            self._plan_next()
        planned = self._planned.pop(doc_id)
        if isinstance(planned, Exception):
            raise planned
        if planned.asking is None:
            return planned.plan.run(planned.extractor)
        planned.asking.watch()
        self._top_up()
        self._pool.wait_for(planned.asking)
        return planned.plan.finish(planned.asking.results())

    def _top_up(self) -> None:
        while (self._unplanned and len(self._planned) < DOCUMENTS_AHEAD and self._answered() < ANSWERED_AHEAD
               and self._pool.outstanding < CALLS_AHEAD * self._pool.max_concurrency):
            self._plan_next()

    def _answered(self) -> int:
        """Documents planned ahead whose calls are all answered (from the cache, or none asked):
        they keep no slot busy, and each holds its plan until its turn."""
        return sum(isinstance(p, _Planned) and p.asking is not None and p.asking.done for p in self._planned.values())

    def _plan_next(self) -> None:
        doc_id = self._unplanned.popleft()
        try:
            extractor, plan = self._plan(doc_id)
            waits = extractor.backend.waits_on_a_model
            asking = self._pool.ask(extractor, plan.requests, watched=False) if waits else None
        except Exception as error:  # noqa: BLE001 — raised in the document's turn, by result()
            self._planned[doc_id] = error
            return
        self._planned[doc_id] = _Planned(extractor, plan, asking)
