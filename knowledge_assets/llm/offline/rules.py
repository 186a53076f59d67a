"""Offline rules: selected among the request's rule candidates (`candidates.rules`).

A candidate with a `condition` part becomes a rule with its condition and consequence, its
span running from the first of the two to the end of the other; one without (an obligation,
prohibition or deadline whose subject is not a condition) becomes a rule stated as its whole
sentence, condition and consequence left null: a subject is not a condition. The statement
is the candidate's whole sentence.

`rule_type` keeps the contract's default, `calculation` (how a value is computed, set or
sourced), unless the rule sits under an interpretation heading, or its consequence judges,
escalates or reads a value (`flag`, `invalid`, `means that`, `menunjukkan`, `meninjau` …) and
does not compute or set one (`set to`, `dihitung`, `formula` …): then `interpretation`.
"""

from __future__ import annotations

import re
from functools import cache

from knowledge_assets.candidates.model import Candidate
from knowledge_assets.candidates.packs import cues
from knowledge_assets.llm.requests import RuleRequest, SourceChunk
from knowledge_assets.llm.responses import RuleFound, RuleResponse

_INTERPRETATION_HEADING = re.compile(r"interpret", re.IGNORECASE)


@cache
def _type_cues(key: str) -> re.Pattern:
    words = sorted(cues("rules").get(key, ()), key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(r"\s+".join(map(re.escape, w.split())) for w in words) + r")\b", re.IGNORECASE)


def answer_rules(request: RuleRequest) -> RuleResponse:
    chunks = {chunk.chunk_id: chunk for chunk in request.chunks}
    rules: dict[tuple[str, str], RuleFound] = {}
    for candidate in request.candidates:
        chunk = chunks.get(candidate.chunk_id)
        if candidate.kind == "rule" and chunk is not None:
            found = _rule(chunk, candidate)
            rules.setdefault((found.chunk_id, found.span), found)
    return RuleResponse(rules=list(rules.values()))


def _rule(chunk: SourceChunk, candidate: Candidate) -> RuleFound:
    condition, consequence = candidate.part("condition"), candidate.part("consequence")
    if condition is None or consequence is None:
        condition = consequence = None
        span = candidate.text
    else:
        span = chunk.text[min(condition.start, consequence.start):max(condition.end, consequence.end)]
    return RuleFound(
        rule_type=_rule_type(chunk, consequence.text if consequence else candidate.text),
        statement=candidate.text,
        condition=condition.text if condition else None,
        consequence=consequence.text if consequence else None,
        span=span,
        chunk_id=chunk.chunk_id,
    )


def _rule_type(chunk: SourceChunk, consequence: str) -> str:
    heading = chunk.heading_path[-1] if chunk.heading_path else ""
    if _INTERPRETATION_HEADING.search(heading):
        return "interpretation"
    if _type_cues("interpretation").search(consequence) and not _type_cues("calculation").search(consequence):
        return "interpretation"
    return "calculation"
