"""Extractor.run: bounded concurrency, order, the response cache in a real DuckDB file, and
the API key kept out of everything that is stored or logged."""

from __future__ import annotations

import gc
import logging
import shutil
from dataclasses import replace

import pydantic
import pytest

from knowledge_assets import progress
from knowledge_assets.llm.extractor import Extractor
from knowledge_assets.llm.halves import split_request
from knowledge_assets.llm.openai_backend import OpenAIBackend
from knowledge_assets.llm.prompts import PROMPTS_DIR, load_prompt
from knowledge_assets.llm.requests import FormulaRequest, RuleRequest, SourceChunk
from knowledge_assets.llm.response_cache import ANSWERED_BY_HALVES, ResponseCache
from knowledge_assets.llm.responses import RESPONSE_FOR
from knowledge_assets.llm.results import CallFailure, LLMConfigurationError
from knowledge_assets.llm.usage import record_usage
from tests.llm.conftest import FAKE_KEY, flaky_attempts, valid_answer
from tests.support.openai_server import Fault, OpenAIServer
from tests.support.progress import Recorded


def chunk(n: int) -> SourceChunk:
    return SourceChunk(chunk_id=f"DOC::{n:04d}", text=f"Chunk number {n}: Jika A, maka B.")


def formula_requests(count: int) -> list[FormulaRequest]:
    return [FormulaRequest(chunks=[chunk(n)]) for n in range(count)]


def rule_requests(count: int) -> list[RuleRequest]:
    return [RuleRequest(chunks=[chunk(n)]) for n in range(count)]


def chunk_ids_sent(server) -> list[str]:
    return [r.body["messages"][-1]["content"].split('<chunk id="')[1].split('"')[0] for r in server.requests]


def test_concurrency_never_exceeds_the_limit(openai_server, llm_settings):
    openai_server.hold_until_in_flight(3)
    settings = replace(llm_settings, max_concurrency=3)
    results = Extractor.from_settings(settings).run(formula_requests(9))
    assert all(r.ok for r in results)
    assert openai_server.max_in_flight == 3


def test_results_come_back_in_request_order(openai_server, llm_settings):
    requests = formula_requests(6)
    results = Extractor.from_settings(llm_settings).run(requests)
    assert [r.request for r in results] == requests


def test_one_failed_item_does_not_fail_the_others(openai_server, llm_settings):
    openai_server.inject(Fault.truncated())
    results = Extractor.from_settings(replace(llm_settings, max_concurrency=1)).run(formula_requests(3))
    assert [r.outcome for r in results] == ["truncated", "ok", "ok"]


def test_a_cache_hit_sends_zero_requests(openai_server, llm_settings, store):
    first = Extractor.from_settings(llm_settings, store).run(formula_requests(4))
    sent = len(openai_server.requests)
    second = Extractor.from_settings(llm_settings, store).run(formula_requests(4))

    assert sent == 4 and len(openai_server.requests) == 4
    assert [r.answer for r in second] == [r.answer for r in first]
    assert all(r.cache_hit for r in second) and not any(r.cache_hit for r in first)
    assert all(r.usage.prompt_tokens == r.usage.cached_tokens == r.usage.completion_tokens == 0 for r in second)


def test_the_bypass_switch_asks_again(openai_server, llm_settings, store):
    Extractor.from_settings(llm_settings, store).run(formula_requests(2))
    Extractor.from_settings(replace(llm_settings, use_cache=False), store).run(formula_requests(2))
    assert len(openai_server.requests) == 4


def test_failures_are_not_cached(openai_server, llm_settings, store):
    openai_server.inject(Fault.truncated())
    first = Extractor.from_settings(llm_settings, store).run(formula_requests(1))
    second = Extractor.from_settings(llm_settings, store).run(formula_requests(1))
    assert first[0].outcome == "truncated"
    assert second[0].ok and not second[0].cache_hit


