"""Usage accounting: one `llm_usage` row per call, and the per-asset totals a
materialisation shows (calls, prompt tokens, cached share, cost estimate).

Cost is estimated from a price table per 1M tokens; cached prompt tokens are billed at the
cached rate, and a cache replay spent nothing. A model with no known price gets no cost
figure rather than a guessed one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from knowledge_assets.errors import DOCUMENT_CAUSE_CHARS, short_cause
from knowledge_assets.llm.model_settings import OFFLINE_DEPLOYMENT
from knowledge_assets.llm.requests import DomainContextRequest, GlossaryRequest
from knowledge_assets.llm.results import CallResult
from knowledge_assets.store.protocol import Store


@dataclass(frozen=True)
class Price:
    """USD per 1M tokens."""

    input: float
    cached_input: float
    output: float

    def cost(self, prompt_tokens: int, cached_tokens: int, completion_tokens: int) -> float:
        fresh = prompt_tokens - cached_tokens
        return (fresh * self.input + cached_tokens * self.cached_input + completion_tokens * self.output) / 1e6


# Published list prices; a deployment not listed here is priced through the resource's config.
PRICES: dict[str, Price] = {
    OFFLINE_DEPLOYMENT: Price(0.0, 0.0, 0.0),
    "gpt-5-nano": Price(0.05, 0.005, 0.40),
    "gpt-5-mini": Price(0.25, 0.025, 2.00),
    "gpt-4.1-nano": Price(0.10, 0.025, 0.40),
    "gpt-4.1-mini": Price(0.40, 0.10, 1.60),
    "gpt-4o-mini": Price(0.15, 0.075, 0.60),
}


def price_for(deployment: str, override: Price | None = None) -> Price | None:
    return override or PRICES.get(deployment)


def usage_rows(results: Sequence[CallResult], *, doc_id: str, run_id: str) -> list[dict]:
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    return [
        {"doc_id": doc_id, "run_id": run_id, **r.usage.model_dump(), "cache_hit": r.cache_hit,
         "outcome": r.outcome, "created_at": now}
        for r in results
    ]


def record_usage(store: Store, results: Sequence[CallResult], *, doc_id: str, run_id: str) -> None:
    """Appends: every run's spend is kept, re-runs included, so totals per run_id add up."""
    store.append("llm_usage", usage_rows(results, doc_id=doc_id, run_id=run_id))


def unanswered_items(result: CallResult) -> int:
    """What a failed call leaves without an answer: its terms, or its chunks (formulas, rules),
    or the one domain context."""
    request = result.request
    if result.ok:
        return 0
    if isinstance(request, GlossaryRequest):
        return len(request.clusters)
    if isinstance(request, DomainContextRequest):
        return 1
    return len(request.chunks)


def usage_totals(results: Sequence[CallResult], price: Price | None = None) -> dict[str, int | float | str]:
    """Per-asset totals, named for materialisation metadata so the UI can plot them; the first
    failed call's cause, when one failed, so a degraded run says why."""
    prompt = sum(r.usage.prompt_tokens for r in results)
    cached = sum(r.usage.cached_tokens for r in results)
    completion = sum(r.usage.completion_tokens for r in results)
    failures = [r.answer for r in results if not r.ok]
    totals: dict[str, int | float | str] = {
        "llm_calls": len(results),
        "llm_requests": sum(1 for r in results if not r.cache_hit),
        "llm_cache_hits": sum(1 for r in results if r.cache_hit),
        "llm_failed": len(failures),
        "llm_unanswered": sum(unanswered_items(r) for r in results),
        "llm_retries": sum(r.usage.retries for r in results),
        "llm_prompt_tokens": prompt,
        "llm_cached_tokens": cached,
        "llm_cached_share": round(cached / prompt, 4) if prompt else 0.0,
        "llm_completion_tokens": completion,
        "llm_latency_s": round(sum(r.usage.latency_s for r in results), 3),
    }
    if failures:
        # Without pydantic's help link: it names the library's page, not what went wrong.
        totals["llm_first_failure"] = short_cause(f"{failures[0].kind}: {failures[0].message}",
                                                  DOCUMENT_CAUSE_CHARS)
    if price is not None:
        totals["llm_cost_usd"] = round(price.cost(prompt, cached, completion), 6)
    return totals
