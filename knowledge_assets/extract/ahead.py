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

The stages after this one (`Later`) are asked ahead too, where the run materialises them later
in this process: their requests read only what the stages before this one wrote (the chunks and
the terms), never this stage's answers. Once this step's own documents are all planned, the next
stages' documents are planned, in the order their steps take them, and their requests asked on
the same pool while slots are free, and held (`HeldAnswers`), `DOCUMENTS_AHEAD` sets at most. A
plan may be made before the stages it depends on have written, because only its finish reads
them, when it runs (`extract.stages`). Before the step ends, the rest are asked, up to that
bound, and every call answered (`ask_the_rest`): no call runs outside a model step, so the `llm`
pool's limit across runs holds. The later step finishes a short document's held plan as its
own; a longer document's it plans again, taking the held set in place of asking only when its
requests are the very same (`CallPool.ask`'s `earlier`). Anything else (a planning error, a
failed set, a set left unanswered by a step that failed: `stop_asking`) is left to that step,
which meets it in its own turn. Nothing is asked for a stage whose step has begun. A step whose
longer documents' sets come wholly from the cache (a re-run) stops asking ahead: its later steps
replay the cache themselves.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from knowledge_assets import progress
from knowledge_assets.extract.stages import StagePlan, StageResult
from knowledge_assets.llm.extractor import Asking, CallPool, Extractor

# Calls kept out, per slot of the pool: more than one, so the slots stay busy while the
# document being finished waits on its last calls.
CALLS_AHEAD = 3
# Documents planned and not yet finished, at most: each holds its requests and what its stage
# read, until its turn; and sets of the later stages held, at most. Of the first, documents whose
# calls are all answered already (a re-run answered from the cache) keep no slot busy: at most
# ANSWERED_AHEAD wait.
DOCUMENTS_AHEAD = 32
ANSWERED_AHEAD = 2
# A plan asked ahead is held whole only for a document of at most this many characters of text
# (about 50 pages): a plan holds the document's chunks and what its stage read, and up to
# DOCUMENTS_AHEAD of them wait for their steps. A longer document's step plans it again.
HELD_PLAN_CHARS = 200_000
# What a terminal names a step's wait, at its end, on the calls it asked for the later stages.
LATER_STAGES = "later_stages"

Planner = Callable[[str], tuple[Extractor, StagePlan]]


@dataclass(frozen=True)
class Later:
    """A stage the run materialises after this one, in this process: its name and its planner."""

    stage: str
    plan: Planner


@dataclass
class _Planned:
    extractor: Extractor
    plan: StagePlan
    asking: Asking | None  # None: its backend waits on no model, and it is asked in its turn


@dataclass(frozen=True)
class _Held:
    asking: Asking
    planned: _Planned | None  # with its plan, for a short document (`HeldAnswers`)


class HeldAnswers:
    """The sets of calls one run asked ahead, by stage and document, until that stage's step
    takes them, and the stages whose step has begun (nothing is asked ahead for those). A short
    document's set is held with its plan, and its step finishes it without planning it again;
    a longer one's alone (HELD_PLAN_CHARS), and its step plans it again and takes the set only
    for the very same requests."""

    def __init__(self) -> None:
        self._held: dict[tuple[str, str], _Held] = {}
        self.begun: set[str] = set()

    def __len__(self) -> int:
        return len(self._held)

    def __contains__(self, key: tuple[str, str]) -> bool:
        return key in self._held

    def hold(self, stage: str, doc_id: str, asking: Asking, planned: _Planned | None = None) -> None:
        self._held[stage, doc_id] = _Held(asking, planned)

    def take(self, stage: str, doc_id: str) -> _Held | None:
        return self._held.pop((stage, doc_id), None)