def test_a_changed_prompt_re_requests_only_its_branch(openai_server, llm_settings, store, tmp_path):
    prompts = tmp_path / "prompts"
    shutil.copytree(PROMPTS_DIR, prompts)

    def extractor() -> Extractor:
        templates = {branch: load_prompt(branch, prompts) for branch in ("formula", "rule")}
        return Extractor(OpenAIBackend(llm_settings, templates), cache=ResponseCache(store))

    requests = [*formula_requests(2), *rule_requests(2)]
    extractor().run(requests)
    rule_prompt = prompts / "rule.txt"
    rule_prompt.write_text(rule_prompt.read_text().replace("You extract rules", "You extract every rule"))
    results = extractor().run(requests)

    assert [r.cache_hit for r in results] == [True, True, False, False]
    resent = openai_server.requests[4:]
    assert len(resent) == 2 and all("You extract every rule" in r.body["messages"][0]["content"] for r in resent)


def test_a_flaky_endpoint_fails_the_call_it_dropped_and_answers_the_others(openai_server, llm_settings):
    openai_server.inject(*flaky_attempts())
    settings = replace(llm_settings, max_concurrency=1, max_retries=4)
    extractor = Extractor(OpenAIBackend(settings, sleep=lambda _: None), max_concurrency=1)
    results = extractor.run(formula_requests(3))
    assert [r.outcome for r in results] == ["transport", "ok", "ok"]
    assert len(openai_server.requests) == 5 + 2


def test_a_configuration_error_stops_the_run(openai_server, llm_settings):
    openai_server.inject(*[Fault(status=401, message="bad key")] * 20)
    with pytest.raises(LLMConfigurationError):
        Extractor.from_settings(replace(llm_settings, max_concurrency=1)).run(formula_requests(5))
    assert len(openai_server.requests) == 1


def test_the_api_key_is_sent_but_never_stored_or_logged(openai_server, llm_settings, store, caplog):
    caplog.set_level(logging.DEBUG)
    openai_server.inject(
        Fault.rate_limited(retry_after=0.01),
        Fault(status=400, message=f"key {FAKE_KEY} rejected"),
        Fault.malformed_json(),
        Fault.malformed_json(),
    )
    extractor = Extractor.from_settings(replace(llm_settings, max_concurrency=1), store)
    results = extractor.run(formula_requests(4))
    record_usage(store, results, doc_id="DOC", run_id="run-1")
    openai_server.inject(Fault(status=401, message=f"Incorrect API key provided: {FAKE_KEY}"))
    with pytest.raises(LLMConfigurationError) as raised:
        extractor.run(formula_requests(5))

    assert {r.headers["authorization"] for r in openai_server.requests} == {f"Bearer {FAKE_KEY}"}
    # One call: 429, then a 400 whose message quotes the key; the next: malformed twice.
    assert [r.outcome for r in results] == ["rejected", "invalid", "ok", "ok"]
    stored = b"".join(path.read_bytes() for path in store.path.parent.iterdir() if path.is_file())
    assert b"loopback-nano" in stored  # the file does hold what was written
    assert FAKE_KEY.encode() not in stored
    assert FAKE_KEY not in caplog.text
    assert FAKE_KEY not in str(raised.value)
    assert FAKE_KEY not in "".join(r.answer.message for r in results if isinstance(r.answer, CallFailure))
    assert FAKE_KEY not in repr(llm_settings) and FAKE_KEY not in str(llm_settings.describe())


def glossary_batch(terms: int):
    from knowledge_assets.llm.requests import GlossaryRequest, TermBlock

    return GlossaryRequest(clusters=[TermBlock(key=f"t_{n}", canonical=f"Term {n}", chunks=[chunk(n)])
                                     for n in range(terms)])


