"""The KnowledgeLLM Dagster resource: settings resolved at run time, code versions per branch.

No `from __future__ import annotations` here: Dagster reads the probe asset's annotations."""

import dagster as dg

from knowledge_assets.defs.llm import KnowledgeLLM, LLMPrice
from knowledge_assets.llm.offline import OfflineBackend
from knowledge_assets.llm.openai_backend import OpenAIBackend
from knowledge_assets.llm.requests import RuleRequest, SourceChunk
from knowledge_assets.llm.usage import record_usage, usage_totals
from tests.llm.conftest import FAKE_KEY


def clear(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "KNOWLEDGE_LLM_BACKEND", "KNOWLEDGE_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)


def test_without_a_key_the_resource_builds_the_offline_extractor(monkeypatch, store):
    clear(monkeypatch)
    resource = KnowledgeLLM()
    assert isinstance(resource.extractor(store).backend, OfflineBackend)
    assert resource.metadata() == {"llm_backend": "offline", "llm_deployment": "offline", "llm_tier": "offline"}


def test_the_environment_is_read_when_the_run_starts_not_at_import(monkeypatch, store):
    clear(monkeypatch)
    resource = KnowledgeLLM(max_concurrency=2)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    extractor = resource.extractor(store)
    assert isinstance(extractor.backend, OpenAIBackend) and extractor.max_concurrency == 2
    assert FAKE_KEY not in str(resource.metadata())


def test_code_versions_differ_per_branch_and_follow_the_model(monkeypatch):
    clear(monkeypatch)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    nano, mini = KnowledgeLLM(model="gpt-5-nano"), KnowledgeLLM(model="gpt-5-mini")
    assert nano.code_version("rule") != nano.code_version("formula")
    assert nano.code_version("rule") != mini.code_version("rule")
    assert nano.code_version("rule") == KnowledgeLLM(model="gpt-5-nano").code_version("rule")


def test_a_configured_price_prices_an_unlisted_deployment(monkeypatch):
    clear(monkeypatch)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:8000/v1")
    resource = KnowledgeLLM(model="qwen3-8b", price=LLMPrice(input=0.1, cached_input=0.01, output=0.2))
    assert resource.price_table_entry().output == 0.2
    assert KnowledgeLLM(model="qwen3-8b").price_table_entry() is None


def test_an_asset_materialises_with_the_resource(monkeypatch, store):
    clear(monkeypatch)
    request = RuleRequest(chunks=[SourceChunk(chunk_id="D::0001", text="Jika data kosong, maka gunakan plan.")])

    @dg.asset
    def probe(context: dg.AssetExecutionContext, knowledge_llm: KnowledgeLLM) -> dg.MaterializeResult:
        results = knowledge_llm.extractor(store).run([request])
        record_usage(store, results, doc_id="D", run_id=context.run.run_id)
        return dg.MaterializeResult(metadata={**knowledge_llm.metadata(),
                                              **usage_totals(results, knowledge_llm.price_table_entry())})

    instance = dg.DagsterInstance.ephemeral()  # kept alive: the result reads its events through it
    outcome = dg.materialize([probe], resources={"knowledge_llm": KnowledgeLLM()}, instance=instance)
    metadata = outcome.asset_materializations_for_node("probe")[0].metadata
    assert metadata["llm_backend"].value == "offline" and metadata["llm_calls"].value == 1
    assert metadata["llm_cost_usd"].value == 0.0
    assert store.fetch("SELECT deployment, outcome FROM llm_usage") == [{"deployment": "offline", "outcome": "ok"}]
