"""The one entry point the extraction assets call: `Extractor.run(requests)`.

Requests run on a bounded thread pool (a 70-call document must not take 70 round trips of
wall time), answers come back in request order, each with its CallUsage. Cached answers are
replayed without a request, marked `cache_hit` with zero tokens. All store access happens on
the calling thread; worker threads only talk to the model. While the model is asked, the
store's session is released (`Store.released`): another run or a review page may use the file,
and each answer stored meanwhile opens it for that write only. A backend that answers in this
process (offline) waits on nothing, so the session stays held.

An answer cut off at the output limit (`finish_reason: length`) is never dropped whole: the
request is asked again as its two halves (terms, or chunks), down to MAX_SPLIT_DEPTH halvings,
so one long batch costs at most a few more calls instead of all its entries. The calling
thread splits it, and a half is looked up in the cache like any request: the cache records
that the truncated request was answered by its halves, so an unchanged re-run replays the
halves and sends nothing.

The calling thread tells `knowledge_assets.progress` how many calls it asks and when each is
answered: a terminal shows a stage's calls done of total and an ETA (nothing when no one listens).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, CancelledError, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from typing import Protocol, overload

import pydantic

from knowledge_assets import progress
from knowledge_assets.llm.halves import MAX_SPLIT_DEPTH, charged_to_halves, is_truncated, split_request
from knowledge_assets.llm.model_settings import LLMSettings
from knowledge_assets.llm.offline import OfflineBackend
from knowledge_assets.llm.requests import (
    DomainContextRequest,
    ExtractionRequest,
    FormulaRequest,
    GlossaryRequest,
    RuleRequest,
)
from knowledge_assets.llm.response_cache import CachedAnswer, ResponseCache, cache_key
from knowledge_assets.llm.responses import (
    RESPONSE_FOR,
    DomainContextResponse,
    FormulaResponse,
    GlossaryResponse,
    RuleResponse,
)
from knowledge_assets.llm.results import CallResult, LLMConfigurationError, RunCalls, call_usage
from knowledge_assets.store.protocol import Store


@dataclass
class _Call:
    """One request of a run (a half at `depth` > 0) and what answered it: its result, or its
    two halves, after the truncated result that made them when it was asked this run."""

    request: ExtractionRequest
    depth: int
    key: str | None
    result: CallResult | None = None
    halves: tuple[_Call, _Call] | None = None

    def let_go(self) -> None:
        """Once answered (or split into its halves), keeps of its request only what the answer is
        joined back by: what a model alone reads is freed as each call is answered, not held
        beside every answer until the stage's last (D106)."""
        self.request = self.request.answered()
        if self.result is not None:
            self.result = replace(self.result, request=self.request)

    def results(self) -> list[CallResult]:
        if self.halves is None:
            assert self.result is not None
            return [self.result]
        answered = [*self.halves[0].results(), *self.halves[1].results()]
        return answered if self.result is None else charged_to_halves(self.result, answered)


class Backend(Protocol):
    name: str
    deployment: str
    tier: str
    # Whether an answer waits on a model outside this process: only then is the store's
    # session released while it is asked (an answer computed in-process holds the file for
    # microseconds, and closing and reopening it would cost more than it frees).
    waits_on_a_model: bool

    def cache_identity(self, request: ExtractionRequest) -> dict | None: ...

    def answer(self, request: ExtractionRequest) -> CallResult: ...