def test_a_truncated_batch_is_asked_again_as_two_halves_and_no_term_is_dropped(openai_server, llm_settings, store):
    openai_server.inject(Fault.truncated())
    request = glossary_batch(16)
    results = Extractor.from_settings(replace(llm_settings, max_concurrency=1), store).run([request])
    assert [len(r.request.clusters) for r in results] == [8, 8] and all(r.ok for r in results)
    assert {c.key for r in results for c in r.request.clusters} == {c.key for c in request.clusters}
    assert [len(r.body["messages"][-1]["content"].split("[term ")) - 1 for r in openai_server.requests] == [16, 8, 8]
    # The truncated call's tokens are charged to the first half, and it counts as a retry.
    assert results[0].usage.retries == 1 and results[0].usage.completion_tokens > results[1].usage.completion_tokens
    record_usage(store, results, doc_id="DOC", run_id="r1")
    assert store.fetch("SELECT count(*) AS n FROM llm_usage WHERE outcome = 'ok'")[0]["n"] == 2


def test_each_call_asked_and_answered_is_reported_to_the_stage_a_split_adding_its_halves(
        openai_server, llm_settings, store):
    openai_server.inject(Fault.truncated())
    heard = Recorded()
    with progress.reporting(heard), progress.stage("DOC", "glossary"):
        Extractor.from_settings(replace(llm_settings, max_concurrency=1), store).run([glossary_batch(16),
                                                                                    glossary_batch(2)])
    assert [(done, total) for event, _, done, total in heard.events if event == "advanced"] == [
        (0, 2), (1, 2), (1, 4), (2, 4), (3, 4), (4, 4)]
    # An unchanged re-run is answered from the cache: nothing is asked, nothing planned.
    heard.events.clear()
    with progress.reporting(heard), progress.stage("DOC", "glossary"):
        Extractor.from_settings(llm_settings, store).run([glossary_batch(16), glossary_batch(2)])
    assert [event for event, *_ in heard.events] == ["started", "ended"]


def test_splitting_stops_at_the_depth_bound_and_what_is_left_is_a_failure(openai_server, llm_settings):
    openai_server.inject(*[Fault.truncated()] * 40)
    results = Extractor.from_settings(replace(llm_settings, max_concurrency=1)).run([glossary_batch(32)])
    # 32 -> 16 -> 8 -> 4 -> 2: four halvings, sixteen batches of two, each still truncated.
    assert [len(r.request.clusters) for r in results] == [2] * 16
    assert all(r.outcome == "truncated" for r in results)
    assert len(openai_server.requests) == 1 + 2 + 4 + 8 + 16


def test_a_truncated_formula_batch_splits_its_chunks_with_their_candidates(openai_server, llm_settings):
    from knowledge_assets.candidates.model import span

    chunks = [chunk(n) for n in range(4)]
    candidates = [span("formula", c.chunk_id, c.text, 0, 5, cue="=") for c in chunks]
    request = FormulaRequest(chunks=chunks, candidates=candidates)
    halves = split_request(request)
    assert [[c.chunk_id for c in half.candidates] for half in halves] == [
        ["DOC::0000", "DOC::0001"], ["DOC::0002", "DOC::0003"]]
    openai_server.inject(Fault.truncated())
    settings = replace(llm_settings, max_concurrency=1)
    results = Extractor.from_settings(settings).run([request])
    # Each half was asked with its own chunks' candidates; answered, it keeps its chunks (D106).
    backend = OpenAIBackend(settings)
    assert [r.body["messages"] for r in openai_server.requests[1:]] == [
        backend.cache_identity(half)["messages"] for half in halves]
    assert [[c.chunk_id for c in r.request.chunks] for r in results] == [
        ["DOC::0000", "DOC::0001"], ["DOC::0002", "DOC::0003"]]
    assert [r.request.candidates for r in results] == [[], []]


def _candidates_alive(marker: str) -> int:
    from knowledge_assets.candidates.model import Candidate

    gc.collect()
    return sum(isinstance(o, Candidate) and o.cue == marker for o in gc.get_objects())


