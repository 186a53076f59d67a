"""The KnowledgeLLM Dagster resource: settings resolved at run time, code versions per branch."""

from __future__ import annotations

from knowledge_assets.defs.llm import KnowledgeLLM, LLMPrice
from knowledge_assets.llm.offline import OfflineBackend
from knowledge_assets.llm.openai_backend import OpenAIBackend
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
