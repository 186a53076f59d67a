"""The OpenAI-compatible backend: one chat completion per request, structured outputs from
the response models (`json_schema`, strict) with a `json_object` fallback for servers that
lack them, and our own retries.

Retries are ours, not the SDK's (the client is built with `max_retries=0`): one loop and one
budget then cover transport faults and the single re-ask after an invalid answer, the count
lands exactly in `CallUsage.retries` (the SDK exposes its count only on a success), tokens
spent on a failed attempt are still accounted, and the wait is injectable so tests check
Retry-After without sleeping. The policy matches the SDK's: 408/409/429/5xx, timeouts and
connection errors are retried with exponential back-off and jitter; Retry-After wins.

Three bounds keep a failing provider from stalling or amplifying a run: each request times
out after `timeout_s` (KNOWLEDGE_LLM_TIMEOUT_S, --llm-timeout) and a timed-out request is sent
again once only (a provider that hangs once mostly hangs again); every retry of a run draws on
one shared budget (`RunCalls`, KNOWLEDGE_LLM_RETRY_BUDGET), past which a failing call fails
at once; an endpoint that has not answered one attempt of the run when a call's retries end
in a connection error cannot be reached: a configuration error, which stops the run with one
line instead of failing every call in turn. Once it has answered (any HTTP status), a
connection that fails later is the provider's fault of the moment: a failed call
(`transport`), which a re-run asks again. A truncated answer is returned as a `truncated`
failure, which the Extractor re-asks as two halves.

The API key goes to the SDK client and nowhere else. Error messages are rebuilt from the
status code and the server's error text with the key redacted, never from headers.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import openai
import pydantic
from openai import OpenAI

from knowledge_assets.llm.model_settings import LLMSettings
from knowledge_assets.llm.prompts import PLACEHOLDERS, PromptTemplate, load_prompt, placeholder_values
from knowledge_assets.llm.requests import BranchName, ExtractionRequest
from knowledge_assets.llm.responses import RESPONSE_FOR
from knowledge_assets.llm.results import CallFailure, CallResult, LLMConfigurationError, RunCalls, call_usage

log = logging.getLogger(__name__)

BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 8.0
MAX_RETRY_AFTER_S = 60.0
MAX_OUTPUT_TOKENS = 8192
_RETRYABLE_STATUS = frozenset({408, 409, 429})
MAX_TIMEOUT_RETRIES = 1
_FATAL_STATUS = {
    401: "the server refused the API key",
    403: "the API key may not use this model",
    404: "the model or endpoint does not exist",
}


class _Retryable(Exception):
    def __init__(self, message: str, retry_after: float | None = None, kind: str = "status"):
        super().__init__(message)
        self.retry_after = retry_after
        self.kind = kind  # status | timeout | connection


class _Invalid(Exception):
    pass


class _SchemaUnsupported(Exception):
    pass


class _Final(Exception):
    """Asking again would not help: truncated, refused, or rejected as a bad request."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


