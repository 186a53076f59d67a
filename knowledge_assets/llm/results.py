"""What one call comes back as: an answer or a failure record, always with its usage.

A failure is data about the call, never data about the document: the caller records it
(glossary: `extraction_status = escalated`) and moves on, so one bad answer never fails a
document and never becomes an entry.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

from knowledge_assets import branches
from knowledge_assets.contracts import CallUsage
from knowledge_assets.errors import KnowledgeError
from knowledge_assets.llm.requests import BranchName, ExtractionRequest
from knowledge_assets.llm.responses import ExtractionResponse

FailureKind = Literal["invalid", "truncated", "refused", "rejected", "transport"]

ResponseT = TypeVar("ResponseT", bound=ExtractionResponse)


class LLMConfigurationError(KnowledgeError, RuntimeError):
    """No call can succeed (bad key, unknown model, an endpoint that never answered): the run
    stops with a message a user can act on, rather than escalating every item one by one."""


@dataclass
class RunCalls:
    """What every call of one run shares, across its steps and threads: the retries the run may
    still spend, and whether the endpoint has answered it yet. The second tells an endpoint
    that cannot be reached (a configuration error) from a flaky one: once any attempt got an
    HTTP response, a connection that fails later is a failed call, asked again by a re-run."""

    retry_budget: int
    retries_spent: int = 0
    _answered: threading.Event = field(default_factory=threading.Event, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def take_retry(self) -> bool:
        """One retry, if any is left."""
        with self._lock:
            if self.retries_spent >= self.retry_budget:
                return False
            self.retries_spent += 1
            return True

    def record_answer(self) -> None:
        """An attempt got an HTTP response, whatever its status."""
        self._answered.set()

    @property
    def endpoint_has_answered(self) -> bool:
        return self._answered.is_set()


@dataclass(frozen=True)
class CallFailure:
    kind: FailureKind
    message: str


@dataclass(frozen=True)
class CallResult(Generic[ResponseT]):
    request: ExtractionRequest
    answer: ResponseT | CallFailure
    usage: CallUsage
    cache_hit: bool = False

    @property
    def ok(self) -> bool:
        return not isinstance(self.answer, CallFailure)

    @property
    def outcome(self) -> str:
        return self.answer.kind if isinstance(self.answer, CallFailure) else "ok"


def call_usage(
    branch: BranchName,
    *,
    deployment: str,
    tier: str,
    prompt_tokens: int = 0,
    cached_tokens: int = 0,
    completion_tokens: int = 0,
    latency_s: float = 0.0,
    retries: int = 0,
    structured_output_mode: str,
) -> CallUsage:
    # simulated is always False: the offline extractor is a real extractor, not a mock of a
    # model, and a cache replay is a real answer that simply cost nothing this time.
    # The contract's CallUsage names the branch in its own words (the domain context is v2's
    # `summary`): the registry's contract_branch.
    return CallUsage(
        branch=branches.named(branch).contract_branch,
        deployment=deployment,
        tier=tier,
        prompt_tokens=prompt_tokens,
        cached_tokens=cached_tokens,
        completion_tokens=completion_tokens,
        latency_s=latency_s,
        retries=retries,
        structured_output_mode=structured_output_mode,
        simulated=False,
    )
