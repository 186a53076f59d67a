"""A step's documents asked of the model together (extract/ahead.py), against a real
OpenAI-compatible server on 127.0.0.1: the documents after the current one are asked while it
waits, each document's result is made from its own answers in its own order, a document whose
planning failed fails in its turn alone, and the offline backend plans nothing ahead. The
run's later stages are asked ahead too: their step takes those answers instead of asking
again, asks its own requests when they differ, and nothing is asked ahead of a re-run's cache
or of an offline backend."""

from __future__ import annotations

from dataclasses import replace

import pytest

from knowledge_assets.extract.ahead import HELD_PLAN_CHARS, AskedAhead, HeldAnswers, Later
from knowledge_assets.extract.stages import StagePlan, StageResult
from knowledge_assets.llm.extractor import CallPool, Extractor
from knowledge_assets.llm.model_settings import resolve_settings
from knowledge_assets.llm.requests import RuleRequest, SourceChunk
from knowledge_assets.llm.results import LLMConfigurationError
from knowledge_assets.store.database import DuckDBStore
from tests.llm.conftest import llm_settings, openai_server  # noqa: F401 — the fixtures this file uses
from tests.support.openai_server import Fault

DOCUMENTS = ["DOC-A", "DOC-B", "DOC-C"]


def _request(doc_id: str, n: int, wording: str = "Jika A, maka B.") -> RuleRequest:
    return RuleRequest(chunks=[SourceChunk(chunk_id=f"{doc_id}::{n:04d}", text=f"{doc_id} {n}: {wording}")])


class Planner:
    """Each document's stage: two requests; its result names the chunks its answers came for.
    Records the order in which documents were planned and finished."""

    def __init__(self, settings, failing: str | None = None, wording: str = "Jika A, maka B.", store=None,
                 text_chars: int = 0):
        self.settings, self.failing, self.wording, self.store = settings, failing, wording, store
        self.text_chars = text_chars
        self.events: list[str] = []

    def __call__(self, doc_id: str):
        self.events.append(f"plan {doc_id}")
        if doc_id == self.failing:
            raise ValueError(f"{doc_id}: its chunks are missing")
        requests = [_request(doc_id, n, self.wording) for n in range(2)]

        def finish(results) -> StageResult:
            self.events.append(f"finish {doc_id}")
            return StageResult(rows=len(results), results=results,
                               figures={"chunks": [r.request.chunks[0].chunk_id for r in results if r.ok]})

        return Extractor.from_settings(self.settings, self.store), StagePlan(requests, finish, self.text_chars)


def _results(planner: Planner, doc_ids, concurrency: int) -> dict[str, StageResult | Exception]:
    found: dict[str, StageResult | Exception] = {}
    with CallPool(concurrency) as pool:
        documents = AskedAhead(doc_ids, planner, pool)
        for doc_id in doc_ids:
            try:
                found[doc_id] = documents.result(doc_id)
            except Exception as error:  # noqa: BLE001 — the document's own failure, checked below
                found[doc_id] = error
    return found


def test_the_documents_after_the_current_one_are_asked_while_it_waits(openai_server, llm_settings):  # noqa: F811
    # Held until six calls are out at once: only the three documents' calls together make six.
    openai_server.hold_until_in_flight(6)
    planner = Planner(replace(llm_settings, max_concurrency=8))

    found = _results(planner, DOCUMENTS, concurrency=8)

    assert openai_server.max_in_flight == 6
    assert planner.events == [*(f"plan {d}" for d in DOCUMENTS), *(f"finish {d}" for d in DOCUMENTS)]
    for doc_id in DOCUMENTS:
        assert found[doc_id].figures["chunks"] == [f"{doc_id}::0000", f"{doc_id}::0001"]


def test_the_pool_bounds_the_calls_of_every_document_together(openai_server, llm_settings):  # noqa: F811
    openai_server.hold_until_in_flight(3)
    found = _results(Planner(replace(llm_settings, max_concurrency=3)), DOCUMENTS, concurrency=3)

    assert openai_server.max_in_flight == 3
    assert all(found[d].figures["chunks"] == [f"{d}::0000", f"{d}::0001"] for d in DOCUMENTS)


def test_a_document_whose_planning_failed_fails_in_its_turn_alone(openai_server, llm_settings):  # noqa: F811
    found = _results(Planner(llm_settings, failing="DOC-B"), DOCUMENTS, concurrency=8)

    assert isinstance(found["DOC-B"], ValueError) and "DOC-B" in str(found["DOC-B"])
    assert found["DOC-A"].figures["chunks"] == ["DOC-A::0000", "DOC-A::0001"]
    assert found["DOC-C"].figures["chunks"] == ["DOC-C::0000", "DOC-C::0001"]