@pytest.mark.parametrize("backend", ["offline", "model", "cache"])
def test_each_answered_request_lets_go_of_its_candidates(openai_server, llm_settings, store, backend):
    # RFC 9002 repeated to 50 MB holds 140 MiB of rule candidates: once a call is answered (or
    # replayed from the cache), nothing a stage holds keeps them beside the answers (D106).
    from knowledge_assets.candidates.model import span

    def requests(marker: str):
        for n in range(6):
            c = chunk(n)
            yield RuleRequest(chunks=[c], candidates=[span("rule", c.chunk_id, c.text, 16, 30, cue=marker)])

    settings = llm_settings if backend != "offline" else replace(llm_settings, backend="offline")
    extractor = Extractor.from_settings(settings, store if backend == "cache" else None)
    if backend == "cache":
        extractor.run(requests("held"))  # answered by the model and stored: the run below replays it
    results = extractor.run(requests("held"))
    assert len(results) == 6 and all(r.ok for r in results)
    assert all(r.cache_hit for r in results) == (backend == "cache")
    assert [r.request.chunks[0].chunk_id for r in results] == [f"DOC::{n:04d}" for n in range(6)]
    assert [r.request.candidates for r in results] == [[]] * 6
    assert _candidates_alive("held") == 0
    # The same requests, held by the caller, are the caller's: they are not changed.
    given = list(requests("given"))
    extractor.run(given)
    assert [len(r.candidates) for r in given] == [1] * 6 and _candidates_alive("given") == 6


@pytest.mark.parametrize("backend", ["offline", "model"])
def test_an_answered_glossary_request_keeps_each_terms_key_and_first_chunk(openai_server, llm_settings, backend):
    # A term's evidence chunks and candidates are what the model reads (D106); its answer is
    # joined back by its key, in the request's order.
    from knowledge_assets.candidates.model import span
    from knowledge_assets.llm.requests import GlossaryRequest, TermBlock

    def requests():
        blocks = []
        for n in range(3):
            chunks = [chunk(10 * n + k) for k in range(3)]
            blocks.append(TermBlock(key=f"t_{n}", canonical=f"Term {n}", chunks=chunks, candidates=[
                span("definition", c.chunk_id, c.text, 0, 5, cue="glossary") for c in chunks]))
        yield GlossaryRequest(clusters=blocks)

    settings = llm_settings if backend == "model" else replace(llm_settings, backend="offline")
    results = Extractor.from_settings(settings).run(requests())
    assert [r.ok for r in results] == [True]
    assert [(b.key, [c.chunk_id for c in b.chunks], b.candidates) for b in results[0].request.clusters] == [
        ("t_0", ["DOC::0000"], []), ("t_1", ["DOC::0010"], []), ("t_2", ["DOC::0020"], [])]
    assert _candidates_alive("glossary") == 0


def test_a_split_call_asked_or_replayed_lets_go_of_its_candidates(openai_server, llm_settings, store):
    # A truncated call is asked again as its halves; a re-run replays the split from the cache.
    # While a stage holds its calls (a step's pool, `extract.ahead`), neither the truncated call
    # nor its halves keep the candidates once answered (D106).
    from knowledge_assets.candidates.model import span
    from knowledge_assets.llm.extractor import CallPool

    def requests():
        chunks = [chunk(n) for n in range(4)]
        yield RuleRequest(chunks=chunks, candidates=[span("rule", c.chunk_id, c.text, 16, 30, cue="split")
                                                     for c in chunks])

    extractor = Extractor.from_settings(replace(llm_settings, max_concurrency=1), store)
    openai_server.inject(Fault.truncated())
    outcomes = []
    for _ in range(2):
        with CallPool(1, store) as pool:
            asking = pool.ask(extractor, requests())
            pool.wait_for(asking)
            results = asking.results()
            assert _candidates_alive("split") == 0  # the calls are still held here
        outcomes.append([(r.ok, r.cache_hit, [c.chunk_id for c in r.request.chunks]) for r in results])
    halves = [["DOC::0000", "DOC::0001"], ["DOC::0002", "DOC::0003"]]
    assert outcomes == [[(True, False, half) for half in halves], [(True, True, half) for half in halves]]
    assert len(openai_server.requests) == 3


