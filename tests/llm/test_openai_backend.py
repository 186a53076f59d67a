"""The OpenAI backend against a real loopback server: the SDK's own HTTP, parsing and
timeout paths run; only our retry waits are recorded instead of slept."""

from __future__ import annotations

import time

import pytest

from knowledge_assets.llm.model_settings import resolve_settings
from knowledge_assets.llm.openai_backend import OpenAIBackend
from knowledge_assets.llm.requests import FormulaRequest, GlossaryRequest, SourceChunk, TermBlock
from knowledge_assets.llm.responses import FormulaResponse
from knowledge_assets.llm.results import CallFailure, LLMConfigurationError, RunCalls
from tests.llm.conftest import FAKE_KEY, flaky_attempts, valid_answer
from tests.support.openai_server import Fault, OpenAIServer, prompt_text

CHUNK = SourceChunk(chunk_id="DOC::0003", text="Production = MOHH x Qty x PA x UA x Pty",
                    heading_path=["2.1. Production"])
FORMULA = {
    "name": "Production",
    "formula_latex": "Production = MOHH \\times Qty \\times PA \\times UA \\times Pty",
    "variables": [{"symbol": "MOHH", "meaning": None}, {"symbol": "Qty", "meaning": None}],
    "unit": None,
    "span": "Production = MOHH x Qty x PA x UA x Pty",
    "chunk_id": "DOC::0003",
}


def formula_request() -> FormulaRequest:
    return FormulaRequest(chunks=[CHUNK])


def glossary_request(terms: int = 2) -> GlossaryRequest:
    return GlossaryRequest(clusters=[
        TermBlock(key=f"t_{n}", canonical=f"Term {n}", chunks=[CHUNK]) for n in range(terms)
    ])


def backend_with_recorded_waits(settings):
    waits: list[float] = []
    return OpenAIBackend(settings, sleep=waits.append), waits


def test_structured_output_round_trip(openai_server, llm_settings):
    openai_server.set_answer(lambda body: {"formulas": [FORMULA]})
    result = OpenAIBackend(llm_settings).answer(formula_request())

    assert result.answer == FormulaResponse.model_validate({"formulas": [FORMULA]})
    sent = openai_server.requests[0]
    assert sent.body["response_format"]["type"] == "json_schema"
    assert sent.body["response_format"]["json_schema"]["strict"] is True
    assert sent.headers["authorization"] == f"Bearer {FAKE_KEY}"
    assert result.usage.structured_output_mode == "json_schema"
    assert result.usage.prompt_tokens > 1024 and result.usage.retries == 0
    assert result.usage.deployment == "loopback-nano" and result.usage.simulated is False


def test_document_content_comes_last_inside_the_document_wrapper(openai_server, llm_settings):
    OpenAIBackend(llm_settings).answer(formula_request())
    system, user = openai_server.requests[0].body["messages"]
    assert system["role"] == "system" and CHUNK.text not in system["content"]
    assert (user["content"].index("<document>") < user["content"].index(CHUNK.text)
            < user["content"].index("</document>"))


def test_falls_back_to_json_object_when_the_server_lacks_json_schema(llm_settings, monkeypatch):
    with OpenAIServer(valid_answer, supports_json_schema=False) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        backend = OpenAIBackend(resolve_settings(timeout_s=2.0))
        first = backend.answer(formula_request())
        second = backend.answer(formula_request())

        modes = [r.body["response_format"]["type"] for r in server.requests]
    assert modes == ["json_schema", "json_object", "json_object"]
    assert first.ok and second.ok
    assert first.usage.structured_output_mode == second.usage.structured_output_mode == "json_object"
    assert "JSON Schema" in server.requests[1].body["messages"][0]["content"]


def test_json_object_answers_are_validated_against_the_response_model(llm_settings, monkeypatch):
    with OpenAIServer(lambda body: {"formulas": [{"name": "no span"}]}, supports_json_schema=False) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        result = OpenAIBackend(resolve_settings(timeout_s=2.0)).answer(formula_request())
    assert isinstance(result.answer, CallFailure) and result.answer.kind == "invalid"


def test_rate_limit_waits_exactly_what_retry_after_says(openai_server, llm_settings):
    openai_server.inject(Fault.rate_limited(retry_after=7))
    backend, waits = backend_with_recorded_waits(llm_settings)
    result = backend.answer(formula_request())
    assert result.ok and result.usage.retries == 1
    assert waits == [7.0]
    assert len(openai_server.requests) == 2


