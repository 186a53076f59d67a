"""The one entry point the extraction assets call: `Extractor.run(requests)`.

Requests run on a bounded thread pool (a 70-call document must not take 70 round trips of
wall time), answers come back in request order, each with its CallUsage. Cached answers are
replayed without a request, marked `cache_hit` with zero tokens. All store access happens on
the calling thread; worker threads only talk to the model.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Protocol, overload

import pydantic

from knowledge_assets.llm.cache import ResponseCache, cache_key
from knowledge_assets.llm.offline import OfflineBackend
from knowledge_assets.llm.openai_backend import OpenAIBackend
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
from knowledge_assets.llm.results import CallResult, LLMConfigurationError, call_usage
from knowledge_assets.llm.settings import LLMSettings
from knowledge_assets.store.database import Store


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
    def from_settings(cls, settings: LLMSettings, store: Store | None = None) -> Extractor:
        backend: Backend = OpenAIBackend(settings) if settings.backend == "openai" else OfflineBackend(settings.tier)
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
        """One result per request, in order. Failed items come back as CallFailure records;
        only LLMConfigurationError (no call could succeed) is raised."""
        keys = self._cache_keys(requests)
        cached = self.cache.lookup([k for k in keys if k]) if self.cache else {}
        results: list[CallResult | None] = [self._replay(r, cached[k]) if k in cached else None
                                            for r, k in zip(requests, keys)]
        pending = [i for i, result in enumerate(results) if result is None]
        if pending:
            self._ask(requests, keys, pending, results)
        return results  # type: ignore[return-value]

    def _cache_keys(self, requests: Sequence[ExtractionRequest]) -> list[str | None]:
        if self.cache is None:
            return [None] * len(requests)
        identities = (self.backend.cache_identity(request) for request in requests)
        return [cache_key(identity) if identity is not None else None for identity in identities]

    def _ask(self, requests, keys, pending: list[int], results: list[CallResult | None]) -> None:
        pool = ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(pending)), thread_name_prefix="llm")
        fatal: list[LLMConfigurationError] = []
        lock = threading.Lock()

        def answer(request: ExtractionRequest) -> CallResult:
            # After a configuration error every further call would fail the same way: a
            # worker picks up no new request once one has seen it, and re-raises that error.
            with lock:
                if fatal:
                    raise fatal[0]
            try:
                return self.backend.answer(request)
            except LLMConfigurationError as exc:
                with lock:
                    fatal.append(exc)
                raise

        try:
            futures = {pool.submit(answer, requests[i]): i for i in pending}
            for future in as_completed(futures):
                index = futures[future]
                result = results[index] = future.result()
                if self.cache and keys[index] and result.ok:
                    self.cache.store_answer(keys[index], requests[index].branch, self.backend.name,
                                            self.backend.deployment, result.answer, result.usage.structured_output_mode)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

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