@dataclass
class _Spent:
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0

    def add(self, usage: dict | None) -> None:
        usage = usage or {}
        self.prompt_tokens += usage.get("prompt_tokens") or 0
        self.completion_tokens += usage.get("completion_tokens") or 0
        # Read from the API, never estimated: caching engages only above 1024 prompt tokens.
        self.cached_tokens += (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0


class OpenAIBackend:
    name = "openai"
    waits_on_a_model = True

    def __init__(self, settings: LLMSettings, prompts: dict[BranchName, PromptTemplate] | None = None,
                 sleep: Callable[[float], None] = time.sleep, run_calls: RunCalls | None = None):
        self.settings = settings
        # Shared by every call of the run when the caller passes the run's.
        self.run_calls = run_calls or RunCalls(settings.retry_budget)
        # Loaded once, up front: a missing or malformed prompt file fails before any request,
        # and worker threads only ever read this dict.
        self._prompts = prompts if prompts is not None else {branch: load_prompt(branch) for branch in PLACEHOLDERS}
        self._sleep = sleep
        self._mode = "json_object" if settings.structured_output == "json_object" else "json_schema"
        self._mode_lock = threading.Lock()
        # A local server needs no key, but the SDK insists on one; the placeholder is not a secret.
        self._client = OpenAI(api_key=settings.api_key or "unused", base_url=settings.base_url,
                              timeout=settings.timeout_s, max_retries=0)

    @property
    def deployment(self) -> str:
        return self.settings.model

    @property
    def tier(self) -> str:
        return self.settings.tier

    def prompt(self, branch: BranchName) -> PromptTemplate:
        return self._prompts[branch]

    def cache_identity(self, request: ExtractionRequest) -> dict:
        """The full request body that decides the answer: model, both messages, the schema."""
        schema = RESPONSE_FOR[type(request)].model_json_schema()
        messages = self.prompt(request.branch).messages(placeholder_values(request))
        return {"backend": self.name, "model": self.settings.model, "messages": messages, "schema": schema}

    def answer(self, request: ExtractionRequest) -> CallResult:
        started = time.monotonic()
        spent, retries, invalid, timeouts = _Spent(), 0, 0, 0
        failure: CallFailure | None = None
        response = None
        while response is None and failure is None:
            mode = self._mode
            try:
                response = self._attempt(request, mode, spent)
            except _SchemaUnsupported:
                self._fall_back_to_json_object()
                retries += 1
            except _Invalid as exc:
                invalid += 1
                if invalid >= 2:
                    failure = CallFailure("invalid", f"answer failed validation twice: {exc}")
                elif not self.run_calls.take_retry():
                    failure = CallFailure("invalid", f"{exc}; {self._budget_spent()}")
                else:
                    retries += 1
            except _Retryable as exc:
                timeouts += exc.kind == "timeout"
                exhausted = retries >= self.settings.max_retries or timeouts > MAX_TIMEOUT_RETRIES
                if not exhausted and self.run_calls.take_retry():
                    self._wait(request.branch, exc, retries)
                    retries += 1
                    continue
                if exc.kind == "connection" and not self.run_calls.endpoint_has_answered:
                    raise LLMConfigurationError(
                        f"the model endpoint {_endpoint(self.settings)} cannot be reached "
                        f"({exc}, {retries} retries)") from None
                failure = CallFailure("transport", f"gave up after {retries} retries: {exc}" if exhausted
                                      else f"{exc}; {self._budget_spent()}")
            except _Final as exc:
                failure = CallFailure(exc.kind, str(exc))
        usage = call_usage(
            request.branch, deployment=self.deployment, tier=self.tier,
            prompt_tokens=spent.prompt_tokens, cached_tokens=spent.cached_tokens,
            completion_tokens=spent.completion_tokens, latency_s=time.monotonic() - started,
            retries=retries, structured_output_mode=mode,
        )
        if failure is not None:
            log.warning("%s call failed (%s): %s", request.branch, failure.kind, failure.message)
        return CallResult(request, response if failure is None else failure, usage)

    def _attempt(self, request: ExtractionRequest, mode: str, spent: _Spent):
        response_type = RESPONSE_FOR[type(request)]
        template = self.prompt(request.branch)
        values = placeholder_values(request)
        completions = self._client.chat.completions.with_raw_response
        extra = {"prompt_cache_key": f"knowledge-assets-{request.branch}"} if not self.settings.base_url else {}
        try:
            if mode == "json_schema":
                raw = completions.parse(model=self.settings.model, messages=template.messages(values),
                                        response_format=response_type, max_completion_tokens=MAX_OUTPUT_TOKENS, **extra)
            else:
                raw = completions.create(model=self.settings.model, response_format={"type": "json_object"},
                                         messages=template.messages(values, response_type.model_json_schema()),
                                         max_completion_tokens=MAX_OUTPUT_TOKENS, **extra)
        except openai.APIStatusError as exc:
            self.run_calls.record_answer()
            raise self._classify(exc, mode) from None
        except openai.APITimeoutError:
            raise _Retryable(f"no answer within the {self.settings.timeout_s:g}s timeout", kind="timeout") from None
        except openai.APIConnectionError:
            raise _Retryable("connection failed", kind="connection") from None
        self.run_calls.record_answer()
        try:
            body = raw.http_response.json()
        except ValueError:
            raise _Invalid("the response body is not JSON") from None
        spent.add(body.get("usage"))
        return _read_answer(raw, mode, response_type, request)

    def _classify(self, exc: openai.APIStatusError, mode: str) -> Exception:
        status = exc.status_code
        message = f"HTTP {status}: {self._server_message(exc)}"
        if status in _RETRYABLE_STATUS or status >= 500:
            return _Retryable(message, _retry_after(exc.response.headers))
        if status in _FATAL_STATUS:
            return LLMConfigurationError(f"{_FATAL_STATUS[status]} ({message})")
        if (mode == "json_schema" and self.settings.structured_output == "auto" and status in (400, 422)
                and any(word in message.lower() for word in ("response_format", "json_schema", "structured"))):
            return _SchemaUnsupported(message)
        return _Final("rejected", message)

    def _server_message(self, exc: openai.APIStatusError) -> str:
        body = exc.body if isinstance(exc.body, dict) else {}
        error = body.get("error", body)
        text = str(error.get("message") if isinstance(error, dict) and error.get("message") else type(exc).__name__)
        if self.settings.api_key:
            text = text.replace(self.settings.api_key, "[redacted]")
        return text[:300]

    def _budget_spent(self) -> str:
        return f"not retried: the run's retry budget ({self.run_calls.retry_budget}) is spent"

    def _fall_back_to_json_object(self) -> None:
        with self._mode_lock:
            if self._mode != "json_object":
                log.warning("the server does not take json_schema response formats; using json_object with validation")
                self._mode = "json_object"

    def _wait(self, branch: str, exc: _Retryable, retries: int) -> None:
        if exc.retry_after is not None:
            delay = min(exc.retry_after, MAX_RETRY_AFTER_S)
        else:
            delay = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2**retries) * random.uniform(0.5, 1.0)
        log.info("%s call: %s; retry %d of %d in %.2fs", branch, exc, retries + 1, self.settings.max_retries, delay)
        self._sleep(delay)