def test_server_errors_back_off_exponentially_with_jitter(openai_server, llm_settings):
    openai_server.inject(Fault.server_error(), Fault.server_error())
    backend, waits = backend_with_recorded_waits(llm_settings)
    result = backend.answer(formula_request())
    assert result.ok and result.usage.retries == 2
    assert 0.25 <= waits[0] <= 0.5 and 0.5 <= waits[1] <= 1.0


def test_exhausted_retries_come_back_as_a_failure_record(openai_server, llm_settings):
    openai_server.inject(*[Fault.server_error()] * (llm_settings.max_retries + 1))
    backend, waits = backend_with_recorded_waits(llm_settings)
    result = backend.answer(formula_request())
    assert isinstance(result.answer, CallFailure) and result.answer.kind == "transport"
    assert len(openai_server.requests) == llm_settings.max_retries + 1
    assert result.usage.retries == llm_settings.max_retries == len(waits)


def test_a_timed_out_request_is_sent_again(openai_server, llm_settings):
    openai_server.inject(Fault.slow(1.5))
    backend, waits = backend_with_recorded_waits(resolve_settings(timeout_s=0.3))
    result = backend.answer(formula_request())
    assert result.ok and result.usage.retries == 1 and len(waits) == 1
    assert len(openai_server.requests) == 2


def test_malformed_json_is_asked_once_more(openai_server, llm_settings):
    openai_server.inject(Fault.malformed_json())
    result = OpenAIBackend(llm_settings).answer(formula_request())
    assert result.ok and result.usage.retries == 1
    assert len(openai_server.requests) == 2


