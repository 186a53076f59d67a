"""Backend, model and key resolved from the environment when a run starts."""

from __future__ import annotations

import pytest

from knowledge_assets.llm.model_settings import SettingsError, resolve_settings

FAKE_KEY = "sk-test-SECRET123"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "KNOWLEDGE_LLM_BACKEND", "KNOWLEDGE_LLM_MODEL",
                 "KNOWLEDGE_LLM_CACHE", "KNOWLEDGE_LLM_TIMEOUT_S", "KNOWLEDGE_LLM_RETRY_BUDGET"):
        monkeypatch.delenv(name, raising=False)


def test_no_key_and_no_server_means_the_offline_extractor():
    settings = resolve_settings()
    assert settings.backend == "offline" and settings.deployment == "offline"


def test_a_key_means_openai(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    settings = resolve_settings()
    assert settings.backend == "openai" and settings.deployment == "gpt-5.4-nano" and settings.tier == "nano"


def test_a_base_url_alone_means_openai(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:11434/v1")
    settings = resolve_settings()
    assert settings.backend == "openai" and settings.api_key is None


def test_the_backend_can_be_forced(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("KNOWLEDGE_LLM_BACKEND", "offline")
    assert resolve_settings().backend == "offline"


def test_explicit_values_win_over_the_environment(monkeypatch):
    monkeypatch.setenv("KNOWLEDGE_LLM_MODEL", "from-env")
    assert resolve_settings(backend="openai", model="explicit").model == "explicit"


def test_an_unknown_backend_is_refused(monkeypatch):
    monkeypatch.setenv("KNOWLEDGE_LLM_BACKEND", "anthropic")
    with pytest.raises(SettingsError, match="openai or offline"):
        resolve_settings()


def test_the_cache_switch_reads_the_environment(monkeypatch):
    assert resolve_settings().use_cache is True
    monkeypatch.setenv("KNOWLEDGE_LLM_CACHE", "off")
    assert resolve_settings().use_cache is False


def test_what_a_user_sees_never_holds_the_key_or_url_credentials(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", "https://user:pw@example.openai.azure.com/openai/v1/?token=abc")
    settings = resolve_settings()
    assert settings.describe()["llm_endpoint"] == "https://example.openai.azure.com"
    assert FAKE_KEY not in repr(settings) and "pw" not in str(settings.describe())


def test_the_timeout_and_the_retry_budget_read_the_environment_and_explicit_values_win(monkeypatch):
    assert resolve_settings().timeout_s == 120.0 and resolve_settings().retry_budget == 40
    monkeypatch.setenv("KNOWLEDGE_LLM_TIMEOUT_S", "2.5")
    monkeypatch.setenv("KNOWLEDGE_LLM_RETRY_BUDGET", "7")
    assert resolve_settings().timeout_s == 2.5 and resolve_settings().retry_budget == 7
    assert resolve_settings(timeout_s=9.0).timeout_s == 9.0


def test_a_timeout_that_is_not_a_number_is_refused(monkeypatch):
    monkeypatch.setenv("KNOWLEDGE_LLM_TIMEOUT_S", "soon")
    with pytest.raises(SettingsError, match="KNOWLEDGE_LLM_TIMEOUT_S must be a number"):
        resolve_settings()
