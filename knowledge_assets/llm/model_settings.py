"""Which backend and model a run talks to, resolved from explicit values and the environment
when a run starts, never at import time.

    KNOWLEDGE_LLM_BACKEND  openai | offline   forces the backend
    OPENAI_API_KEY                             the key (never logged, stored or shown)
    OPENAI_BASE_URL                            any OpenAI-compatible server: Azure, vLLM, Ollama
    KNOWLEDGE_LLM_MODEL                        model or deployment name
    KNOWLEDGE_LLM_CACHE    on | off            off bypasses the response cache
    KNOWLEDGE_LLM_TIMEOUT_S  seconds           one request's timeout (default 120; CLI --llm-timeout)
    KNOWLEDGE_LLM_RETRY_BUDGET  count          retries one run may spend in all (default 40)
    KNOWLEDGE_LLM_CONCURRENCY  count           model calls in flight at once (default 8)

Without a forced backend, `openai` is chosen when a key or a base URL is known, else the
embedded `offline` extractor, so a user with no key and no network still gets output.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from knowledge_assets.errors import KnowledgeError

BackendName = Literal["openai", "offline"]
StructuredOutputMode = Literal["auto", "json_schema", "json_object"]

DEFAULT_MODEL = "gpt-5.4-nano"
# The defaults of a run's model calls, written here once: the settings, resolve_settings and the
# Dagster resource (defs/llm.py) all read them.
DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MAX_RETRIES = 4
DEFAULT_MAX_CONCURRENCY = 8
# Retries one run may spend across all its calls: under a provider failing every request, 70
# calls x 4 retries would multiply the load (and the wait) by five; past the budget a failing
# call fails at once and the run says how many did.
DEFAULT_RETRY_BUDGET = 40
DEFAULT_TIER = "nano"
OFFLINE_DEPLOYMENT = "offline"


class SettingsError(KnowledgeError, ValueError):
    """A backend, number or option the run cannot start with; the message names it."""


@dataclass(frozen=True)
class LLMSettings:
    backend: BackendName
    model: str
    tier: str
    base_url: str | None
    # repr=False: a settings object printed in a traceback or a log line must not carry the key.
    api_key: str | None = field(default=None, repr=False)
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_retries: int = DEFAULT_MAX_RETRIES
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    structured_output: StructuredOutputMode = "auto"
    use_cache: bool = True
    retry_budget: int = DEFAULT_RETRY_BUDGET

    @property
    def deployment(self) -> str:
        return OFFLINE_DEPLOYMENT if self.backend == "offline" else self.model

    def describe(self) -> dict[str, str]:
        """What a user may see in the CLI and in materialisation metadata: no key, and the base
        URL reduced to scheme and host so credentials or tokens in its query never show."""
        shown = {"llm_backend": self.backend, "llm_deployment": self.deployment, "llm_tier": self.tier}
        if self.backend == "openai":
            shown["llm_endpoint"] = _endpoint(self.base_url)
        return shown


def _endpoint(base_url: str | None) -> str:
    if not base_url:
        return "api.openai.com"
    parts = urlsplit(base_url)
    return f"{parts.scheme}://{parts.hostname}" + (f":{parts.port}" if parts.port else "")


def resolve_settings(
    *,
    backend: str = "",
    model: str = "",
    tier: str = "",
    base_url: str = "",
    timeout_s: float | None = None,
    max_retries: int = DEFAULT_MAX_RETRIES,
    max_concurrency: int | None = None,
    structured_output: StructuredOutputMode = "auto",
    use_cache: bool | None = None,
    retry_budget: int | None = None,
) -> LLMSettings:
    """Explicit values win; empty ones fall back to the environment, read now."""
    if timeout_s is None:
        timeout_s = _number("KNOWLEDGE_LLM_TIMEOUT_S", DEFAULT_TIMEOUT_S)
    if retry_budget is None:
        retry_budget = int(_number("KNOWLEDGE_LLM_RETRY_BUDGET", DEFAULT_RETRY_BUDGET))
    if max_concurrency is None:
        max_concurrency = int(_number("KNOWLEDGE_LLM_CONCURRENCY", DEFAULT_MAX_CONCURRENCY))
    if use_cache is None:
        use_cache = os.environ.get("KNOWLEDGE_LLM_CACHE", "on").strip().lower() not in ("off", "0", "false", "no")
    api_key = os.environ.get("OPENAI_API_KEY") or None
    base_url = base_url or os.environ.get("OPENAI_BASE_URL") or ""
    chosen = (backend or os.environ.get("KNOWLEDGE_LLM_BACKEND") or "").strip().lower()
    if not chosen:
        chosen = "openai" if (api_key or base_url) else "offline"
    if chosen not in ("openai", "offline"):
        raise SettingsError(f"KNOWLEDGE_LLM_BACKEND must be openai or offline, not {chosen!r}")
    if max_concurrency < 1 or max_retries < 0 or timeout_s <= 0 or retry_budget < 0:
        raise SettingsError("max_concurrency >= 1, max_retries >= 0, retry_budget >= 0 and timeout_s > 0 are required")
    return LLMSettings(
        backend=chosen,  # type: ignore[arg-type]
        model=model or os.environ.get("KNOWLEDGE_LLM_MODEL") or DEFAULT_MODEL,
        tier=tier or (DEFAULT_TIER if chosen == "openai" else OFFLINE_DEPLOYMENT),
        base_url=base_url or None,
        api_key=api_key,
        timeout_s=timeout_s,
        max_retries=max_retries,
        max_concurrency=max_concurrency,
        structured_output=structured_output,
        use_cache=use_cache,
        retry_budget=retry_budget,
    )


def _number(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a number, not {raw!r}") from None