class AskedAhead:
    """`result(doc_id)` for each of `doc_ids` in turn, on `pool`; while a document waits on a
    model, the documents after it are planned and asked meanwhile."""

    def __init__(self, doc_ids: Sequence[str], plan: Planner, pool: CallPool, *, stage: str = "",
                 later: Sequence[Later] = (), held: HeldAnswers | None = None):
        self._plan = plan
        self._pool = pool
        self._unplanned = deque(doc_ids)
        self._last = doc_ids[-1] if doc_ids else ""
        self._planned: dict[str, _Planned | Exception] = {}
        self._stage = stage
        self._held = held if held is not None else HeldAnswers()
        self._held.begun.add(stage)
        # Each later stage's documents, in the order its step takes them.
        self._later = deque((step, doc_id) for step in later if step.stage not in self._held.begun
                            for doc_id in doc_ids)
        self._waits_on_a_model = False
        self._asked_nothing = 0

    def result(self, doc_id: str) -> StageResult:
        while doc_id not in self._planned and self._unplanned:
            self._plan_next(now=doc_id)
        planned = self._planned.pop(doc_id)
        if isinstance(planned, Exception):
            raise planned
        if planned.asking is None:
            return planned.plan.run(planned.extractor)
        planned.asking.watch()
        self._top_up()
        self._pool.wait_for(planned.asking)
        return planned.plan.finish(planned.asking.results())

    def ask_the_rest(self) -> None:
        """At the step's end: the later stages' calls not asked yet are asked, and every call
        on the pool is answered before the step ends. A terminal shows the wait as a stage of
        its own (`LATER_STAGES`, under the step's last document), its calls asked ahead
        answered of asked and an ETA: the step's time goes on after its documents' lines end."""
        if not self._waits_on_a_model:
            self._later.clear()
        if not self._later and not self._pool.outstanding:
            return
        with progress.stage(self._last, LATER_STAGES):
            self._pool.count_asked_ahead_here()
            while self._later and len(self._held) < DOCUMENTS_AHEAD:
                self._pool.wait_until(self._slots_free)
                self._ask_later()
            self._pool.wait_for_all()

    def stop_asking(self) -> None:
        """When the step fails: nothing more is asked ahead, calls not yet sent are cancelled,
        and those in flight are answered and stored before the step ends."""
        self._later.clear()
        self._pool.cancel_unsent()

    def _slots_free(self) -> bool:
        return self._pool.outstanding < CALLS_AHEAD * self._pool.max_concurrency

    def _top_up(self) -> None:
        while (self._unplanned and len(self._planned) < DOCUMENTS_AHEAD and self._answered() < ANSWERED_AHEAD
               and self._slots_free()):
            self._plan_next()
        while not self._unplanned and self._later and self._slots_free() and len(self._held) < DOCUMENTS_AHEAD:
            self._ask_later()

    def _ask_later(self) -> None:
        later, doc_id = self._later.popleft()
        if (later.stage, doc_id) in self._held:  # asked ahead by an earlier step
            return
        try:
            extractor, plan = later.plan(doc_id)
            asking = self._pool.ask(extractor, plan.requests, watched=False)
        except Exception:  # noqa: BLE001 — its own step plans it again, and fails in that document's turn
            return
        if plan.text_chars <= HELD_PLAN_CHARS:
            self._held.hold(later.stage, doc_id, asking, _Planned(extractor, plan, asking))
        elif asking.planned > 0:
            self._asked_nothing = 0
            self._held.hold(later.stage, doc_id, asking)
        else:
            # Answered wholly from the cache: its step plans it again and replays it as cheaply;
            # after a few in a row the run is a re-run, and nothing more is asked ahead.
            self._asked_nothing += 1
            if self._asked_nothing >= ANSWERED_AHEAD:
                self._later.clear()

    def _answered(self) -> int:
        """Documents planned ahead whose calls are all answered (from the cache, or none asked):
        they keep no slot busy, and each holds its plan until its turn."""
        return sum(isinstance(p, _Planned) and p.asking is not None and p.asking.done for p in self._planned.values())

    def _plan_next(self, now: str | None = None) -> None:
        """Plans and asks the next document; its calls count as the current stage's own when it
        is the document whose turn it is (`now`), as asked ahead otherwise."""
        doc_id = self._unplanned.popleft()
        held = self._held.take(self._stage, doc_id)
        if held is not None and held.planned is not None and held.asking.done and held.asking.error is None:
            self._waits_on_a_model = True
            self._planned[doc_id] = held.planned
            return
        try:
            extractor, plan = self._plan(doc_id)
            self._waits_on_a_model = waits = extractor.backend.waits_on_a_model
            earlier = held.asking if held is not None else None
            asking = (self._pool.ask(extractor, plan.requests, watched=doc_id == now, earlier=earlier)
                      if waits else None)
        except Exception as error:  # noqa: BLE001 — raised in the document's turn, by result()
            self._planned[doc_id] = error
            return
        self._planned[doc_id] = _Planned(extractor, plan, asking)
