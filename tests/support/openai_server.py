"""A real OpenAI-compatible HTTP server on 127.0.0.1, for the tests and the bench.

It speaks `POST /v1/chat/completions`, so the openai SDK's real request, timeout, parsing
and error paths run against it. It answers through a callable (request body → message
content), can be told to misbehave for the next requests (429 with Retry-After, 500, slow
answers, malformed JSON, `finish_reason = "length"`, a connection closed without an answer,
no json_schema support), can cut off every answer to a prompt over a length (a model whose
output limit a long batch always hits), simulates a provider's prompt cache (identical
prefixes of >= 1024 tokens, in 128-token steps, are reported in
`usage.prompt_tokens_details.cached_tokens`), counts requests in flight, and records every
request with its headers.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHARS_PER_TOKEN = 4
CACHE_MIN_TOKENS = 1024
CACHE_STEP_TOKENS = 128

Answer = Callable[[dict], "str | dict | Fault"]


@dataclass(frozen=True)
class Fault:
    """How to misbehave on one request."""

    status: int | None = None
    retry_after: str | None = None
    delay_s: float = 0.0
    content: str | None = None
    finish_reason: str = "stop"
    message: str = "injected fault"
    drop: bool = False

    @classmethod
    def rate_limited(cls, retry_after: float) -> Fault:
        return cls(status=429, retry_after=str(retry_after), message="Rate limit reached")

    @classmethod
    def server_error(cls) -> Fault:
        return cls(status=500, message="The server had an error while processing your request")

    @classmethod
    def slow(cls, delay_s: float) -> Fault:
        return cls(delay_s=delay_s)

    @classmethod
    def malformed_json(cls) -> Fault:
        return cls(content='{"terms": [{"cluster": 1, "term": ')

    @classmethod
    def truncated(cls) -> Fault:
        return cls(finish_reason="length")

    @classmethod
    def dropped(cls) -> Fault:
        """The request is read and the connection closed without a response."""
        return cls(drop=True)


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    headers: dict[str, str]  # names lower-cased
    body: dict[str, Any]


@dataclass
class _State:
    answer: Answer
    latency_s: float
    supports_json_schema: bool
    report_cached_tokens: bool
    truncates_over_chars: int | None
    faults: deque = field(default_factory=deque)
    requests: list[RecordedRequest] = field(default_factory=list)
    seen_prefixes: set[str] = field(default_factory=set)
    in_flight: int = 0
    max_in_flight: int = 0
    hold_until_in_flight: int | None = None
    lock: threading.Condition = field(default_factory=threading.Condition)


class OpenAIServer:
    def __init__(self, answer: Answer, *, latency_s: float = 0.0, supports_json_schema: bool = True,
                 report_cached_tokens: bool = True, truncates_over_chars: int | None = None):
        """`truncates_over_chars`: every answer to a request whose last message is longer
        is cut off (`finish_reason = "length"`), as a model's output limit cuts off the
        answers to a batch too long for it, run after run."""
        self._state = _State(answer, latency_s, supports_json_schema, report_cached_tokens, truncates_over_chars)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self._state))
        self._httpd.daemon_threads = True
        # A short poll keeps shutdown (and so every test's teardown) quick.
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def __enter__(self) -> OpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._state.lock:
            return list(self._state.requests)

    @property
    def max_in_flight(self) -> int:
        return self._state.max_in_flight

    def inject(self, *faults: Fault) -> None:
        """The next requests, one fault each, in order; later requests behave."""
        with self._state.lock:
            self._state.faults.extend(faults)

    def hold_until_in_flight(self, count: int | None) -> None:
        """Hold requests until `count` have been in flight at once (or 1.5 s pass, under the
        2 s client timeout the tests use), so a test sees the client's real concurrency
        instead of racing it. Once that peak is reached nothing is held: the last requests
        of a batch, fewer than `count`, must not wait out the client's own timeout."""
        self._state.hold_until_in_flight = count

    def set_answer(self, answer: Answer) -> None:
        self._state.answer = answer


