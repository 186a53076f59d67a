"""A request whose answer was cut off at the output limit, asked again as its two halves: how
a request is halved, how deep, and how the truncated call's spend is charged to its halves
(`llm/extractor.py` asks them and keeps what answered what)."""

from __future__ import annotations

from dataclasses import replace

from knowledge_assets.llm.requests import ExtractionRequest, FormulaRequest, GlossaryRequest, RuleRequest
from knowledge_assets.llm.results import CallFailure, CallResult

# A batch of 32 terms halves to 16, 8, 4, then 2: past that, a truncation is not the batch's size.
MAX_SPLIT_DEPTH = 4


def split_request(request: ExtractionRequest) -> tuple[ExtractionRequest, ExtractionRequest] | None:
    """The request as two halves of its terms (glossary) or chunks (formulas, rules), each with
    the candidates of its own chunks; None when it cannot be halved (one item, or the domain
    context, which is one answer about the whole document)."""
    if isinstance(request, GlossaryRequest):
        items = request.clusters
        if len(items) < 2:
            return None
        middle = len(items) // 2
        return tuple(  # type: ignore[return-value]
            request.model_copy(update={"clusters": half}) for half in (items[:middle], items[middle:]))
    if isinstance(request, (FormulaRequest, RuleRequest)) and len(request.chunks) >= 2:
        middle = len(request.chunks) // 2
        halves = request.chunks[:middle], request.chunks[middle:]
        return tuple(  # type: ignore[return-value]
            type(request)(chunks=half, candidates=[c for c in request.candidates
                                                   if c.chunk_id in {chunk.chunk_id for chunk in half}])
            for half in halves
        )
    return None


def is_truncated(result: CallResult) -> bool:
    return isinstance(result.answer, CallFailure) and result.answer.kind == "truncated"


def charged_to_halves(truncated: CallResult, halves: list[CallResult]) -> list[CallResult]:
    """The halves' results, the first carrying the truncated call's spend and one more retry:
    the tokens are accounted, and the truncated call, answered by its halves, is not counted
    as a failed call. The first carries a request sent this run, so it is no replay even when
    its half came from the cache."""
    spent, first = truncated.usage, halves[0].usage
    usage = first.model_copy(update={
        "prompt_tokens": first.prompt_tokens + spent.prompt_tokens,
        "cached_tokens": first.cached_tokens + spent.cached_tokens,
        "completion_tokens": first.completion_tokens + spent.completion_tokens,
        "latency_s": first.latency_s + spent.latency_s,
        "retries": first.retries + spent.retries + 1,
    })
    return [replace(halves[0], usage=usage, cache_hit=False), *halves[1:]]