def test_a_configuration_error_of_one_document_stops_its_calls_alone(openai_server, llm_settings):  # noqa: F811
    # One slot: the server meets the calls in the order they were asked (DOC-A's two, DOC-B's
    # two, DOC-C's two), all six out before DOC-A is finished. DOC-B's first is refused as a
    # wrong key would be: DOC-B fails with that error and sends its second call no more; the
    # documents on either side of it, asked on the same pool, are answered.
    openai_server.inject(Fault(), Fault(), Fault(status=401, message="Incorrect API key provided"))
    found = _results(Planner(replace(llm_settings, max_concurrency=1)), DOCUMENTS, concurrency=1)

    assert isinstance(found["DOC-B"], LLMConfigurationError), found["DOC-B"]
    assert found["DOC-A"].figures["chunks"] == ["DOC-A::0000", "DOC-A::0001"]
    assert found["DOC-C"].figures["chunks"] == ["DOC-C::0000", "DOC-C::0001"]
    sent = [r.body["messages"][-1]["content"].split('<chunk id="')[1].split("::")[0] for r in openai_server.requests]
    assert sent == ["DOC-A", "DOC-A", "DOC-B", "DOC-C", "DOC-C"]


@pytest.mark.parametrize("concurrency", [1, 8])
def test_the_offline_backend_plans_each_document_in_its_turn(concurrency, monkeypatch):
    monkeypatch.setenv("KNOWLEDGE_LLM_BACKEND", "offline")
    planner = Planner(resolve_settings())

    found = _results(planner, DOCUMENTS, concurrency=concurrency)

    assert planner.events == [event for d in DOCUMENTS for event in (f"plan {d}", f"finish {d}")]
    assert all(isinstance(found[d], StageResult) for d in DOCUMENTS)


LATER_WORDING = "Apabila C, maka D."


def _first_step(first: Planner, second: Planner, held: HeldAnswers, concurrency: int, doc_ids=DOCUMENTS) -> None:
    """The first stage's step, asking the second's calls ahead."""
    with CallPool(concurrency) as pool:
        documents = AskedAhead(doc_ids, first, pool, stage="first", later=[Later("second", second)], held=held)
        for doc_id in doc_ids:
            documents.result(doc_id)
        documents.ask_the_rest()


def _two_steps(first: Planner, second: Planner, held: HeldAnswers, concurrency: int,
               doc_ids=DOCUMENTS) -> dict[str, StageResult]:
    """The first stage's step, asking the second's calls ahead; then the second's step."""
    _first_step(first, second, held, concurrency, doc_ids)
    with CallPool(concurrency) as pool:
        documents = AskedAhead(doc_ids, second, pool, stage="second", held=held)
        return {doc_id: documents.result(doc_id) for doc_id in doc_ids}


def test_a_later_stage_is_asked_while_this_one_waits_and_its_step_takes_those_answers(openai_server, llm_settings):  # noqa: F811
    # Held until twelve calls are out at once: only both stages' calls together make twelve.
    openai_server.hold_until_in_flight(12)
    settings = replace(llm_settings, max_concurrency=12)
    held = HeldAnswers()

    second = Planner(settings, wording=LATER_WORDING)

    found = _two_steps(Planner(settings), second, held, concurrency=12)

    assert openai_server.max_in_flight == 12
    # Each request was sent once: the second step asked nothing again, and finished the plans
    # made ahead (two calls each, fewer than the slots) without planning again.
    assert len(openai_server.requests) == 12
    assert len(held) == 0
    assert second.events == [*(f"plan {d}" for d in DOCUMENTS), *(f"finish {d}" for d in DOCUMENTS)]
    for doc_id in DOCUMENTS:
        result = found[doc_id]
        assert result.figures["chunks"] == [f"{doc_id}::0000", f"{doc_id}::0001"]
        assert all(LATER_WORDING in r.request.chunks[0].text for r in result.results)
        # The calls' own answers and spend, not replays.
        assert all(not r.cache_hit and r.usage.prompt_tokens > 0 for r in result.results)


LONG = HELD_PLAN_CHARS + 1  # a document whose plan is not held: its step plans it again


