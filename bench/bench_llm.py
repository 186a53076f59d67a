"""LLM layer benchmark: one sample document through all four branches against the loopback
OpenAI-compatible server with a simulated model latency. Run by hand, not a test:

    python -m bench.bench_llm [--latency 0.5] [--document eval_assets/documents/std_parameter_produksi.pdf]

(from the project root, so `tests.support` imports).

Reports requests sent, prompt tokens, the provider-cache share the server reports, and wall
time at concurrency 1 and 8, then a second run served from the response cache. The server
answers each request with what the offline extractor finds in it, so completion sizes are
those of real answers. Clusters come from the term stage (`run_term_funnel`).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from knowledge_assets.candidates.formulas import find_formulas
from knowledge_assets.candidates.rules import find_rules
from knowledge_assets.contracts import ParsedDocument
from knowledge_assets.extract.stages import candidate_requests
from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.parse import parse_document
from knowledge_assets.llm.extractor import Extractor
from knowledge_assets.llm.model_settings import LLMSettings
from knowledge_assets.llm.offline import OfflineBackend
from knowledge_assets.llm.prompts import load_prompt, placeholder_values
from knowledge_assets.llm.requests import (
    DomainContextRequest,
    FormulaRequest,
    GlossaryRequest,
    RuleRequest,
    SourceChunk,
    TermBlock,
    cluster_batches,
)
from knowledge_assets.llm.usage import usage_totals
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.protocol import Store
from knowledge_assets.terms.funnel import run_term_funnel
from tests.support.openai_server import OpenAIServer

ROOT = Path(__file__).resolve().parents[1]
CHUNKS_PER_CLUSTER = 2
DOMAIN_CONTEXT_CHUNKS = 4


def document_chunks(parsed: ParsedDocument) -> list[SourceChunk]:
    return [SourceChunk(chunk_id=c.chunk_id, text=c.text, heading_path=c.heading_path) for c in parsed.chunks]


def clusters(parsed: ParsedDocument, chunks: list[SourceChunk]) -> list[TermBlock]:
    """The term stage's clusters, each with the chunk under its own heading first, then the
    chunks that mention it, in document order."""
    funnel = run_term_funnel(parsed)
    by_id = {chunk.chunk_id: chunk for chunk in chunks}
    mentioned: dict[str, list[str]] = {}
    for mention in funnel.mentions:
        if mention.term_id and mention.chunk_id not in mentioned.setdefault(mention.term_id, []):
            mentioned[mention.term_id].append(mention.chunk_id)
    result = []
    for cluster in funnel.clusters:
        ordered = sorted(mentioned.get(cluster.term_id, []), key=lambda chunk_id: not any(
            surface in (by_id[chunk_id].heading_path or [""])[-1] for surface in cluster.surfaces))
        if ordered:
            result.append(TermBlock(key=cluster.term_id, canonical=cluster.canonical,
                                      abbreviation=cluster.abbreviation,
                                      long_forms=list(cluster.long_forms),
                                      chunks=[by_id[chunk_id] for chunk_id in ordered[:CHUNKS_PER_CLUSTER]]))
    return sorted(result, key=lambda cluster: cluster.chunks[0].chunk_id)


def requests_for(parsed: ParsedDocument, chunks: list[SourceChunk], term_clusters: list[TermBlock]) -> list:
    outline = list(dict.fromkeys(h for c in chunks for h in c.heading_path))
    return [
        *(GlossaryRequest(clusters=batch) for batch in cluster_batches(term_clusters)),
        *candidate_requests(FormulaRequest, chunks, find_formulas(chunks)),
        *candidate_requests(RuleRequest, chunks, find_rules(chunks)),
        DomainContextRequest(outline=outline, chunks=chunks[:DOMAIN_CONTEXT_CHUNKS]),
    ]


def offline_answers(requests: list) -> dict[str, str]:
    """The user message of each request → the offline extractor's answer to it."""
    backend = OfflineBackend()
    return {
        load_prompt(r.branch).messages(placeholder_values(r))[1]["content"]: backend.answer(r).answer.model_dump_json()
        for r in requests
    }


def measure(
    label: str, concurrency: int, store: Store | None, requests: list, answers: dict[str, str], latency: float
) -> dict:
    """One run against a fresh server, so its provider-side prompt cache starts cold."""
    with OpenAIServer(lambda body: answers[body["messages"][-1]["content"]], latency_s=latency) as server:
        # The key is a placeholder: the loopback server checks nothing.
        settings = LLMSettings(backend="openai", model="loopback-nano", tier="nano", base_url=server.base_url,
                               api_key="sk-bench", timeout_s=30.0, max_concurrency=concurrency,
                               use_cache=store is not None)
        started = time.perf_counter()
        results = Extractor.from_settings(settings, store).run(requests)
        wall = time.perf_counter() - started
        sent = len(server.requests)
    totals = usage_totals(results)
    return {"run": label, "calls": totals["llm_calls"], "requests": sent,
            "failed": totals["llm_failed"], "prompt_tokens": totals["llm_prompt_tokens"],
            "cached_share": totals["llm_cached_share"], "completion_tokens": totals["llm_completion_tokens"],
            "wall_s": round(wall, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--document", type=Path,
                        default=ROOT / "eval_assets" / "documents" / "std_parameter_produksi.pdf")
    parser.add_argument("--latency", type=float, default=0.5)
    args = parser.parse_args()

    parsed = parse_document(identify(args.document))
    chunks = document_chunks(parsed)
    term_clusters = clusters(parsed, chunks)
    requests = requests_for(parsed, chunks, term_clusters)
    answers = offline_answers(requests)
    branches = {b: sum(1 for r in requests if r.branch == b) for b in ("glossary", "formula", "rule", "domain_context")}
    print(f"{args.document.name}: {len(chunks)} chunks, {len(term_clusters)} clusters, calls per branch {branches}")

    with tempfile.TemporaryDirectory() as scratch:
        store = DuckDBStore(Path(scratch) / "bench.duckdb")
        rows = [
            measure("concurrency 1, no response cache", 1, None, requests, answers, args.latency),
            measure("concurrency 8, response cache cold", 8, store, requests, answers, args.latency),
            measure("concurrency 8, response cache warm", 8, store, requests, answers, args.latency),
        ]
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