def test_an_answer_invalid_twice_is_a_failure_never_data(openai_server, llm_settings):
    openai_server.inject(Fault.malformed_json(), Fault.malformed_json())
    result = OpenAIBackend(llm_settings).answer(formula_request())
    assert isinstance(result.answer, CallFailure) and result.answer.kind == "invalid"
    assert len(openai_server.requests) == 2
    # Tokens spent on both rejected answers are still accounted.
    assert result.usage.prompt_tokens == sum(len(prompt_text(r.body)) // 4 for r in openai_server.requests)


def test_a_truncated_answer_is_a_failure_and_not_asked_again(openai_server, llm_settings):
    openai_server.inject(Fault.truncated())
    result = OpenAIBackend(llm_settings).answer(formula_request())
    assert isinstance(result.answer, CallFailure) and result.answer.kind == "truncated"
    assert len(openai_server.requests) == 1
    assert result.usage.completion_tokens > 0


def test_a_glossary_answer_that_skips_a_term_is_invalid(openai_server, llm_settings):
    def skips_the_second_term(body):
        answer = valid_answer(body)
        answer["terms"] = answer["terms"][:1]
        return answer

    openai_server.set_answer(skips_the_second_term)
    result = OpenAIBackend(llm_settings).answer(glossary_request(terms=2))
    assert isinstance(result.answer, CallFailure) and "expected each of [1, 2]" in result.answer.message
    assert len(openai_server.requests) == 2


def test_glossary_answers_join_back_on_the_cluster_key(openai_server, llm_settings):
    request = glossary_request(terms=3)
    result = OpenAIBackend(llm_settings).answer(request)
    assert sorted(result.answer.by_key(request)) == ["t_0", "t_1", "t_2"]


def test_cached_tokens_are_read_from_the_api(openai_server, llm_settings):
    backend = OpenAIBackend(llm_settings)
    first = backend.answer(formula_request())
    second = backend.answer(FormulaRequest(chunks=[CHUNK.model_copy(update={"text": "Another chunk"})]))
    assert first.usage.cached_tokens == 0
    assert 1024 <= second.usage.cached_tokens < second.usage.prompt_tokens


def test_cached_tokens_are_zero_when_the_server_reports_none(llm_settings, monkeypatch):
    with OpenAIServer(valid_answer, report_cached_tokens=False) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        backend = OpenAIBackend(resolve_settings(timeout_s=2.0))
        results = [backend.answer(formula_request()) for _ in range(2)]
    assert [r.usage.cached_tokens for r in results] == [0, 0]


def test_a_refused_key_stops_the_run_without_showing_the_key(openai_server, llm_settings):
    openai_server.inject(Fault(status=401, message=f"Incorrect API key provided: {FAKE_KEY}"))
    with pytest.raises(LLMConfigurationError) as raised:
        OpenAIBackend(llm_settings).answer(formula_request())
    assert "refused the API key" in str(raised.value)
    assert FAKE_KEY not in str(raised.value) and "[redacted]" in str(raised.value)


def test_a_bad_request_is_a_failure_and_not_retried(openai_server, llm_settings):
    openai_server.inject(Fault(status=400, message="context_length_exceeded"))
    result = OpenAIBackend(llm_settings).answer(formula_request())
    assert isinstance(result.answer, CallFailure) and result.answer.kind == "rejected"
    assert len(openai_server.requests) == 1


def test_a_hanging_server_costs_the_timeout_twice_and_no_more(openai_server, llm_settings):
    openai_server.inject(*[Fault.slow(6.0)] * 5)
    settings = resolve_settings(timeout_s=2.0, max_retries=4)
    backend, waits = backend_with_recorded_waits(settings)
    started = time.monotonic()
    result = backend.answer(formula_request())
    elapsed = time.monotonic() - started
    assert isinstance(result.answer, CallFailure) and result.answer.kind == "transport"
    assert "no answer within the 2s timeout" in result.answer.message
    # One request and one retry of it, not five: a provider that hangs once mostly hangs again.
    assert len(openai_server.requests) == 2 and len(waits) == 1
    assert 4.0 <= elapsed < 6.0


def test_the_timeout_comes_from_the_environment(openai_server, llm_settings, monkeypatch):
    monkeypatch.setenv("KNOWLEDGE_LLM_TIMEOUT_S", "2")
    assert OpenAIBackend(resolve_settings()).settings.timeout_s == 2.0


def test_an_unreachable_endpoint_stops_the_run_naming_it(llm_settings, monkeypatch):
    with OpenAIServer(valid_answer) as gone:
        url = gone.base_url
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    backend, _ = backend_with_recorded_waits(resolve_settings(timeout_s=2.0, max_retries=2))
    with pytest.raises(LLMConfigurationError) as raised:
        backend.answer(formula_request())
    assert "cannot be reached" in str(raised.value) and url.rsplit("/", 1)[0] in str(raised.value)


def test_a_dropped_connection_is_retried(openai_server, llm_settings):
    openai_server.inject(Fault.dropped())
    backend, waits = backend_with_recorded_waits(llm_settings)
    result = backend.answer(formula_request())
    assert result.ok and result.usage.retries == 1 and len(waits) == 1
    assert len(openai_server.requests) == 2


def test_a_call_ending_in_dropped_connections_after_answers_is_a_failed_call(openai_server, llm_settings):
    openai_server.inject(*flaky_attempts())
    backend, waits = backend_with_recorded_waits(resolve_settings(timeout_s=2.0, max_retries=4))
    result = backend.answer(formula_request())
    assert isinstance(result.answer, CallFailure) and result.answer.kind == "transport"
    assert result.answer.message == "gave up after 4 retries: connection failed"
    assert len(openai_server.requests) == 5 and len(waits) == 3  # the invalid answer is re-asked at once


def test_a_connection_failing_after_the_endpoint_answered_another_call_is_a_failed_call(openai_server, llm_settings):
    settings = resolve_settings(timeout_s=2.0, max_retries=2)
    run_calls = RunCalls(settings.retry_budget)
    assert OpenAIBackend(settings, sleep=lambda _: None, run_calls=run_calls).answer(formula_request()).ok
    openai_server.inject(*[Fault.dropped()] * 3)
    # Another step of the same run: its own backend, the run's record of what answered.
    result = OpenAIBackend(settings, sleep=lambda _: None, run_calls=run_calls).answer(formula_request())
    assert isinstance(result.answer, CallFailure) and result.answer.kind == "transport"


def test_an_endpoint_that_never_answers_is_unreachable_even_when_it_accepts_connections(openai_server, llm_settings):
    openai_server.inject(*[Fault.dropped()] * 3)
    backend, _ = backend_with_recorded_waits(resolve_settings(timeout_s=2.0, max_retries=2))
    with pytest.raises(LLMConfigurationError) as raised:
        backend.answer(formula_request())
    assert "cannot be reached (connection failed, 2 retries)" in str(raised.value)


def test_an_unreachable_endpoint_is_a_configuration_error_when_the_retry_budget_is_spent(llm_settings, monkeypatch):
    with OpenAIServer(valid_answer) as gone:
        monkeypatch.setenv("OPENAI_BASE_URL", gone.base_url)
    backend, waits = backend_with_recorded_waits(resolve_settings(timeout_s=2.0, retry_budget=0))
    with pytest.raises(LLMConfigurationError):
        backend.answer(formula_request())
    assert waits == []