def _read_answer(raw, mode: str, response_type: type[pydantic.BaseModel], request: ExtractionRequest):
    try:
        completion = raw.parse()
    except openai.LengthFinishReasonError:
        raise _Final("truncated", "the answer hit the output token limit (finish_reason=length)") from None
    except openai.ContentFilterFinishReasonError:
        raise _Final("refused", "the content filter stopped the answer") from None
    except (pydantic.ValidationError, ValueError, openai.APIResponseValidationError) as exc:
        raise _Invalid(_short(exc)) from None
    choice = completion.choices[0]
    if choice.finish_reason == "length":
        raise _Final("truncated", "the answer hit the output token limit (finish_reason=length)")
    if choice.message.refusal:
        raise _Final("refused", f"the model refused: {choice.message.refusal[:200]}")
    try:
        answer = (choice.message.parsed if mode == "json_schema"
                  else response_type.model_validate_json(choice.message.content or ""))
    except pydantic.ValidationError as exc:
        raise _Invalid(_short(exc)) from None
    if answer is None:
        raise _Invalid("the answer is empty")
    if problem := answer.problem(request):
        raise _Invalid(problem)
    return answer


def _endpoint(settings: LLMSettings) -> str:
    return settings.describe().get("llm_endpoint", "api.openai.com")


def _short(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]


def _retry_after(headers) -> float | None:
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            value = float(headers.get(name, ""))
        except ValueError:
            continue
        if value >= 0:
            return value * scale
    return None