def test_a_later_step_whose_requests_differ_from_those_asked_ahead_asks_its_own(openai_server, llm_settings):  # noqa: F811
    settings = replace(llm_settings, max_concurrency=8)
    second = Planner(settings, wording=LATER_WORDING, text_chars=LONG)
    held = HeldAnswers()
    _first_step(Planner(settings), second, held, concurrency=8)
    assert len(openai_server.requests) == 12 and len(held) == 3

    changed = Planner(settings, wording="Bila E, maka F.", text_chars=LONG)
    with CallPool(8) as pool:
        documents = AskedAhead(DOCUMENTS, changed, pool, stage="second", held=held)
        found = {doc_id: documents.result(doc_id) for doc_id in DOCUMENTS}

    assert len(openai_server.requests) == 18
    for doc_id in DOCUMENTS:
        assert all("Bila E, maka F." in r.request.chunks[0].text for r in found[doc_id].results)


def test_nothing_is_asked_ahead_of_an_offline_backend(monkeypatch):
    monkeypatch.setenv("KNOWLEDGE_LLM_BACKEND", "offline")
    second = Planner(resolve_settings(), wording=LATER_WORDING)

    _two_steps(Planner(resolve_settings()), second, HeldAnswers(), concurrency=8)

    # The second stage planned each document once, in its own step, after the one before.
    assert second.events == [event for d in DOCUMENTS for event in (f"plan {d}", f"finish {d}")]


@pytest.mark.parametrize("text_chars", [0, LONG], ids=["short", "long"])
def test_a_re_run_answered_from_the_cache_sends_nothing(text_chars, openai_server, llm_settings, tmp_path):  # noqa: F811
    store = DuckDBStore(tmp_path / "cache.duckdb")
    settings = replace(llm_settings, max_concurrency=8)
    _two_steps(Planner(settings, store=store), Planner(settings, wording=LATER_WORDING, store=store),
               HeldAnswers(), concurrency=8)
    sent = len(openai_server.requests)

    second = Planner(settings, wording=LATER_WORDING, store=store, text_chars=text_chars)
    found = _two_steps(Planner(settings, store=store), second, HeldAnswers(), concurrency=8)

    assert len(openai_server.requests) == sent
    assert all(r.cache_hit for d in DOCUMENTS for r in found[d].results)
    planned = [event for event in second.events if event.startswith("plan")]
    if not text_chars:
        # Short documents' sets are held with their plans: each document is planned once.
        assert planned == [f"plan {d}" for d in DOCUMENTS]
    else:
        # Long documents' sets, wholly from the cache: after two, nothing more is planned ahead,
        # and the third document is planned only in its step.
        assert planned == ["plan DOC-A", "plan DOC-B", *(f"plan {d}" for d in DOCUMENTS)]


def test_a_stage_whose_step_has_begun_is_not_asked_ahead(openai_server, llm_settings):  # noqa: F811
    settings = replace(llm_settings, max_concurrency=8)
    second = Planner(settings, wording=LATER_WORDING)
    held = HeldAnswers()
    held.begun.add("second")

    _first_step(Planner(settings), second, held, concurrency=8)

    assert second.events == [] and len(held) == 0
    assert len(openai_server.requests) == 6


@pytest.mark.parametrize("stopped", [True, False], ids=["stopped", "pool-closed"])
def test_a_step_that_fails_leaves_its_later_steps_whole(stopped, openai_server, llm_settings):  # noqa: F811
    # A slow model: when the first step fails after its first document, the later stage's
    # calls are out or not sent yet (twelve calls, eight slots). Stopped, those not sent are
    # cancelled and those in flight answered; with only the pool closed (a step whose stopping
    # failed too), none is settled. Either way the later step asks what it lacks and gets each
    # document's own answers.
    openai_server.inject(*(Fault.slow(0.3) for _ in range(12)))
    settings = replace(llm_settings, max_concurrency=8)
    second = Planner(settings, wording=LATER_WORDING)
    held = HeldAnswers()
    with CallPool(8) as pool:
        documents = AskedAhead(DOCUMENTS, Planner(settings), pool, stage="first", later=[Later("second", second)],
                               held=held)
        documents.result("DOC-A")
        assert len(held) == 3 and pool.outstanding > 0
        if stopped:
            documents.stop_asking()
            assert pool.outstanding == 0
    with CallPool(8) as pool:
        documents = AskedAhead(DOCUMENTS, second, pool, stage="second", held=held)
        found = {doc_id: documents.result(doc_id) for doc_id in DOCUMENTS}

    for doc_id in DOCUMENTS:
        assert found[doc_id].figures["chunks"] == [f"{doc_id}::0000", f"{doc_id}::0001"]
        assert all(LATER_WORDING in r.request.chunks[0].text for r in found[doc_id].results)
