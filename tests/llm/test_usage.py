"""Usage rows in a real DuckDB file, and the per-asset totals with a cost estimate."""

from __future__ import annotations

from knowledge_assets.llm.requests import RuleRequest, SourceChunk
from knowledge_assets.llm.responses import RuleResponse
from knowledge_assets.llm.results import CallFailure, CallResult, call_usage
from knowledge_assets.llm.usage import Price, price_for, record_usage, usage_totals

REQUEST = RuleRequest(chunks=[SourceChunk(chunk_id="D::0001", text="Jika A maka B.")])


def result(prompt: int, cached: int, completion: int, *, cache_hit: bool = False, failed: bool = False) -> CallResult:
    usage = call_usage("rule", deployment="gpt-5-nano", tier="nano", prompt_tokens=prompt, cached_tokens=cached,
                       completion_tokens=completion, latency_s=1.5, retries=1, structured_output_mode="json_schema")
    answer = CallFailure("invalid", "bad") if failed else RuleResponse(rules=[])
    return CallResult(REQUEST, answer, usage, cache_hit)


RESULTS = [result(2000, 1536, 100), result(2000, 0, 300, failed=True), result(0, 0, 0, cache_hit=True)]


def test_totals_count_calls_requests_and_the_cached_share():
    totals = usage_totals(RESULTS)
    assert totals["llm_calls"] == 3 and totals["llm_requests"] == 2 and totals["llm_cache_hits"] == 1
    assert totals["llm_failed"] == 1 and totals["llm_retries"] == 3
    assert totals["llm_prompt_tokens"] == 4000 and totals["llm_cached_share"] == 0.384
    assert "llm_cost_usd" not in totals


def test_cost_bills_cached_tokens_at_the_cached_rate():
    price = Price(input=1.0, cached_input=0.1, output=10.0)
    totals = usage_totals(RESULTS, price)
    assert totals["llm_cost_usd"] == round((2464 * 1.0 + 1536 * 0.1 + 400 * 10.0) / 1e6, 6)


def test_a_configured_price_wins_and_an_unknown_model_has_none():
    custom = Price(1.0, 0.5, 2.0)
    assert price_for("gpt-5-nano", custom) is custom
    assert price_for("my-vllm-model") is None
    assert price_for("offline").cost(1000, 0, 1000) == 0.0


def test_usage_rows_land_in_the_store(store):
    record_usage(store, RESULTS, doc_id="DOC", run_id="run-1")
    rows = store.fetch("SELECT branch, prompt_tokens, cached_tokens, cache_hit, outcome FROM llm_usage "
                       "ORDER BY prompt_tokens DESC, outcome")
    assert [(r["branch"], r["cache_hit"], r["outcome"]) for r in rows] == [
        ("rule", False, "invalid"), ("rule", False, "ok"), ("rule", True, "ok")]


def test_the_first_failure_is_one_short_line_without_pydantics_help_link():
    message = ("1 validation error for RuleResponse\nrules.0.rule_type\n  Input should be 'interpretation' or"
               " 'calculation' [type=enum, input_value='x', input_type=str]\n"
               "    For further information visit https://errors.pydantic.dev/2.11/v/enum")
    failed = CallResult(REQUEST, CallFailure("invalid", message), RESULTS[1].usage, False)
    cause = usage_totals([failed])["llm_first_failure"]
    assert cause.startswith("invalid: 1 validation error for RuleResponse rules.0.rule_type")
    assert "pydantic.dev" not in cause and "\n" not in cause
