"""The embedded default backend: a deterministic, rule-based extractor behind the same
interface and response models as the OpenAI backend, so a user with no key and no network
still gets a glossary, formulas, rules and a domain context.

Every string it returns is an exact substring of its request (the span check later quotes
them against the source); enum values are the only exception. Its usage rows say
`deployment = "offline"`, zero tokens, and `simulated = false`: it is scored like a model,
not a mock of one. Its answers are not cached: recomputing them costs less than a lookup.
"""

from __future__ import annotations

import time

from knowledge_assets.llm.model_settings import OFFLINE_DEPLOYMENT
from knowledge_assets.llm.offline.domain import answer_domain_context
from knowledge_assets.llm.offline.formulas import answer_formulas
from knowledge_assets.llm.offline.glossary import answer_glossary
from knowledge_assets.llm.offline.rules import answer_rules
from knowledge_assets.llm.requests import (
    DomainContextRequest,
    ExtractionRequest,
    FormulaRequest,
    GlossaryRequest,
    RuleRequest,
)
from knowledge_assets.llm.results import CallResult, call_usage

# Part of every offline-derived code version: bump it when a rule here changes what is found.
OFFLINE_EXTRACTOR_VERSION = "3"

_ANSWER = {
    GlossaryRequest: answer_glossary,
    FormulaRequest: answer_formulas,
    RuleRequest: answer_rules,
    DomainContextRequest: answer_domain_context,
}


class OfflineBackend:
    name = "offline"
    deployment = OFFLINE_DEPLOYMENT
    waits_on_a_model = False

    def __init__(self, tier: str = OFFLINE_DEPLOYMENT):
        self.tier = tier

    def cache_identity(self, request: ExtractionRequest) -> None:
        return None

    def answer(self, request: ExtractionRequest) -> CallResult:
        started = time.monotonic()
        response = _ANSWER[type(request)](request)  # type: ignore[operator]
        usage = call_usage(request.branch, deployment=self.deployment, tier=self.tier,
                           latency_s=time.monotonic() - started, structured_output_mode="offline")
        return CallResult(request, response, usage)
