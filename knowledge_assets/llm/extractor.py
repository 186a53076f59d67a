"""The one entry point the extraction assets call: `Extractor.run(requests)`.

Requests run on a bounded thread pool (a 70-call document must not take 70 round trips of
wall time), answers come back in request order, each with its CallUsage. Cached answers are
replayed without a request, marked `cache_hit` with zero tokens. All store access happens on
the calling thread; worker threads only talk to the model.

An answer cut off at the output limit (`finish_reason: length`) is never dropped whole: the
request is asked again as its two halves (terms, or chunks), down to MAX_SPLIT_DEPTH halvings,
so one long batch costs at most a few more calls instead of all its entries.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace
from typing import Protocol, overload

import pydantic

from knowledge_assets.llm.cache import ResponseCache, cache_key
from knowledge_assets.llm.offline import OfflineBackend
from knowledge_assets.llm.requests import (
    DomainContextRequest,
    ExtractionRequest,
    FormulaRequest,
    GlossaryRequest,
    RuleRequest,
)
from knowledge_assets.llm.responses import (
    RESPONSE_FOR,
    DomainContextResponse,
    FormulaResponse,
    GlossaryResponse,
    RuleResponse,
)
from knowledge_assets.llm.results import CallFailure, CallResult, LLMConfigurationError, RunCalls, call_usage
from knowledge_assets.llm.settings import LLMSettings
from knowledge_assets.store.database import Store

# A batch of 32 terms halves to 16, 8, 4, then 2: past that, a truncation is not the batch's size.
MAX_SPLIT_DEPTH = 4


def split_request(request: ExtractionRequest) -> tuple[ExtractionRequest, ExtractionRequest] | None:
    """The request as two halves of its terms (glossary) or chunks (formulas, rules), each with
    the candidates of its own chunks; None when it cannot be halved (one item, or the domain
    context, which is one answer about the whole document)."""
    if isinstance(request, GlossaryRequest):
        items = request.clusters
        if len(items) < 2:
            return None
        middle = len(items) // 2
        return GlossaryRequest(clusters=items[:middle]), GlossaryRequest(clusters=items[middle:])
    if isinstance(request, (FormulaRequest, RuleRequest)) and len(request.chunks) >= 2:
        middle = len(request.chunks) // 2
        halves = request.chunks[:middle], request.chunks[middle:]
        return tuple(  # type: ignore[return-value]
            type(request)(chunks=half, candidates=[c for c in request.candidates
                                                   if c.chunk_id in {chunk.chunk_id for chunk in half}])
            for half in halves
        )
    return None


def _truncated(result: CallResult) -> bool:
    return isinstance(result.answer, CallFailure) and result.answer.kind == "truncated"


def _charged(truncated: CallResult, halves: list[CallResult]) -> list[CallResult]:
    """The halves' results, the first carrying the truncated call's spend and one more retry:
    the tokens are accounted, and the truncated call, answered by its halves, is not counted
    as a failed call."""
    spent, first = truncated.usage, halves[0].usage
    usage = first.model_copy(update={
        "prompt_tokens": first.prompt_tokens + spent.prompt_tokens,
        "cached_tokens": first.cached_tokens + spent.cached_tokens,
        "completion_tokens": first.completion_tokens + spent.completion_tokens,
        "latency_s": first.latency_s + spent.latency_s,
        "retries": first.retries + spent.retries + 1,
    })
    return [replace(halves[0], usage=usage), *halves[1:]]


class Backend(Protocol):
    name: str
    deployment: str
    tier: str

    def cache_identity(self, request: ExtractionRequest) -> dict | None: ...

    def answer(self, request: ExtractionRequest) -> CallResult: ...


class Extractor:
    def __init__(self, backend: Backend, *, cache: ResponseCache | None = None, max_concurrency: int = 8):
        self.backend = backend
        self.cache = cache
        self.max_concurrency = max_concurrency

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
        return cls(backend, cache=cache, max_concurrency=settings.max_concurrency)

    @overload
    def run(self, requests: Sequence[GlossaryRequest]) -> list[CallResult[GlossaryResponse]]: ...
    @overload
    def run(self, requests: Sequence[FormulaRequest]) -> list[CallResult[FormulaResponse]]: ...
    @overload
    def run(self, requests: Sequence[RuleRequest]) -> list[CallResult[RuleResponse]]: ...
    @overload
    def run(self, requests: Sequence[DomainContextRequest]) -> list[CallResult[DomainContextResponse]]: ...
    @overload
    def run(self, requests: Sequence[ExtractionRequest]) -> list[CallResult]: ...

    def run(self, requests: Sequence[ExtractionRequest]) -> list[CallResult]:
        """Results in request order: one per request, or, for a request whose answer was
        truncated, one per half it was asked as (each result names its own request). Failed
        items come back as CallFailure records; only LLMConfigurationError (no call could
        succeed) is raised."""
        keys = self._cache_keys(requests)
        cached = self.cache.lookup([k for k in keys if k]) if self.cache else {}
        replays = [self._replay(r, cached[k]) if k in cached else None for r, k in zip(requests, keys)]
        results: list[list[CallResult] | None] = [[replay] if replay else None for replay in replays]
        pending = [i for i, result in enumerate(results) if result is None]
        if pending:
            self._ask(requests, pending, results)
        return [result for group in results for result in group]  # type: ignore[union-attr]

    def _cache_keys(self, requests: Sequence[ExtractionRequest]) -> list[str | None]:
        if self.cache is None:
            return [None] * len(requests)
        identities = (self.backend.cache_identity(request) for request in requests)
        return [cache_key(identity) if identity is not None else None for identity in identities]

    def _ask(self, requests, pending: list[int], results: list[list[CallResult] | None]) -> None:
        pool = ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(pending)), thread_name_prefix="llm")
        fatal: list[LLMConfigurationError] = []
        lock = threading.Lock()

        def answer(request: ExtractionRequest, depth: int = 0) -> list[CallResult]:
            # After a configuration error every further call would fail the same way: a
            # worker picks up no new request once one has seen it, and re-raises that error.
            with lock:
                if fatal:
                    raise fatal[0]
            try:
                result = self.backend.answer(request)
            except LLMConfigurationError as exc:
                with lock:
                    fatal.append(exc)
                raise
            halves = split_request(request) if _truncated(result) and depth < MAX_SPLIT_DEPTH else None
            if halves is None:
                return [result]
            return _charged(result, [*answer(halves[0], depth + 1), *answer(halves[1], depth + 1)])

        try:
            futures = {pool.submit(answer, requests[i]): i for i in pending}
            for future in as_completed(futures):
                group = results[futures[future]] = future.result()
                self._store(group)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _store(self, results: Sequence[CallResult]) -> None:
        if self.cache is None:
            return
        for result, key in zip(results, self._cache_keys([r.request for r in results])):
            if key and result.ok:
                self.cache.store_answer(key, result.request.branch, self.backend.name, self.backend.deployment,
                                        result.answer, result.usage.structured_output_mode)

    def _replay(self, request: ExtractionRequest, stored: tuple[str, str]) -> CallResult | None:
        started = time.monotonic()
        response_json, mode = stored
        try:
            response = RESPONSE_FOR[type(request)].model_validate_json(response_json)
        except pydantic.ValidationError:
            return None  # stored by an older schema: ask again
        usage = call_usage(request.branch, deployment=self.backend.deployment, tier=self.backend.tier,
                           latency_s=time.monotonic() - started, structured_output_mode=mode)
        return CallResult(request, response, usage, cache_hit=True)