class Extractor:
    def __init__(self, backend: Backend, *, cache: ResponseCache | None = None, max_concurrency: int = 8,
                 store: Store | None = None):
        self.backend = backend
        self.cache = cache
        self.max_concurrency = max_concurrency
        self.store = store if store is not None else cache.store if cache is not None else None

    @classmethod
    def from_settings(cls, settings: LLMSettings, store: Store | None = None,
                      run_calls: RunCalls | None = None) -> Extractor:
        if settings.backend == "openai":
            # The SDK costs a third of a second to import; the offline path never needs it.
            from knowledge_assets.llm.openai_backend import OpenAIBackend

            backend: Backend = OpenAIBackend(settings, run_calls=run_calls)
        else:
            backend = OfflineBackend(settings.tier)
        cache = ResponseCache(store) if store is not None and settings.use_cache else None
        return cls(backend, cache=cache, max_concurrency=settings.max_concurrency, store=store)

    @overload
    def run(self, requests: Iterable[GlossaryRequest]) -> list[CallResult[GlossaryResponse]]: ...
    @overload
    def run(self, requests: Iterable[FormulaRequest]) -> list[CallResult[FormulaResponse]]: ...
    @overload
    def run(self, requests: Iterable[RuleRequest]) -> list[CallResult[RuleResponse]]: ...
    @overload
    def run(self, requests: Iterable[DomainContextRequest]) -> list[CallResult[DomainContextResponse]]: ...
    @overload
    def run(self, requests: Iterable[ExtractionRequest]) -> list[CallResult]: ...

    def run(self, requests: Iterable[ExtractionRequest]) -> list[CallResult]:
        """Results in request order: one per request, or, for a request whose answer was
        truncated, one per half it was asked as (each result names its own request, as kept once
        answered: its `answered()`). Failed items come back as CallFailure records;
        only LLMConfigurationError (no call could succeed) is raised. `requests` is read once."""
        with CallPool(self.max_concurrency, self.store, release=self.backend.waits_on_a_model) as pool:
            asking = pool.ask(self, requests)
            pool.wait_for(asking)
        return asking.results()

    def _call(self, request: ExtractionRequest, depth: int) -> _Call:
        # Keyed with or without a cache: a set asked ahead for a later step is known by its keys.
        identity = self.backend.cache_identity(request)
        return _Call(request, depth, cache_key(identity) if identity is not None else None)

    def _halves(self, call: _Call) -> tuple[_Call, _Call] | None:
        halves = split_request(call.request) if call.depth < MAX_SPLIT_DEPTH else None
        if halves is None:
            return None
        return self._call(halves[0], call.depth + 1), self._call(halves[1], call.depth + 1)

    def _from_cache(self, calls: list[_Call]) -> list[_Call]:
        """Answers the calls the cache holds, a split one by its halves' entries, level by
        level; returns the calls left to ask."""
        to_ask: list[_Call] = []
        while calls:
            keys = [call.key for call in calls if call.key]
            stored = self.cache.lookup(keys) if self.cache is not None and keys else {}
            next_level: list[_Call] = []
            for call in calls:
                found = stored.get(call.key) if call.key else None
                halves = self._halves(call) if found is not None and found.answered_by_halves else None
                if halves is not None:
                    call.halves = halves
                    call.let_go()
                    next_level += halves
                elif found is not None and (replay := self._replay(call.request, found)) is not None:
                    call.result = replay
                    call.let_go()
                else:
                    to_ask.append(call)
            calls = next_level
        return to_ask

    def _settle(self, call: _Call) -> list[_Call]:
        """Stores the call's answer; a truncated one is split, and its halves the cache does
        not hold are returned, to be asked."""
        assert call.result is not None
        halves = self._halves(call) if is_truncated(call.result) else None
        self._store(call, split=halves is not None)
        if halves is None:
            return []
        call.halves = halves
        return self._from_cache(list(halves))

    def _store(self, call: _Call, *, split: bool) -> None:
        result = call.result
        assert result is not None
        if self.cache is None or not call.key or not (split or result.ok):
            return
        where = (call.key, call.request.branch, self.backend.name, self.backend.deployment)
        mode = result.usage.structured_output_mode
        if split:
            self.cache.store_split(*where, mode)
        else:
            self.cache.store_answer(*where, result.answer, mode)  # type: ignore[arg-type]

    def _replay(self, request: ExtractionRequest, stored: CachedAnswer) -> CallResult | None:
        started = time.monotonic()
        try:
            response = RESPONSE_FOR[type(request)].model_validate_json(stored.response_json)
        except pydantic.ValidationError:
            return None  # stored by an older schema: ask again
        usage = call_usage(request.branch, deployment=self.backend.deployment, tier=self.backend.tier,
                           latency_s=time.monotonic() - started, structured_output_mode=stored.structured_output_mode)
        return CallResult(request, response, usage, cache_hit=True)


@dataclass
class Asking:
    """One set of requests (a document's share of a stage) on a `CallPool`: its calls, how
    many are still out, and the error that stopped them, if one did (a configuration error, or
    whatever a backend raised instead of returning a CallFailure)."""

    extractor: Extractor
    calls: list[_Call]
    outstanding: int = 0
    planned: int = 0
    answered: int = 0
    watched: bool = True
    # Where its calls asked ahead are counted (`progress.current_line()` when they were asked).
    line: object | None = None
    error: Exception | None = None
    # The configuration error a worker met, read and written by the workers under the pool's lock.
    fatal: list[LLMConfigurationError] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.outstanding == 0

    def watch(self) -> None:
        """From now on its calls are the current stage's progress: those planned and answered
        so far are reported at once."""
        if not self.watched:
            self.watched = True
            progress.calls_planned(self.planned)
            progress.call_answered(self.answered)

    def results(self) -> list[CallResult]:
        assert self.done, "results() before every call was answered"
        if self.error is not None:
            raise self.error
        return [result for call in self.calls for result in call.results()]


