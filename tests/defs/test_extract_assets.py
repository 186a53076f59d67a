"""The model stages' steps in one run (defs/assets/extract.py), against a real OpenAI-compatible
server on 127.0.0.1 and a real temporary Dagster instance: the run's later model steps are
asked while its first one waits, each request is sent once and each answer is recorded with
its own spend, and a run of one stage asks nothing for the stages it does not run."""

from collections import Counter

import dagster as dg
import pytest

from knowledge_assets.defs.jobs import RUNNABLE
from knowledge_assets.run_control.launch import materialize_documents
from tests.extract.test_concurrency_output import samples_against_the_model
from tests.support.openai_server import schema_title

CONCURRENCY = 8


@pytest.fixture
def run_against_the_model(tmp_path, monkeypatch):
    with samples_against_the_model(tmp_path, CONCURRENCY, monkeypatch) as run:
        yield run


def test_the_later_model_steps_are_asked_while_the_first_waits_each_request_once(run_against_the_model):
    store, instance, server, doc_ids = run_against_the_model
    # Each request is held until eight are out at once: no one stage of the two samples asks
    # eight (the glossary asks five), so only the stages' calls asked together reach it.
    server.hold_until_in_flight(CONCURRENCY)

    outcomes = materialize_documents(instance, doc_ids)

    assert all(o.success for o in outcomes.values()), {d: o.error for d, o in outcomes.items()}
    assert server.max_in_flight == CONCURRENCY
    stages = Counter(schema_title(r.body) for r in server.requests)
    assert set(stages) == {"FormulaResponse", "GlossaryResponse", "RuleResponse", "DomainContextResponse"}
    bodies = [r.body["messages"][-1]["content"] for r in server.requests]
    assert len(set(bodies)) == len(bodies), "a request was sent twice"
    # Every call is recorded once, as a call of this run with its tokens, not as a cache replay.
    usage = store.fetch("SELECT cache_hit, prompt_tokens FROM llm_usage")
    assert len(usage) == len(bodies)
    assert [row for row in usage if row["cache_hit"] or not row["prompt_tokens"] > 0] == []


def test_a_run_of_one_stage_asks_nothing_for_the_stages_it_does_not_run(run_against_the_model, monkeypatch):
    store, instance, server, doc_ids = run_against_the_model
    assert all(o.success for o in materialize_documents(instance, doc_ids[:1]).values())
    # Without the cache, the formulas are asked again; nothing else may be.
    monkeypatch.setenv("KNOWLEDGE_LLM_CACHE", "off")
    sent = len(server.requests)

    result = RUNNABLE.resolve_job_def("extract_document").execute_in_process(
        instance=instance, partition_key=doc_ids[0], asset_selection=[dg.AssetKey("formulas")])

    assert result.success
    asked = [schema_title(r.body) for r in server.requests[sent:]]
    assert asked and set(asked) == {"FormulaResponse"}, Counter(asked)