def test_the_retry_budget_is_shared_by_every_call_of_a_run(openai_server, llm_settings):
    from knowledge_assets.llm.results import RunCalls

    openai_server.inject(*[Fault.server_error()] * 30)
    budget = RunCalls(3)
    settings = replace(llm_settings, max_concurrency=1, max_retries=4)
    extractor = Extractor(OpenAIBackend(settings, sleep=lambda _: None, run_calls=budget), max_concurrency=1)
    results = extractor.run(formula_requests(4))
    assert all(r.outcome == "transport" for r in results)
    # Without the budget: 4 calls x 5 attempts = 20 requests; with it, 4 first attempts + 3 retries.
    assert len(openai_server.requests) == 7 and budget.retries_spent == 3
    assert "retry budget (3) is spent" in results[-1].answer.message


def cache_rows(store) -> tuple[int, int]:
    row = store.fetch("SELECT count(*) AS rows, count(DISTINCT cache_key) AS keys FROM llm_cache")[0]
    return row["rows"], row["keys"]


def longest_message(settings, requests) -> int:
    backend = OpenAIBackend(settings)
    return max(len(backend.cache_identity(request)["messages"][-1]["content"]) for request in requests)


def test_an_unchanged_re_run_after_a_truncation_sends_nothing(llm_settings, store):
    request = glossary_batch(16)
    quarters = [quarter for half in split_request(request) for quarter in split_request(half)]
    # A model whose output limit cuts off every answer to more than four terms, run after run.
    with OpenAIServer(valid_answer, truncates_over_chars=longest_message(llm_settings, quarters)) as server:
        settings = replace(llm_settings, base_url=server.base_url, max_concurrency=2)
        sent, outcomes = [], []
        for _ in range(3):
            before = len(server.requests)
            results = Extractor.from_settings(settings, store).run([request])
            sent.append(len(server.requests) - before)
            outcomes.append([(len(r.request.clusters), r.ok, r.cache_hit) for r in results])
    # 16 -> 8 + 8 -> four batches of 4, each answered; then all of it from the cache.
    assert sent == [1 + 2 + 4, 0, 0]
    assert outcomes[0] == [(4, True, False)] * 4 and outcomes[1] == outcomes[2] == [(4, True, True)] * 4
    # One row per key: the three requests answered by halves, and the four answers.
    assert cache_rows(store) == (7, 7)


def test_a_re_run_asks_again_only_the_half_that_failed(llm_settings, store):
    request = glossary_batch(8)
    halves = split_request(request)
    with OpenAIServer(valid_answer, truncates_over_chars=longest_message(llm_settings, halves)) as server:
        settings = replace(llm_settings, base_url=server.base_url, max_concurrency=1, max_retries=0)
        server.inject(Fault(), Fault.server_error())
        first = Extractor.from_settings(settings, store).run([request])
        second = Extractor.from_settings(settings, store).run([request])
        resent = server.requests[3:]
    assert [r.outcome for r in first] == ["transport", "ok"]
    assert [(r.ok, r.cache_hit) for r in second] == [(True, False), (True, True)]
    assert len(resent) == 1 and resent[0].body["messages"][-1]["content"].count("[term ") == 4
    assert cache_rows(store) == (3, 3)


def test_no_branch_takes_the_split_record_for_an_answer():
    for response in RESPONSE_FOR.values():
        with pytest.raises(pydantic.ValidationError):
            response.model_validate_json(ANSWERED_BY_HALVES)