class CallPool:
    """Model calls of several sets of requests in flight together on one bounded pool of
    threads: a step asks for its next documents while the model answers the calls of the
    first ones, so its slots are not idle while one document's last calls come back.

    Each set is asked through its own extractor (its document's retry budget and cache
    entries); answers are stored, and truncated ones split, on the calling thread, in
    `wait_for`. Whatever goes wrong is its own set's: a configuration error one of its calls
    meets stops that set's further calls (as it stopped a document's alone), a failed cache
    write ends that set, and either is raised by that set's `results()`, never by another's."""

    def __init__(self, max_concurrency: int, store: Store | None = None, release: bool = False):
        self.max_concurrency = max_concurrency
        self._store = store if release else None
        self._pool = ThreadPoolExecutor(max_workers=max_concurrency, thread_name_prefix="llm")
        self._asked: dict[Future, tuple[Asking, _Call]] = {}
        self._lock = threading.Lock()

    def __enter__(self) -> CallPool:
        return self

    def __exit__(self, *exc) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    @property
    def outstanding(self) -> int:
        """Calls asked and not yet answered, of every set."""
        return len(self._asked)

    def ask(self, extractor: Extractor, requests: Iterable[ExtractionRequest], *, watched: bool = True,
            earlier: Asking | None = None) -> Asking:
        """Answers what the cache holds and submits the rest; `watched` False counts its calls
        as asked ahead in the current stage's progress, its own only from `Asking.watch`.
        `requests` is read once: given as a generator, no list of them outlives their calls
        (D106). `earlier`, a set an earlier step of the run asked for this document and stage
        (`extract.ahead`), is the answer when it asked exactly these requests and is answered:
        its results are the calls' own, with their spend, not replays from the cache; otherwise
        it is ignored and the requests asked."""
        calls = [extractor._call(request, depth=0) for request in requests]
        keys = [call.key for call in calls]
        if (earlier is not None and earlier.done and earlier.error is None and None not in keys
                and [call.key for call in earlier.calls] == keys):
            if watched:
                earlier.watch()
            return earlier
        asking = Asking(extractor, calls, watched=watched)
        self._submit(asking, extractor._from_cache(calls))
        return asking

    def wait_for(self, asking: Asking) -> None:
        """Settles answers, of any set, until every call of `asking` is answered. Once it has to
        wait on a model, the store's session is released until it returns (`Store.released`):
        answers stored meanwhile open the file for that write only."""
        self.wait_until(lambda: asking.done)

    def wait_until(self, reached: Callable[[], bool]) -> None:
        """Settles answers, as `wait_for` does, until `reached()`: e.g. until fewer calls are
        out, or none."""
        with contextlib.ExitStack() as session:
            released = False
            while not reached():
                if not self._asked:
                    raise RuntimeError("waiting on calls this pool never asked")
                done, _ = wait(self._asked, timeout=0, return_when=FIRST_COMPLETED)
                if not done:
                    if self._store is not None and not released:
                        session.enter_context(self._store.released())
                        released = True
                    done, _ = wait(self._asked, return_when=FIRST_COMPLETED)
                for future in done:
                    self._settle(future)

    def cancel_unsent(self) -> None:
        """Cancels the calls not yet sent (each of their sets fails with the cancellation) and
        settles those in flight: what was paid for is stored in the cache."""
        for future in [future for future in self._asked if future.cancel()]:
            asking, _ = self._asked.pop(future)
            asking.outstanding -= 1
            asking.error = asking.error or CancelledError("cancelled before it was sent")
        self.wait_for_all()

    def count_asked_ahead_here(self) -> None:
        """The calls asked ahead and still out are counted from now in the current stage's
        progress: a step's wait at its end on them (`extract.ahead`)."""
        sets = {id(asking): asking for asking, _ in self._asked.values() if not asking.watched}
        for asking in sets.values():
            asking.line = progress.current_line()
        progress.calls_planned(sum(asking.outstanding for asking in sets.values()), ahead=True)

    def wait_for_all(self) -> None:
        """Settles answers until no call of any set is out."""
        self.wait_until(lambda: not self._asked)

    def _submit(self, asking: Asking, calls: list[_Call]) -> None:
        for call in calls:
            self._asked[self._pool.submit(self._answer, asking, call.request)] = asking, call
            asking.outstanding += 1
            asking.planned += 1
        if calls:
            asking.line = progress.current_line()
            progress.calls_planned(len(calls), ahead=not asking.watched)

    def _answer(self, asking: Asking, request: ExtractionRequest) -> CallResult:
        # After a configuration error every further call of the set would fail the same way: a
        # worker sends none of its requests once one has met it, and raises that error again.
        with self._lock:
            if asking.fatal:
                raise asking.fatal[0]
        try:
            return asking.extractor.backend.answer(request)
        except LLMConfigurationError as exc:
            with self._lock:
                asking.fatal.append(exc)
            raise

    def _settle(self, future: Future) -> None:
        asking, call = self._asked.pop(future)
        asking.outstanding -= 1
        try:
            call.result = future.result()
        except Exception as exc:  # noqa: BLE001 — the set's own failure, raised by its results()
            asking.error = asking.error or exc
            return
        asking.answered += 1
        progress.call_answered(ahead=not asking.watched, line=asking.line)
        try:
            # Stored even after the set failed: a re-run does not pay for the answer again.
            halves = asking.extractor._settle(call)
        except Exception as exc:  # noqa: BLE001 — a failed cache write is its own set's failure
            asking.error = asking.error or exc
            return
        call.let_go()
        if asking.error is None:
            self._submit(asking, halves)