def _handler(state: _State) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            with state.lock:
                state.requests.append(RecordedRequest(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                fault = state.faults.popleft() if state.faults else Fault()
                state.in_flight += 1
                state.max_in_flight = max(state.max_in_flight, state.in_flight)
                state.lock.notify_all()
                if state.hold_until_in_flight:
                    state.lock.wait_for(lambda: state.max_in_flight >= state.hold_until_in_flight, timeout=1.5)
            try:
                time.sleep(state.latency_s + fault.delay_s)
                self._respond(body, fault)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting: that is the timeout under test
            finally:
                with state.lock:
                    state.in_flight -= 1

        def _respond(self, body: dict, fault: Fault) -> None:
            if self.path.rstrip("/") != "/v1/chat/completions":
                return self._send(404, {"error": {"message": f"no route {self.path}"}})
            if not (fault.drop or fault.status or fault.content is not None):
                answered = state.answer(body)
                if isinstance(answered, Fault):  # the answer callable misbehaves on this request
                    fault = answered
                else:
                    fault = replace(fault, content=answered if isinstance(answered, str) else json.dumps(
                        answered, ensure_ascii=False))
            if fault.drop:
                self.close_connection = True
                return
            if fault.status:
                headers = {"retry-after": fault.retry_after} if fault.retry_after else {}
                return self._send(fault.status, {"error": {"message": fault.message, "type": "injected"}}, headers)
            response_format = body.get("response_format") or {}
            if response_format.get("type") == "json_schema" and not state.supports_json_schema:
                message = "response_format type json_schema is not supported by this server"
                return self._send(400, {"error": {"message": message, "type": "invalid_request_error"}})
            content = fault.content
            finish_reason = "length" if _over(state, body) else fault.finish_reason
            self._send(200, _completion(body, content, finish_reason, _usage(state, body, content)))

        def _send(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


def prompt_text(body: dict) -> str:
    """What the provider sees as the prompt, in order: messages, then the response schema."""
    text = "".join(str(message.get("content", "")) for message in body.get("messages", []))
    return text + json.dumps(body.get("response_format") or {}, sort_keys=True)


def _over(state: _State, body: dict) -> bool:
    limit = state.truncates_over_chars
    return limit is not None and len(str(body["messages"][-1].get("content", ""))) > limit


def _usage(state: _State, body: dict, content: str) -> dict:
    text = prompt_text(body)
    step = CACHE_STEP_TOKENS * CHARS_PER_TOKEN
    lengths = range(CACHE_MIN_TOKENS * CHARS_PER_TOKEN, len(text) + 1, step)
    digests = {n: hashlib.sha256(text[:n].encode()).hexdigest() for n in lengths}
    with state.lock:
        cached_chars = max((n for n, d in digests.items() if d in state.seen_prefixes), default=0)
        state.seen_prefixes.update(digests.values())
    usage = {
        "prompt_tokens": len(text) // CHARS_PER_TOKEN,
        "completion_tokens": len(content) // CHARS_PER_TOKEN,
        "total_tokens": (len(text) + len(content)) // CHARS_PER_TOKEN,
    }
    if state.report_cached_tokens:
        usage["prompt_tokens_details"] = {"cached_tokens": cached_chars // CHARS_PER_TOKEN}
    return usage


def _completion(body: dict, content: str, finish_reason: str, usage: dict) -> dict:
    return {
        "id": "chatcmpl-loopback",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "loopback"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content, "refusal": None},
                     "finish_reason": finish_reason, "logprobs": None}],
        "usage": usage,
    }


def schema_title(body: dict) -> str:
    """Which response model the request asks for, in json_schema and json_object mode alike."""
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        return response_format["json_schema"]["name"]
    system = body["messages"][0]["content"]
    schema = json.loads(system[system.index("JSON Schema:\n") + len("JSON Schema:\n"):])
    return schema["title"]


def term_count(body: dict) -> int:
    return body["messages"][-1]["content"].count("[term ")
